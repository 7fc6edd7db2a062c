//! The commands the server understands, each turned into calls on the store and a reply:
//! GET, SET (with NX / XX), DEL, EXISTS, MGET, MSET (atomic), SCAN (MATCH, COUNT), RANGE (a
//! range scan in key order: `RANGE start end [COUNT n]`, empty start or end meaning unbounded,
//! the reply a flat array of keys and values), DBSIZE, FLUSHDB, PING, ECHO, INFO, QUIT, and
//! what common clients send on connecting (CONFIG GET, COMMAND, HELLO 2, CLIENT SETNAME /
//! SETINFO, SELECT 0), answered harmlessly and truthfully. Names are case-insensitive; errors
//! are in Redis's wording.

use std::sync::atomic::Ordering::Relaxed;

use smrdb::WriteBatch;

use super::{glob, State};
use crate::resp::encode;

/// Whether the connection goes on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// Keys a RANGE may return at most, and SCAN examines at most, per call.
const MAX_COUNT: usize = 100_000;

fn wrong_arity(out: &mut Vec<u8>, name: &str) {
    encode::error(out, &format!("ERR wrong number of arguments for '{}' command", name.to_ascii_lowercase()));
}

fn store_error(out: &mut Vec<u8>, e: smrdb::Error) {
    encode::error(out, &format!("ERR {e}"));
}

/// Runs one command, appending its reply to `out`.
pub fn execute(state: &State, args: &[Vec<u8>], out: &mut Vec<u8>) -> Flow {
    state.commands.fetch_add(1, Relaxed);
    let name = String::from_utf8_lossy(&args[0]).to_ascii_uppercase();
    let rest = &args[1..];
    let arity_ok = match name.as_str() {
        "GET" | "ECHO" => rest.len() == 1,
        "SET" => rest.len() >= 2,
        "DEL" | "EXISTS" | "MGET" => !rest.is_empty(),
        "MSET" => !rest.is_empty() && rest.len().is_multiple_of(2),
        "SCAN" => !rest.is_empty(),
        "RANGE" => rest.len() >= 2,
        "PING" => rest.len() <= 1,
        "DBSIZE" | "QUIT" => rest.is_empty(),
        _ => true,
    };
    if !arity_ok {
        wrong_arity(out, &name);
        return Flow::Continue;
    }
    let result = match name.as_str() {
        "GET" => state.with_store(|s| s.get(&rest[0])).map(|v| encode::bulk(out, v.as_deref())),
        "SET" => set(state, rest, out),
        "DEL" => del(state, rest, out),
        "EXISTS" => exists(state, rest).map(|n| encode::integer(out, n)),
        "MGET" => mget(state, rest, out),
        "MSET" => {
            let mut b = WriteBatch::new();
            rest.chunks(2).for_each(|kv| b.put(&kv[0], &kv[1]));
            state.with_store(|s| s.write(&b, state.sync_writes)).map(|()| encode::simple(out, "OK"))
        }
        "SCAN" => scan(state, rest, out),
        "RANGE" => range(state, rest, out),
        "DBSIZE" => dbsize(state).map(|n| encode::integer(out, n as i64)),
        "FLUSHDB" | "FLUSHALL" => flush(state).map(|()| encode::simple(out, "OK")),
        "PING" => {
            match rest.first() {
                Some(m) => encode::bulk(out, Some(m)),
                None => encode::simple(out, "PONG"),
            }
            Ok(())
        }
        "ECHO" => {
            encode::bulk(out, Some(&rest[0]));
            Ok(())
        }
        "INFO" => {
            let text = state.info();
            encode::bulk(out, Some(text.as_bytes()));
            Ok(())
        }
        "QUIT" => {
            encode::simple(out, "OK");
            return Flow::Quit;
        }
        "CONFIG" => {
            config_get(rest, out);
            Ok(())
        }
        "COMMAND" => {
            encode::array_header(out, 0);
            Ok(())
        }
        "HELLO" => {
            hello(rest, out);
            Ok(())
        }
        "CLIENT" if rest.first().is_some_and(|s| s.eq_ignore_ascii_case(b"SETNAME") || s.eq_ignore_ascii_case(b"SETINFO")) => {
            encode::simple(out, "OK");
            Ok(())
        }
        "SELECT" => {
            if rest.len() == 1 && rest[0] == b"0" {
                encode::simple(out, "OK");
            } else {
                encode::error(out, "ERR DB index is out of range (the store has one database, 0)");
            }
            Ok(())
        }
        _ => {
            let shown: Vec<String> = rest.iter().take(3).map(|a| format!("'{}'", String::from_utf8_lossy(a))).collect();
            encode::error(out, &format!("ERR unknown command '{}', with args beginning with: {}", String::from_utf8_lossy(&args[0]), shown.join(" ")));
            Ok(())
        }
    };
    if let Err(e) = result {
        store_error(out, e);
    }
    Flow::Continue
}

/// CONFIG GET of the two settings redis-benchmark asks for, answered truthfully for this store:
/// it never snapshots (`save` is empty) and logs every write (`appendonly` is yes). Anything
/// else has no setting here: an empty list, as Redis gives for an unknown parameter.
fn config_get(rest: &[Vec<u8>], out: &mut Vec<u8>) {
    let known: [(&[u8], &[u8]); 2] = [(b"save", b""), (b"appendonly", b"yes")];
    let wanted = match rest {
        [sub, name] if sub.eq_ignore_ascii_case(b"GET") => known.iter().filter(|(k, _)| glob::matches(&name.to_ascii_lowercase(), k)).collect(),
        _ => Vec::new(),
    };
    encode::array_header(out, 2 * wanted.len());
    for (k, v) in wanted {
        encode::bulk(out, Some(k));
        encode::bulk(out, Some(v));
    }
}

/// HELLO: version 2 (or none) gets the server's description; 3 is refused, as a server that
/// speaks RESP2 only answers it (clients then stay on RESP2 or say why they cannot).
fn hello(rest: &[Vec<u8>], out: &mut Vec<u8>) {
    if rest.first().is_some_and(|v| v.as_slice() != b"2") {
        encode::error(out, "NOPROTO this server speaks RESP2 only");
        return;
    }
    let fields: [(&[u8], &[u8]); 5] = [(b"server", b"smrdb"), (b"version", env!("CARGO_PKG_VERSION").as_bytes()), (b"proto", b"2"), (b"mode", b"standalone"), (b"role", b"master")];
    encode::array_header(out, 2 * fields.len());
    for (k, v) in fields {
        encode::bulk(out, Some(k));
        if k == b"proto" {
            encode::integer(out, 2);
        } else {
            encode::bulk(out, Some(v));
        }
    }
}

fn set(state: &State, rest: &[Vec<u8>], out: &mut Vec<u8>) -> smrdb::Result<()> {
    let (mut nx, mut xx) = (false, false);
    for opt in &rest[2..] {
        match opt.to_ascii_uppercase().as_slice() {
            b"NX" => nx = true,
            b"XX" => xx = true,
            b"EX" | b"PX" | b"EXAT" | b"PXAT" | b"KEEPTTL" => {
                encode::error(out, "ERR expiry is not supported by this store");
                return Ok(());
            }
            _ => {
                encode::error(out, "ERR syntax error");
                return Ok(());
            }
        }
    }
    if nx && xx {
        encode::error(out, "ERR syntax error");
        return Ok(());
    }
    let mut b = WriteBatch::new();
    b.put(&rest[0], &rest[1]);
    if !nx && !xx {
        state.with_store(|s| s.write(&b, state.sync_writes))?;
        encode::simple(out, "OK");
        return Ok(());
    }
    // The check and the write must not interleave with another conditional write.
    let _one_at_a_time = state.conditional.lock().unwrap_or_else(|p| p.into_inner());
    let present = state.with_store(|s| s.get(&rest[0]))?.is_some();
    if present == xx {
        state.with_store(|s| s.write(&b, state.sync_writes))?;
        encode::simple(out, "OK");
    } else {
        encode::bulk(out, None);
    }
    Ok(())
}

fn exists(state: &State, keys: &[Vec<u8>]) -> smrdb::Result<i64> {
    let mut n = 0;
    for k in keys {
        n += state.with_store(|s| s.get(k))?.is_some() as i64;
    }
    Ok(n)
}

fn del(state: &State, keys: &[Vec<u8>], out: &mut Vec<u8>) -> smrdb::Result<()> {
    let _one_at_a_time = state.conditional.lock().unwrap_or_else(|p| p.into_inner());
    let mut b = WriteBatch::new();
    let mut n = 0;
    let mut seen: Vec<&[u8]> = Vec::new();
    for k in keys {
        if !seen.contains(&k.as_slice()) && state.with_store(|s| s.get(k))?.is_some() {
            n += 1;
            seen.push(k);
        }
        b.delete(k);
    }
    state.with_store(|s| s.write(&b, state.sync_writes))?;
    encode::integer(out, n);
    Ok(())
}

fn mget(state: &State, keys: &[Vec<u8>], out: &mut Vec<u8>) -> smrdb::Result<()> {
    let mut values = Vec::with_capacity(keys.len());
    for k in keys {
        values.push(state.with_store(|s| s.get(k))?);
    }
    encode::array_header(out, values.len());
    for v in &values {
        encode::bulk(out, v.as_deref());
    }
    Ok(())
}

/// The smallest key after `key`.
fn after(key: &[u8]) -> Vec<u8> {
    let mut k = key.to_vec();
    k.push(0);
    k
}

fn count_option(out: &mut Vec<u8>, value: &[u8]) -> Option<usize> {
    match std::str::from_utf8(value).ok().and_then(|t| t.parse::<usize>().ok()).filter(|&n| n >= 1) {
        Some(n) => Some(n.min(MAX_COUNT)),
        None => {
            encode::error(out, "ERR value is not an integer or out of range");
            None
        }
    }
}

fn scan(state: &State, rest: &[Vec<u8>], out: &mut Vec<u8>) -> smrdb::Result<()> {
    let Some(cursor) = std::str::from_utf8(&rest[0]).ok().and_then(|t| t.parse::<u64>().ok()) else {
        encode::error(out, "ERR invalid cursor");
        return Ok(());
    };
    let (mut pattern, mut count) = (None, 10usize);
    for pair in rest[1..].chunks(2) {
        if pair.len() < 2 {
            encode::error(out, "ERR syntax error");
            return Ok(());
        }
        match pair[0].to_ascii_uppercase().as_slice() {
            b"MATCH" => pattern = Some(pair[1].clone()),
            b"COUNT" => match count_option(out, &pair[1]) {
                Some(n) => count = n,
                None => return Ok(()),
            },
            b"TYPE" if pair[1].eq_ignore_ascii_case(b"string") => {}
            b"TYPE" => {
                // Every key here holds a string: no key has another type.
                encode::array_header(out, 2);
                encode::bulk(out, Some(b"0"));
                encode::array_header(out, 0);
                return Ok(());
            }
            _ => {
                encode::error(out, "ERR syntax error");
                return Ok(());
            }
        }
    }
    let start = if cursor == 0 {
        Vec::new()
    } else {
        match state.cursors.lock().unwrap_or_else(|p| p.into_inner()).resume_after(cursor) {
            Some(k) => after(k),
            None => {
                encode::error(out, "ERR invalid cursor (unknown or expired; start again from 0)");
                return Ok(());
            }
        }
    };
    let pairs = state.with_store(|s| s.scan(&start, None, count + 1))?;
    let more = pairs.len() > count;
    let examined = &pairs[..pairs.len().min(count)];
    let next = match (more, examined.last()) {
        (true, Some((k, _))) => state.cursors.lock().unwrap_or_else(|p| p.into_inner()).issue(k.clone()),
        _ => 0,
    };
    let keys: Vec<&[u8]> = examined.iter().map(|(k, _)| k.as_slice()).filter(|k| pattern.as_deref().is_none_or(|p| glob::matches(p, k))).collect();
    encode::array_header(out, 2);
    encode::bulk(out, Some(next.to_string().as_bytes()));
    encode::array_header(out, keys.len());
    for k in keys {
        encode::bulk(out, Some(k));
    }
    Ok(())
}

fn range(state: &State, rest: &[Vec<u8>], out: &mut Vec<u8>) -> smrdb::Result<()> {
    let mut count = 100;
    match &rest[2..] {
        [] => {}
        [opt, n] if opt.eq_ignore_ascii_case(b"COUNT") => match count_option(out, n) {
            Some(c) => count = c,
            None => return Ok(()),
        },
        _ => {
            encode::error(out, "ERR syntax error (RANGE start end [COUNT n])");
            return Ok(());
        }
    }
    let end = (!rest[1].is_empty()).then_some(rest[1].as_slice());
    let pairs = state.with_store(|s| s.scan(&rest[0], end, count))?;
    encode::array_header(out, pairs.len() * 2);
    for (k, v) in &pairs {
        encode::bulk(out, Some(k));
        encode::bulk(out, Some(v));
    }
    Ok(())
}

/// Keys read per store call by DBSIZE and FLUSHDB.
const SWEEP: usize = 4096;

fn dbsize(state: &State) -> smrdb::Result<u64> {
    let (mut n, mut start) = (0u64, Vec::new());
    loop {
        let pairs = state.with_store(|s| s.scan(&start, None, SWEEP))?;
        n += pairs.len() as u64;
        match pairs.last() {
            Some((k, _)) if pairs.len() == SWEEP => start = after(k),
            _ => return Ok(n),
        }
    }
}

fn flush(state: &State) -> smrdb::Result<()> {
    let _one_at_a_time = state.conditional.lock().unwrap_or_else(|p| p.into_inner());
    let mut start = Vec::new();
    loop {
        let pairs = state.with_store(|s| s.scan(&start, None, SWEEP))?;
        let mut b = WriteBatch::new();
        pairs.iter().for_each(|(k, _)| b.delete(k));
        state.with_store(|s| s.write(&b, false))?;
        match pairs.last() {
            Some((k, _)) if pairs.len() == SWEEP => start = after(k),
            _ => return state.with_store(|s| s.sync()),
        }
    }
}
