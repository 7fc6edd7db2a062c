//! Hash commands: HSET (and HMSET, its older name that answers OK), HGET, HMGET, HGETALL (a
//! map in RESP3), HDEL (a hash left without fields is deleted), HLEN, HEXISTS. A hash keeps
//! its time to live through changes; fields keep the order they were first set in.

use super::{Ctx, WRONGTYPE};
use crate::server::record::{Fields, Record, Value};

/// The fields of the hash under `key`: `Ok(None)` after replying WRONGTYPE to another type;
/// an absent key is an empty hash.
fn read(c: &mut Ctx, key: &[u8]) -> smrdb::Result<Option<(Fields, Option<u64>)>> {
    match c.keys.get(key)? {
        None => Ok(Some((Fields::new(), None))),
        Some(Record { value: Value::Hash(fields), deadline_ms }) => Ok(Some((fields, deadline_ms))),
        Some(_) => {
            c.out.error(WRONGTYPE);
            Ok(None)
        }
    }
}

fn field<'f>(fields: &'f Fields, name: &[u8]) -> Option<&'f [u8]> {
    fields.iter().find(|(f, _)| f == name).map(|(_, v)| v.as_slice())
}

/// Sets the pairs after the key; how many fields are new, or `None` after replying an error.
fn set_fields(c: &mut Ctx, args: &[&[u8]], name: &str) -> smrdb::Result<Option<i64>> {
    if args.len().is_multiple_of(2) {
        super::wrong_arity(c.out, name);
        return Ok(None);
    }
    let Some((mut fields, deadline_ms)) = read(c, args[0])? else { return Ok(None) };
    let mut added = 0;
    for pair in args[1..].chunks(2) {
        match fields.iter_mut().find(|(f, _)| *f == pair[0]) {
            Some((_, v)) => *v = pair[1].to_vec(),
            None => {
                fields.push((pair[0].to_vec(), pair[1].to_vec()));
                added += 1;
            }
        }
    }
    c.keys.put(args[0], &Record { value: Value::Hash(fields), deadline_ms });
    Ok(Some(added))
}

pub fn hset(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    if let Some(added) = set_fields(c, args, "hset")? {
        c.out.integer(added);
    }
    Ok(())
}

pub fn hmset(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    if set_fields(c, args, "hmset")?.is_some() {
        c.out.ok();
    }
    Ok(())
}

pub fn hget(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    if let Some((fields, _)) = read(c, args[0])? {
        c.out.bulk_or_null(field(&fields, args[1]));
    }
    Ok(())
}

pub fn hmget(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    if let Some((fields, _)) = read(c, args[0])? {
        c.out.array(args.len() - 1);
        for name in &args[1..] {
            c.out.bulk_or_null(field(&fields, name));
        }
    }
    Ok(())
}

pub fn hgetall(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    if let Some((fields, _)) = read(c, args[0])? {
        c.out.map(fields.len());
        for (f, v) in &fields {
            c.out.bulk(f);
            c.out.bulk(v);
        }
    }
    Ok(())
}

pub fn hdel(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    let Some((mut fields, deadline_ms)) = read(c, args[0])? else { return Ok(()) };
    let before = fields.len();
    fields.retain(|(f, _)| !args[1..].contains(&f.as_slice()));
    let removed = before - fields.len();
    if fields.is_empty() && before > 0 {
        c.keys.delete(args[0]);
    } else if removed > 0 {
        c.keys.put(args[0], &Record { value: Value::Hash(fields), deadline_ms });
    }
    c.out.integer(removed as i64);
    Ok(())
}

pub fn hlen(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    if let Some((fields, _)) = read(c, args[0])? {
        c.out.integer(fields.len() as i64);
    }
    Ok(())
}

pub fn hexists(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    if let Some((fields, _)) = read(c, args[0])? {
        c.out.integer(field(&fields, args[1]).is_some() as i64);
    }
    Ok(())
}
