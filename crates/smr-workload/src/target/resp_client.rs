//! Any server speaking the Redis protocol as an executor target, one connection per worker:
//! reads are GET, writes SET, the load phase MSET, and scans the RANGE command of our own
//! server (`crate::server`; a server without it fails scans, which the run counts as errors).
//! A small blocking client: one request, then its reply, each within a timeout, so a server
//! that accepts and never answers (or answers something that never ends a reply) fails the
//! run with an error instead of hanging it.

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use super::Target;
use crate::error::{Result, WorkloadError};
use crate::resp::{encode, parse_reply, Reply};

/// Replies larger than this are refused (a scan of 1000 1-KB records is 1 MB).
const MAX_REPLY_BULK: usize = 512 << 20;

/// How long a connection, a send or a reply may take unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The longest timeout that may be asked for (an hour: a reply slower than that is a hang).
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);

pub struct RespTarget {
    server: String,
    stream: TcpStream,
    timeout: Duration,
    out: Vec<u8>,
    buf: Vec<u8>,
    /// Why the connection was given up (a timeout, a reply out of protocol, a closed
    /// connection): its replies can no longer be matched to requests, so every later call
    /// fails at once with this.
    broken: Option<String>,
}

impl RespTarget {
    pub fn connect(server: &str) -> Result<RespTarget> {
        Self::connect_with(server, DEFAULT_TIMEOUT)
    }

    /// Connects to `server` (`host:port`); connecting, each send and each reply may take at
    /// most `timeout` (more than zero, at most `MAX_TIMEOUT`).
    pub fn connect_with(server: &str, timeout: Duration) -> Result<RespTarget> {
        if timeout.is_zero() || timeout > MAX_TIMEOUT {
            return Err(WorkloadError::parameter(
                "server_timeout",
                format!("a timeout is more than 0 and at most {} s, not {:?}", MAX_TIMEOUT.as_secs(), timeout),
            ));
        }
        let fail = |problem: String| WorkloadError::Server { server: server.into(), problem };
        let addresses: Vec<_> = server.to_socket_addrs().map_err(|e| fail(format!("cannot connect: {e}")))?.collect();
        let mut last = None;
        let stream = addresses.iter().find_map(|a| match TcpStream::connect_timeout(a, timeout) {
            Ok(s) => Some(s),
            Err(e) => {
                last = Some(e);
                None
            }
        });
        let stream = stream.ok_or_else(|| {
            fail(match last {
                Some(e) => format!("cannot connect: {e}"),
                None => "cannot connect: the name has no address".into(),
            })
        })?;
        stream.set_nodelay(true).map_err(|e| WorkloadError::io("set TCP_NODELAY", e))?;
        stream.set_read_timeout(Some(timeout)).map_err(|e| WorkloadError::io("set a read timeout", e))?;
        stream.set_write_timeout(Some(timeout)).map_err(|e| WorkloadError::io("set a write timeout", e))?;
        Ok(RespTarget { server: server.into(), stream, timeout, out: Vec::new(), buf: Vec::new(), broken: None })
    }

    /// What a failed send or receive says: a timeout as such.
    fn io_problem(&self, what: &str, e: std::io::Error) -> WorkloadError {
        match e.kind() {
            ErrorKind::WouldBlock | ErrorKind::TimedOut => self.fail(format!(
                "{what}: nothing within {:.3} s (is it a Redis-protocol server that answers? a longer server_timeout allows more)",
                self.timeout.as_secs_f64()
            )),
            _ => self.fail(format!("{what} failed: {e}")),
        }
    }

    fn fail(&self, problem: impl Into<String>) -> WorkloadError {
        WorkloadError::Server { server: self.server.clone(), problem: problem.into() }
    }

    /// Sends one command and reads its reply; an error reply becomes an error.
    pub fn call(&mut self, args: &[&[u8]]) -> Result<Reply> {
        if let Some(problem) = &self.broken {
            return Err(self.fail(format!("the connection was given up: {problem}")));
        }
        let reply = self.exchange(args);
        if let Err(WorkloadError::Server { problem, .. }) = &reply {
            self.broken = Some(problem.clone());
        }
        match reply? {
            Reply::Error(e) => Err(self.fail(format!("{} replied: {e}", String::from_utf8_lossy(args[0])))),
            r => Ok(r),
        }
    }

    /// Sends one command and reads one reply, whatever it is.
    fn exchange(&mut self, args: &[&[u8]]) -> Result<Reply> {
        self.out.clear();
        encode::command(&mut self.out, args);
        self.stream.write_all(&self.out).map_err(|e| self.io_problem("send", e))?;
        let mut chunk = [0u8; 64 << 10];
        loop {
            match parse_reply(&self.buf, MAX_REPLY_BULK).map_err(|e| self.fail(e.to_string()))? {
                Some((reply, used)) => {
                    self.buf.drain(..used);
                    return Ok(reply);
                }
                None => {
                    let n = self.stream.read(&mut chunk).map_err(|e| self.io_problem("reply", e))?;
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

#[cfg(test)]
mod tests {
    use std::net::TcpListener;

    use super::*;

    /// A server on a free port that accepts connections, reads what comes and answers each
    /// arrival with `answer` (nothing, when empty); until the test ends.
    fn peer(answer: &'static [u8]) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        std::thread::spawn(move || {
            for mut stream in listener.incoming().flatten() {
                std::thread::spawn(move || {
                    let mut buf = [0u8; 4096];
                    while let Ok(n) = stream.read(&mut buf) {
                        if n == 0 || (!answer.is_empty() && stream.write_all(answer).is_err()) {
                            return;
                        }
                    }
                });
            }
        });
        address
    }

    #[test]
    fn a_server_that_never_answers_or_answers_garbage_fails_within_the_timeout() {
        let timeout = Duration::from_millis(300);
        for (answer, problem) in [
            (&b""[..], "nothing within 0.300 s"),
            (b"$99999\r\nnever ends", "nothing within 0.300 s"),
            (b"?garbage\r\n", "Protocol error"),
        ] {
            let mut c = RespTarget::connect_with(&peer(answer), timeout).unwrap();
            let e = c.call(&[b"GET", b"k"]).unwrap_err().to_string();
            assert!(e.contains(problem), "{answer:?}: {e}");
            // Given up: the next call fails at once, with the reason.
            let e = c.call(&[b"GET", b"k"]).unwrap_err().to_string();
            assert!(e.contains("given up") && e.contains(problem), "{e}");
        }
        for bad in [Duration::ZERO, MAX_TIMEOUT + Duration::from_secs(1)] {
            assert!(RespTarget::connect_with("127.0.0.1:1", bad).is_err());
        }
    }
}
