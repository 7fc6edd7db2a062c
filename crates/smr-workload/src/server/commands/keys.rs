//! Commands on keys whatever they hold: DEL, EXISTS, TYPE; expiry (EXPIRE and PEXPIRE with NX,
//! XX, GT, LT; TTL, PTTL, PERSIST); and the commands that walk the keys in order: KEYS, SCAN
//! (MATCH, COUNT, TYPE; cursors in `cursors`), RANGE (our own range scan: `RANGE start end
//! [COUNT n]`, an empty start or end unbounded, the reply a flat array of each key and its
//! value, null for a key that does not hold a string), DBSIZE and FLUSHDB / FLUSHALL.
//!
//! Expired keys are invisible to all of them. Times to live are kept to the millisecond, on
//! this machine's clock (as Redis keeps them).

use super::{integer_argument, Ctx, SYNTAX};
use crate::server::glob;
use crate::server::record::{Record, Value};

/// Keys a RANGE may return at most, and a SCAN examines at most, per call.
const MAX_COUNT: usize = 100_000;

/// Records read per store call by the commands that walk every key.
const SWEEP: usize = 4096;

/// Bytes of deletes FLUSHDB stores per batch (well inside the smallest log band).
const FLUSH_BATCH_BYTES: usize = 64 << 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Seconds,
    Milliseconds,
}

/// The deadline, in milliseconds since the Unix epoch, that `n` units from now give (or `n`
/// units since the epoch, when `absolute`); `None` where the sum overflows, as Redis checks.
pub fn deadline_from(n: i64, unit: Unit, absolute: bool, now_ms: u64) -> Option<i64> {
    let ms = match unit {
        Unit::Seconds => n.checked_mul(1000)?,
        Unit::Milliseconds => n,
    };
    if absolute {
        Some(ms)
    } else {
        ms.checked_add(now_ms as i64)
    }
}

pub fn del(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    let mut deleted = 0;
    for k in args {
        // An expired record is removed too, but not counted: the key was already gone.
        if let Some(stored) = c.keys.get_stored(k)? {
            deleted += !Record::decode(stored).is_expired(c.keys.now_ms) as i64;
            c.keys.delete(k);
        }
    }
    c.out.integer(deleted);
    Ok(())
}

pub fn exists(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    let mut n = 0;
    for k in args {
        n += c.keys.get(k)?.is_some() as i64;
    }
    c.out.integer(n);
    Ok(())
}

pub fn type_of(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    let name = c.keys.get(args[0])?.map_or("none", |r| r.value.type_name());
    c.out.simple(name);
    Ok(())
}

pub fn expire(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    set_expiry(c, args, Unit::Seconds, "expire")
}

pub fn pexpire(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    set_expiry(c, args, Unit::Milliseconds, "pexpire")
}

/// EXPIRE and PEXPIRE: options, then the time, then the key, in Redis's order of checks.
fn set_expiry(c: &mut Ctx, args: &[&[u8]], unit: Unit, name: &str) -> smrdb::Result<()> {
    let (mut nx, mut xx, mut gt, mut lt) = (false, false, false, false);
    for opt in &args[2..] {
        match opt.to_ascii_uppercase().as_slice() {
            b"NX" => nx = true,
            b"XX" => xx = true,
            b"GT" => gt = true,
            b"LT" => lt = true,
            _ => {
                c.out.error(&format!("ERR Unsupported option {}", String::from_utf8_lossy(opt)));
                return Ok(());
            }
        }
    }
    if nx && (xx || gt || lt) {
        c.out.error("ERR NX and XX, GT or LT options at the same time are not compatible");
        return Ok(());
    }
    if gt && lt {
        c.out.error("ERR GT and LT options at the same time are not compatible");
        return Ok(());
    }
    let Some(n) = integer_argument(c.out, args[1]) else { return Ok(()) };
    let Some(when) = deadline_from(n, unit, false, c.keys.now_ms) else {
        c.out.error(&format!("ERR invalid expire time in '{name}' command"));
        return Ok(());
    };
    let Some(mut record) = c.keys.get(args[0])? else {
        c.out.integer(0);
        return Ok(());
    };
    // No time to live counts as an infinite one.
    let refused = match record.deadline_ms {
        Some(current) => nx || gt && when <= current as i64 || lt && when >= current as i64,
        None => xx || gt,
    };
    if refused {
        c.out.integer(0);
        return Ok(());
    }
    if when <= c.keys.now_ms as i64 {
        c.keys.delete(args[0]);
    } else {
        record.deadline_ms = Some(when as u64);
        c.keys.put(args[0], &record);
    }
    c.out.integer(1);
    Ok(())
}

pub fn ttl(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    time_to_live(c, args[0], Unit::Seconds)
}

pub fn pttl(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    time_to_live(c, args[0], Unit::Milliseconds)
}

/// -2 for no key, -1 for a key without a time to live; seconds are rounded, as in Redis.
fn time_to_live(c: &mut Ctx, key: &[u8], unit: Unit) -> smrdb::Result<()> {
    let ttl = match c.keys.get(key)? {
        None => -2,
        Some(Record { deadline_ms: None, .. }) => -1,
        Some(Record { deadline_ms: Some(d), .. }) => {
            let ms = d.saturating_sub(c.keys.now_ms) as i64;
            if unit == Unit::Seconds {
                (ms + 500) / 1000
            } else {
                ms
            }
        }
    };
    c.out.integer(ttl);
    Ok(())
}

pub fn persist(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    let changed = match c.keys.get(args[0])? {
        Some(mut record) if record.deadline_ms.is_some() => {
            record.deadline_ms = None;
            c.keys.put(args[0], &record);
            true
        }
        _ => false,
    };
    c.out.integer(changed as i64);
    Ok(())
}

/// The smallest key after `key`.
fn after(key: &[u8]) -> Vec<u8> {
    let mut k = key.to_vec();
    k.push(0);
    k
}

/// Calls `visit` on each live record from `start` on, in key order, until it returns false.
fn walk(c: &mut Ctx, start: &[u8], mut visit: impl FnMut(&[u8], &Record) -> bool) -> smrdb::Result<()> {
    let mut start = start.to_vec();
    loop {
        let swept = c.keys.scan(&start, SWEEP)?;
        for (k, r) in &swept.records {
            if !r.is_expired(c.keys.now_ms) && !visit(k, r) {
                return Ok(());
            }
        }
        match swept.passed {
            Some(k) => start = after(&k),
            None => return Ok(()),
        }
    }
}

pub fn keys(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    let mut found = Vec::new();
    walk(c, b"", |k, _| {
        if glob::matches(args[0], k) {
            found.push(k.to_vec());
        }
        true
    })?;
    c.out.array(found.len());
    for k in &found {
        c.out.bulk(k);
    }
    Ok(())
}

pub fn dbsize(c: &mut Ctx, _: &[&[u8]]) -> smrdb::Result<()> {
    let mut n = 0;
    walk(c, b"", |_, _| {
        n += 1;
        true
    })?;
    c.out.integer(n);
    Ok(())
}

/// A COUNT option's value: at least 1 (else a syntax error, as Redis), at most `MAX_COUNT`.
fn count_option(c: &mut Ctx, value: &[u8]) -> Option<usize> {
    let n = integer_argument(c.out, value)?;
    if n < 1 {
        c.out.error(SYNTAX);
        return None;
    }
    Some((n as usize).min(MAX_COUNT))
}

pub fn scan(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    let Some(cursor) = std::str::from_utf8(args[0]).ok().and_then(|t| t.parse::<u64>().ok()) else {
        c.out.error("ERR invalid cursor");
        return Ok(());
    };
    let (mut pattern, mut count, mut type_name) = (None, 10usize, None);
    for pair in args[1..].chunks(2) {
        let [option, value] = pair else {
            c.out.error(SYNTAX);
            return Ok(());
        };
        match option.to_ascii_uppercase().as_slice() {
            b"MATCH" => pattern = Some(*value).filter(|p| *p != b"*"),
            b"COUNT" => match count_option(c, value) {
                Some(n) => count = n,
                None => return Ok(()),
            },
            b"TYPE" => type_name = Some(*value),
            _ => {
                c.out.error(SYNTAX);
                return Ok(());
            }
        }
    }
    let mut start = if cursor == 0 {
        Vec::new()
    } else {
        match c.state.cursors.lock().unwrap_or_else(|p| p.into_inner()).resume_after(cursor) {
            Some(k) => after(k),
            None => {
                c.out.error("ERR invalid cursor (unknown or expired; start again from 0)");
                return Ok(());
            }
        }
    };
    // COUNT keys are examined, over as many store calls as their values take (a call stops
    // after 4 MiB); each call's values are dropped once its keys are filtered, so memory is
    // bounded by one store call, not by COUNT. One record read past COUNT tells whether the
    // iteration goes on.
    let now = c.keys.now_ms;
    let (mut examined, mut keys, mut last) = (0, Vec::new(), None);
    let more = 'walk: loop {
        let swept = c.keys.scan(&start, count + 1 - examined)?;
        for (k, r) in swept.records {
            if examined == count {
                break 'walk true;
            }
            examined += 1;
            if !r.is_expired(now)
                && pattern.is_none_or(|p| glob::matches(p, &k))
                && type_name.is_none_or(|t| t.eq_ignore_ascii_case(r.value.type_name().as_bytes()))
            {
                keys.push(k.clone());
            }
            last = Some(k);
        }
        match swept.passed {
            Some(k) => start = after(&k),
            None => break false,
        }
    };
    let next = match (more, last) {
        (true, Some(k)) => c.state.cursors.lock().unwrap_or_else(|p| p.into_inner()).issue(k),
        _ => 0,
    };
    c.out.array(2);
    c.out.bulk(next.to_string().as_bytes());
    c.out.array(keys.len());
    for k in &keys {
        c.out.bulk(k);
    }
    Ok(())
}

pub fn range(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    let mut count = 100;
    match &args[2..] {
        [] => {}
        [opt, n] if opt.eq_ignore_ascii_case(b"COUNT") => match count_option(c, n) {
            Some(n) => count = n,
            None => return Ok(()),
        },
        _ => {
            c.out.error("ERR syntax error (RANGE start end [COUNT n])");
            return Ok(());
        }
    }
    let end = args[1];
    let mut pairs = Vec::new();
    walk(c, args[0], |k, r| {
        if !end.is_empty() && k >= end {
            return false;
        }
        let value = match &r.value {
            Value::String(s) => Some(s.clone()),
            Value::Hash(_) => None,
        };
        pairs.push((k.to_vec(), value));
        pairs.len() < count
    })?;
    c.out.array(pairs.len() * 2);
    for (k, v) in &pairs {
        c.out.bulk(k);
        c.out.bulk_or_null(v.as_deref());
    }
    Ok(())
}

/// FLUSHDB and FLUSHALL (one database here): deletes every key, in batches of its own, and
/// syncs. ASYNC and SYNC are accepted; both finish before the reply.
pub fn flush(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    match args {
        [] => {}
        [mode] if mode.eq_ignore_ascii_case(b"ASYNC") || mode.eq_ignore_ascii_case(b"SYNC") => {}
        _ => {
            c.out.error(SYNTAX);
            return Ok(());
        }
    }
    let mut start = Vec::new();
    loop {
        let swept = c.keys.scan(&start, SWEEP)?;
        for (k, _) in &swept.records {
            c.keys.delete(k);
            if c.keys.pending_bytes() >= FLUSH_BATCH_BYTES {
                c.keys.commit()?;
            }
        }
        c.keys.commit()?;
        match swept.passed {
            Some(k) => start = after(&k),
            None => break,
        }
    }
    c.state.store.with(|s| s.sync())?;
    c.out.ok();
    Ok(())
}
