//! Commands about the connection and the server: PING, ECHO, HELLO (RESP2 or RESP3, with AUTH
//! and SETNAME), AUTH, CLIENT (SETNAME, GETNAME, ID, SETINFO), SELECT 0, INFO, CONFIG GET and
//! COMMAND, answered as Redis 7 answers them.
//!
//! This server has no password: as Redis without one, it accepts AUTH (or HELLO's AUTH) for
//! the user `default` with any password, refuses other users (WRONGPASS), and AUTH with a
//! password alone is an error. It has one database, 0.

use super::{integer_argument, wrong_arity, Ctx, SYNTAX};
use crate::resp::Protocol;

/// The Redis version whose commands this server follows (HELLO, CLIENT SETINFO and EXPIRE's
/// options are Redis 7's), as HELLO and INFO's `redis_version` report it; INFO's
/// `smrdb_version` is this server's own.
pub const REDIS_VERSION: &str = "7.2.0";

pub fn ping(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    match args {
        [] => c.out.simple("PONG"),
        [message] => c.out.bulk(message),
        _ => wrong_arity(c.out, "ping"),
    }
    Ok(())
}

pub fn echo(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    c.out.bulk(args[0]);
    Ok(())
}

/// Checks a user and password as Redis with no password set does: `Err` is the refusal.
fn authenticate(user: &[u8]) -> Result<(), &'static str> {
    if user == b"default" {
        Ok(())
    } else {
        Err("WRONGPASS invalid username-password pair or user is disabled.")
    }
}

/// A client name Redis accepts: printable ASCII without spaces.
fn valid_name(c: &mut Ctx, name: &[u8]) -> bool {
    let ok = name.iter().all(|b| (b'!'..=b'~').contains(b));
    if !ok {
        c.out.error("ERR Client names cannot contain spaces, newlines or special characters.");
    }
    ok
}

pub fn hello(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    let mut protocol = c.out.protocol;
    if let Some(version) = args.first() {
        protocol = match super::parse_integer(version) {
            Some(2) => Protocol::Resp2,
            Some(3) => Protocol::Resp3,
            Some(_) => {
                c.out.error("NOPROTO unsupported protocol version");
                return Ok(());
            }
            None => {
                c.out.error("ERR Protocol version is not an integer or out of range");
                return Ok(());
            }
        };
    }
    let (mut user, mut name) = (None, None);
    let mut i = 1;
    while i < args.len() {
        let more = args.len() - i - 1;
        if args[i].eq_ignore_ascii_case(b"AUTH") && more >= 2 {
            user = Some(args[i + 1]);
            i += 3;
        } else if args[i].eq_ignore_ascii_case(b"SETNAME") && more >= 1 {
            name = Some(args[i + 1]);
            i += 2;
        } else {
            c.out.error(&format!("ERR Syntax error in HELLO option '{}'", String::from_utf8_lossy(args[i])));
            return Ok(());
        }
    }
    if let Some(Err(refusal)) = user.map(authenticate) {
        c.out.error(refusal);
        return Ok(());
    }
    if let Some(name) = name {
        if !valid_name(c, name) {
            return Ok(());
        }
        c.session.name = Some(name.to_vec());
    }
    c.out.protocol = protocol;
    c.out.map(7);
    for (field, text) in [("server", "smrdb"), ("version", REDIS_VERSION)] {
        c.out.bulk(field.as_bytes());
        c.out.bulk(text.as_bytes());
    }
    c.out.bulk(b"proto");
    c.out.integer(protocol.number());
    c.out.bulk(b"id");
    c.out.integer(c.session.id as i64);
    for (field, text) in [("mode", "standalone"), ("role", "master")] {
        c.out.bulk(field.as_bytes());
        c.out.bulk(text.as_bytes());
    }
    c.out.bulk(b"modules");
    c.out.array(0);
    Ok(())
}

pub fn auth(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    match args {
        [_password] => c.out.error("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"),
        [user, _password] => match authenticate(user) {
            Ok(()) => c.out.ok(),
            Err(refusal) => c.out.error(refusal),
        },
        _ => c.out.error(SYNTAX),
    }
    Ok(())
}

pub fn client(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    let sub = args[0].to_ascii_lowercase();
    let arity = match sub.as_slice() {
        b"setname" => 2,
        b"getname" | b"id" => 1,
        b"setinfo" => 3,
        _ => {
            c.out.error(&format!("ERR unknown subcommand '{}'. Try CLIENT HELP.", String::from_utf8_lossy(args[0])));
            return Ok(());
        }
    };
    if args.len() != arity {
        wrong_arity(c.out, &format!("client|{}", String::from_utf8_lossy(&sub)));
        return Ok(());
    }
    match sub.as_slice() {
        b"setname" => {
            if valid_name(c, args[1]) {
                c.session.name = Some(args[1].to_vec()).filter(|n| !n.is_empty());
                c.out.ok();
            }
        }
        b"getname" => c.out.bulk_or_null(c.session.name.as_deref()),
        b"id" => c.out.integer(c.session.id as i64),
        _ => {
            // SETINFO: what library the client is; accepted and not kept.
            if args[1].eq_ignore_ascii_case(b"LIB-NAME") || args[1].eq_ignore_ascii_case(b"LIB-VER") {
                c.out.ok();
            } else {
                c.out.error(&format!("ERR Unrecognized option '{}'", String::from_utf8_lossy(args[1])));
            }
        }
    }
    Ok(())
}

pub fn select(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    match integer_argument(c.out, args[0]) {
        Some(0) => c.out.ok(),
        Some(_) => c.out.error("ERR DB index is out of range"),
        None => {}
    }
    Ok(())
}

pub fn info(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    let text = c.state.info(args);
    c.out.verbatim(&text);
    Ok(())
}

/// CONFIG GET of the two settings redis-benchmark asks for, answered truthfully for this
/// store: it never snapshots (`save` is empty) and logs every write (`appendonly` is yes). A
/// pattern matching no setting here gets nothing for it, as in Redis. CONFIG SET and the
/// other subcommands are refused.
pub fn config(c: &mut Ctx, args: &[&[u8]]) -> smrdb::Result<()> {
    if !args[0].eq_ignore_ascii_case(b"GET") {
        c.out.error(&format!("ERR unknown subcommand '{}'. Try CONFIG HELP.", String::from_utf8_lossy(args[0])));
        return Ok(());
    }
    if args.len() < 2 {
        wrong_arity(c.out, "config|get");
        return Ok(());
    }
    let known: [(&[u8], &[u8]); 2] = [(b"save", b""), (b"appendonly", b"yes")];
    let wanted: Vec<_> = known
        .iter()
        .filter(|(k, _)| args[1..].iter().any(|p| crate::server::glob::matches(&p.to_ascii_lowercase(), k)))
        .collect();
    c.out.map(wanted.len());
    for (k, v) in wanted {
        c.out.bulk(k);
        c.out.bulk(v);
    }
    Ok(())
}

/// COMMAND and its subcommands (redis-cli asks COMMAND DOCS for its hints): an empty list,
/// which clients take as "no details known".
pub fn command(c: &mut Ctx, _: &[&[u8]]) -> smrdb::Result<()> {
    c.out.array(0);
    Ok(())
}

/// UNWATCH: nothing is ever watched here (WATCH is refused).
pub fn unwatch(c: &mut Ctx, _: &[&[u8]]) -> smrdb::Result<()> {
    c.out.ok();
    Ok(())
}
