//! String commands: GET, SET (NX, XX, GET, EX, PX, EXAT, PXAT, KEEPTTL), MGET, MSET, and
//! INCR, INCRBY, DECR, DECRBY (a string holding a decimal integer in Redis's syntax; the key
//! keeps its time to live).

use super::keys::{deadline_from, Unit};
use super::{integer_argument, parse_integer, Ctx, NOT_AN_INTEGER, SYNTAX, WRONGTYPE};
use crate::server::record::{Record, Value};

pub fn get(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    match c.keys.get(args[0])? {
        None => c.out.null(),
        Some(Record { value: Value::String(s), .. }) => c.out.bulk(&s),
        Some(_) => c.out.error(WRONGTYPE),
    }
    Ok(())
}

pub fn mget(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    let mut values = Vec::with_capacity(args.len());
    for k in args {
        // A key of another type reads as absent, as in Redis.
        values.push(match c.keys.get(k)? {
            Some(Record { value: Value::String(s), .. }) => Some(s),
            _ => None,
        });
    }
    c.out.array(values.len());
    for v in &values {
        c.out.bulk_or_null(v.as_deref());
    }
    Ok(())
}

pub fn mset(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    if !args.len().is_multiple_of(2) {
        super::wrong_arity(c.out, "mset");
        return Ok(());
    }
    for kv in args.chunks(2) {
        c.keys.put_string(kv[0], kv[1]);
    }
    c.out.ok();
    Ok(())
}

/// SET's options.
#[derive(Default)]
struct SetOptions {
    only_if_absent: bool,
    only_if_present: bool,
    get: bool,
    keep_ttl: bool,
    /// The option that sets a time to live, and its argument.
    expiry: Option<(Unit, bool, Vec<u8>)>,
}

/// Reads SET's options as Redis does; `None` after replying a syntax error.
fn set_options(c: &mut Ctx, opts: &[&[u8]]) -> Option<SetOptions> {
    let mut o = SetOptions::default();
    let mut i = 0;
    while i < opts.len() {
        let word = opts[i].to_ascii_uppercase();
        let next = opts.get(i + 1);
        let expiry = match word.as_slice() {
            b"EX" => Some((Unit::Seconds, false)),
            b"PX" => Some((Unit::Milliseconds, false)),
            b"EXAT" => Some((Unit::Seconds, true)),
            b"PXAT" => Some((Unit::Milliseconds, true)),
            _ => None,
        };
        let ok = match (word.as_slice(), expiry, next) {
            (b"NX", ..) if !o.only_if_present => {
                o.only_if_absent = true;
                true
            }
            (b"XX", ..) if !o.only_if_absent => {
                o.only_if_present = true;
                true
            }
            (b"GET", ..) => {
                o.get = true;
                true
            }
            (b"KEEPTTL", ..) if o.expiry.is_none() => {
                o.keep_ttl = true;
                true
            }
            // As in Redis, the same expiry option may repeat (the last counts), two may not.
            (_, Some((unit, absolute)), Some(arg))
                if o.expiry.as_ref().is_none_or(|(u, a, _)| (*u, *a) == (unit, absolute)) && !o.keep_ttl =>
            {
                o.expiry = Some((unit, absolute, arg.to_vec()));
                i += 1;
                true
            }
            _ => false,
        };
        if !ok {
            c.out.error(SYNTAX);
            return None;
        }
        i += 1;
    }
    Some(o)
}

pub fn set(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    let (key, value) = (args[0], args[1]);
    if args.len() == 2 {
        // The common case needs no read: whatever the key held, it now holds this string.
        c.keys.put_string(key, value);
        c.out.ok();
        return Ok(());
    }
    let Some(o) = set_options(c, &args[2..]) else { return Ok(()) };
    let deadline_ms = match &o.expiry {
        None => None,
        Some((unit, absolute, arg)) => {
            let Some(n) = integer_argument(c.out, arg) else { return Ok(()) };
            let deadline = if n > 0 { deadline_from(n, *unit, *absolute, c.keys.now_ms) } else { None };
            match deadline.and_then(|d| u64::try_from(d).ok()).filter(|&d| d > 0) {
                Some(d) => Some(d),
                None => {
                    c.out.error("ERR invalid expire time in 'set' command");
                    return Ok(());
                }
            }
        }
    };
    let old = c.keys.get(key)?;
    let old_string = match &old {
        Some(Record { value: Value::String(s), .. }) => Some(s.as_slice()),
        Some(_) if o.get => {
            c.out.error(WRONGTYPE);
            return Ok(());
        }
        _ => None,
    };
    let write = !(o.only_if_absent && old.is_some() || o.only_if_present && old.is_none());
    if write {
        let kept = if o.keep_ttl { old.as_ref().and_then(|r| r.deadline_ms) } else { deadline_ms };
        c.keys.put(key, &Record { value: Value::String(value.to_vec()), deadline_ms: kept });
    }
    match (o.get, write) {
        (true, _) => c.out.bulk_or_null(old_string),
        (false, true) => c.out.ok(),
        (false, false) => c.out.null(),
    }
    Ok(())
}

pub fn incr(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    add(c, args[0], 1)
}

pub fn decr(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    add(c, args[0], -1)
}

pub fn incrby(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    match integer_argument(c.out, args[1]) {
        Some(n) => add(c, args[0], n),
        None => Ok(()),
    }
}

pub fn decrby(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    match integer_argument(c.out, args[1]) {
        Some(i64::MIN) => {
            c.out.error("ERR decrement would overflow");
            Ok(())
        }
        Some(n) => add(c, args[0], -n),
        None => Ok(()),
    }
}

/// Adds `n` to the integer the key holds (0 if absent), keeping its time to live.
fn add(c: &mut Ctx, key: &[u8], n: i64) -> smrdb::Result<()> {
    let (current, deadline_ms) = match c.keys.get(key)? {
        None => (Some(0), None),
        Some(Record { value: Value::String(s), deadline_ms }) => (parse_integer(&s), deadline_ms),
        Some(_) => {
            c.out.error(WRONGTYPE);
            return Ok(());
        }
    };
    let Some(current) = current else {
        c.out.error(NOT_AN_INTEGER);
        return Ok(());
    };
    let Some(sum) = current.checked_add(n) else {
        c.out.error("ERR increment or decrement would overflow");
        return Ok(());
    };
    c.keys.put(key, &Record { value: Value::String(sum.to_string().into_bytes()), deadline_ms });
    c.out.integer(sum);
    Ok(())
}
