//! Any server speaking the Redis protocol as an executor target, one connection per worker:
//! reads are GET, writes SET, the load phase MSET, and scans the RANGE command of our own
//! server (`crate::server`; a server without it fails scans, which the run counts as errors).
//! A small blocking client: one request, then its reply.

use std::io::{Read, Write};
use std::net::TcpStream;

use super::Target;
use crate::error::{Result, WorkloadError};
use crate::resp::{encode, parse_reply, Reply};

/// Replies larger than this are refused (a scan of 1000 1-KB records is 1 MB).
const MAX_REPLY_BULK: usize = 512 << 20;

pub struct RespTarget {
    server: String,
    stream: TcpStream,
    out: Vec<u8>,
    buf: Vec<u8>,
}

impl RespTarget {
    pub fn connect(server: &str) -> Result<RespTarget> {
        let stream = TcpStream::connect(server)
            .map_err(|e| WorkloadError::Server { server: server.into(), problem: format!("cannot connect: {e}") })?;
        stream.set_nodelay(true).map_err(|e| WorkloadError::io("set TCP_NODELAY", e))?;
        Ok(RespTarget { server: server.into(), stream, out: Vec::new(), buf: Vec::new() })
    }

    fn fail(&self, problem: impl Into<String>) -> WorkloadError {
        WorkloadError::Server { server: self.server.clone(), problem: problem.into() }
    }

    /// Sends one command and reads its reply; an error reply becomes an error.
    pub fn call(&mut self, args: &[&[u8]]) -> Result<Reply> {
        self.out.clear();
        encode::command(&mut self.out, args);
        self.stream.write_all(&self.out).map_err(|e| self.fail(format!("send failed: {e}")))?;
        let mut chunk = [0u8; 64 << 10];
        loop {
            match parse_reply(&self.buf, MAX_REPLY_BULK).map_err(|e| self.fail(e.to_string()))? {
                Some((reply, used)) => {
                    self.buf.drain(..used);
                    return match reply {
                        Reply::Error(e) => Err(self.fail(format!("{} replied: {e}", String::from_utf8_lossy(args[0])))),
                        r => Ok(r),
                    };
                }
                None => {
                    let n = self.stream.read(&mut chunk).map_err(|e| self.fail(format!("receive failed: {e}")))?;
                    if n == 0 {
                        return Err(self.fail("closed the connection"));
                    }
                    self.buf.extend_from_slice(&chunk[..n]);
                }
            }
        }
    }
}

impl Target for RespTarget {
    fn read(&mut self, key: &[u8]) -> Result<bool> {
        Ok(matches!(self.call(&[b"GET", key])?, Reply::Bulk(Some(_))))
    }

    fn write(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.call(&[b"SET", key, value]).map(drop)
    }

    fn scan(&mut self, start: &[u8], count: usize) -> Result<usize> {
        let count = count.to_string();
        match self.call(&[b"RANGE", start, b"", b"COUNT", count.as_bytes()])? {
            Reply::Array(Some(items)) => Ok(items.len() / 2),
            other => Err(self.fail(format!("RANGE replied {other:?}, not an array"))),
        }
    }

    fn load(&mut self, pairs: &[(Vec<u8>, Vec<u8>)]) -> Result<()> {
        let mut args: Vec<&[u8]> = vec![b"MSET"];
        for (k, v) in pairs {
            args.push(k);
            args.push(v);
        }
        self.call(&args).map(drop)
    }
}
