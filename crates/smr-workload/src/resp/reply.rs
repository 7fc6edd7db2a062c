//! Parsing a server's replies, for our own client: simple strings, errors, integers, bulk
//! strings (or null) and arrays of any of these (or null), nested.

use super::ProtocolError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Simple(String),
    Error(String),
    Integer(i64),
    Bulk(Option<Vec<u8>>),
    Array(Option<Vec<Reply>>),
}

/// Replies nest at most this deep.
const MAX_DEPTH: usize = 8;

fn line(buf: &[u8], at: usize) -> Option<(&[u8], usize)> {
    let rel = buf[at..].windows(2).position(|w| w == b"\r\n")?;
    Some((&buf[at + 1..at + rel], at + rel + 2))
}

fn number(text: &[u8]) -> Result<i64, ProtocolError> {
    std::str::from_utf8(text).ok().and_then(|t| t.parse().ok()).ok_or_else(|| ProtocolError(format!("'{}' is not a number", text.escape_ascii())))
}

/// One reply from the start of `buf` and the bytes it took; `None` until it has all arrived.
pub fn parse_reply(buf: &[u8], max_bulk: usize) -> Result<Option<(Reply, usize)>, ProtocolError> {
    parse_at(buf, 0, max_bulk, 0)
}

fn parse_at(buf: &[u8], at: usize, max_bulk: usize, depth: usize) -> Result<Option<(Reply, usize)>, ProtocolError> {
    if at >= buf.len() {
        return Ok(None);
    }
    if depth > MAX_DEPTH {
        return Err(ProtocolError(format!("replies nested more than {MAX_DEPTH} deep")));
    }
    let Some((text, next)) = line(buf, at) else { return Ok(None) };
    match buf[at] {
        b'+' => Ok(Some((Reply::Simple(String::from_utf8_lossy(text).into_owned()), next))),
        b'-' => Ok(Some((Reply::Error(String::from_utf8_lossy(text).into_owned()), next))),
        b':' => Ok(Some((Reply::Integer(number(text)?), next))),
        b'$' => {
            let len = number(text)?;
            if len < 0 {
                return Ok(Some((Reply::Bulk(None), next)));
            }
            if len as u64 > max_bulk as u64 {
                return Err(ProtocolError(format!("bulk reply of {len} bytes is over the limit of {max_bulk}")));
            }
            let end = next + len as usize;
            if buf.len() < end + 2 {
                return Ok(None);
            }
            Ok(Some((Reply::Bulk(Some(buf[next..end].to_vec())), end + 2)))
        }
        b'*' => {
            let count = number(text)?;
            if count < 0 {
                return Ok(Some((Reply::Array(None), next)));
            }
            let mut items = Vec::with_capacity((count as usize).min(1024));
            let mut at = next;
            for _ in 0..count {
                match parse_at(buf, at, max_bulk, depth + 1)? {
                    Some((item, n)) => {
                        items.push(item);
                        at = n;
                    }
                    None => return Ok(None),
                }
            }
            Ok(Some((Reply::Array(Some(items)), at)))
        }
        other => Err(ProtocolError(format!("reply starts with '{}'", other.escape_ascii()))),
    }
}
