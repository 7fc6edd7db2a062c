//! Parsing a server's replies, for our own client: RESP2's simple strings, errors, integers,
//! bulk strings (or null) and arrays of any of these (or null), nested; and the RESP3 types
//! our server writes (`encode`): null, maps and verbatim strings.

use super::ProtocolError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Simple(String),
    Error(String),
    Integer(i64),
    Bulk(Option<Vec<u8>>),
    Array(Option<Vec<Reply>>),
    /// RESP3's null.
    Null,
    /// RESP3's map: key and value pairs, in the order sent.
    Map(Vec<(Reply, Reply)>),
    /// RESP3's verbatim string: its three-letter format and its text.
    Verbatim(String, Vec<u8>),
}

/// Replies nest at most this deep.
const MAX_DEPTH: usize = 8;

fn line(buf: &[u8], at: usize) -> Option<(&[u8], usize)> {
    let rel = buf[at..].windows(2).position(|w| w == b"\r\n")?;
    Some((&buf[at + 1..at + rel], at + rel + 2))
}

fn number(text: &[u8]) -> Result<i64, ProtocolError> {
    std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| ProtocolError(format!("'{}' is not a number", text.escape_ascii())))
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
        b'_' if text.is_empty() => Ok(Some((Reply::Null, next))),
        b'$' => {
            let len = number(text)?;
            if len < 0 {
                return Ok(Some((Reply::Bulk(None), next)));
            }
            Ok(blob(buf, next, len, max_bulk)?.map(|(data, end)| (Reply::Bulk(Some(data.to_vec())), end)))
        }
        b'=' => {
            let Some((data, end)) = blob(buf, next, number(text)?, max_bulk)? else { return Ok(None) };
            if data.len() < 4 || data[3] != b':' {
                return Err(ProtocolError("verbatim string without its format prefix".into()));
            }
            Ok(Some((Reply::Verbatim(String::from_utf8_lossy(&data[..3]).into_owned(), data[4..].to_vec()), end)))
        }
        b'*' => {
            let count = number(text)?;
            if count < 0 {
                return Ok(Some((Reply::Array(None), next)));
            }
            Ok(items(buf, next, count as usize, max_bulk, depth)?.map(|(items, at)| (Reply::Array(Some(items)), at)))
        }
        b'%' => {
            let count = usize::try_from(number(text)?).map_err(|_| ProtocolError("negative map length".into()))?;
            let Some((flat, at)) = items(buf, next, count.saturating_mul(2), max_bulk, depth)? else { return Ok(None) };
            let mut flat = flat.into_iter();
            let mut pairs = Vec::with_capacity(count);
            while let (Some(key), Some(value)) = (flat.next(), flat.next()) {
                pairs.push((key, value));
            }
            Ok(Some((Reply::Map(pairs), at)))
        }
        other => Err(ProtocolError(format!("reply starts with '{}'", other.escape_ascii()))),
    }
}

/// The `len` bytes of a bulk or verbatim string starting at `at`, and where its CRLF ends.
fn blob(buf: &[u8], at: usize, len: i64, max_bulk: usize) -> Result<Option<(&[u8], usize)>, ProtocolError> {
    if len < 0 || len as u64 > max_bulk as u64 {
        return Err(ProtocolError(format!("a string reply of {len} bytes (at most {max_bulk})")));
    }
    let end = at + len as usize;
    if buf.len() < end + 2 {
        return Ok(None);
    }
    Ok(Some((&buf[at..end], end + 2)))
}

/// `count` replies one after another from `at` (an array's or a map's elements).
fn items(
    buf: &[u8],
    mut at: usize,
    count: usize,
    max_bulk: usize,
    depth: usize,
) -> Result<Option<(Vec<Reply>, usize)>, ProtocolError> {
    let mut items = Vec::with_capacity(count.min(1024));
    for _ in 0..count {
        match parse_at(buf, at, max_bulk, depth + 1)? {
            Some((item, n)) => {
                items.push(item);
                at = n;
            }
            None => return Ok(None),
        }
    }
    Ok(Some((items, at)))
}
