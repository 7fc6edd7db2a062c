//! The commands the server knows: their names, arities and kinds in one table (`COMMANDS`),
//! and what they share: the context a command runs in, Redis's integer syntax and its error
//! wording. Names are case-insensitive; replies and errors follow Redis 7 byte for byte where
//! clients read them (checked against redis-server in tests/test_server_vs_redis.py).
//!
//! The commands, by group: strings (`strings`), hashes (`hashes`), keys, expiry and scans
//! (`keys`), and the connection and server (`connection`). Transactions (MULTI, EXEC,
//! DISCARD) and QUIT are run by the runner (`server::run`), which only finds them here.
//!
//! Refused, with a reply saying so: other Redis commands (unknown command), databases other
//! than 0 (SELECT), WATCH (transactions here always run atomically; there is no optimistic
//! locking), CONFIG SET.

mod connection;
mod hashes;
mod keys;
mod strings;

pub use connection::REDIS_VERSION;

use super::keyspace::Keyspace;
use super::session::Session;
use super::State;
use crate::resp::Replies;

/// What a command runs with: the server, the connection, the keys as its run sees them, and
/// where its reply goes.
pub struct Ctx<'c, 's> {
    pub state: &'s State,
    pub session: &'c mut Session,
    pub keys: &'c mut Keyspace<'s>,
    pub out: &'c mut Replies,
}

/// Runs a command on its arguments (the name left out). A store error is returned before
/// or instead of a reply; the runner then answers it.
pub type Handler = fn(&mut Ctx, &[&[u8]]) -> smrdb::Result<()>;

/// Commands the runner carries out itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    Multi,
    Exec,
    Discard,
    Quit,
    Watch,
}

#[derive(Clone, Copy)]
pub enum Kind {
    /// Reads only.
    Read(Handler),
    /// Writes through the run's keyspace (stored with the run's batch).
    Write(Handler),
    /// Writes too much for one batch (FLUSHDB): stores its own batches, so the runner stores
    /// what came before it first.
    Alone(Handler),
    Control(Control),
}

pub struct Spec {
    /// Lower case, as Redis names a command in its errors.
    pub name: &'static str,
    /// Redis's arity, the name included: n > 0 exactly n arguments, n < 0 at least -n.
    pub arity: i32,
    pub kind: Kind,
}

impl Spec {
    pub fn arity_ok(&self, args: usize) -> bool {
        if self.arity >= 0 {
            args == self.arity as usize
        } else {
            args >= self.arity.unsigned_abs() as usize
        }
    }

    pub fn writes(&self) -> bool {
        matches!(self.kind, Kind::Write(_) | Kind::Alone(_))
    }
}

const fn spec(name: &'static str, arity: i32, kind: Kind) -> Spec {
    Spec { name, arity, kind }
}

use Kind::{Alone, Read, Write};

pub static COMMANDS: &[Spec] = &[
    spec("get", 2, Read(strings::get)),
    spec("set", -3, Write(strings::set)),
    spec("mget", -2, Read(strings::mget)),
    spec("mset", -3, Write(strings::mset)),
    spec("incr", 2, Write(strings::incr)),
    spec("decr", 2, Write(strings::decr)),
    spec("incrby", 3, Write(strings::incrby)),
    spec("decrby", 3, Write(strings::decrby)),
    spec("hset", -4, Write(hashes::hset)),
    spec("hmset", -4, Write(hashes::hmset)),
    spec("hget", 3, Read(hashes::hget)),
    spec("hmget", -3, Read(hashes::hmget)),
    spec("hgetall", 2, Read(hashes::hgetall)),
    spec("hdel", -3, Write(hashes::hdel)),
    spec("hlen", 2, Read(hashes::hlen)),
    spec("hexists", 3, Read(hashes::hexists)),
    spec("del", -2, Write(keys::del)),
    spec("exists", -2, Read(keys::exists)),
    spec("type", 2, Read(keys::type_of)),
    spec("expire", -3, Write(keys::expire)),
    spec("pexpire", -3, Write(keys::pexpire)),
    spec("ttl", 2, Read(keys::ttl)),
    spec("pttl", 2, Read(keys::pttl)),
    spec("persist", 2, Write(keys::persist)),
    spec("keys", 2, Read(keys::keys)),
    spec("scan", -2, Read(keys::scan)),
    spec("range", -3, Read(keys::range)),
    spec("dbsize", 1, Read(keys::dbsize)),
    spec("flushdb", -1, Alone(keys::flush)),
    spec("flushall", -1, Alone(keys::flush)),
    spec("ping", -1, Read(connection::ping)),
    spec("echo", 2, Read(connection::echo)),
    spec("hello", -1, Read(connection::hello)),
    spec("auth", -2, Read(connection::auth)),
    spec("client", -2, Read(connection::client)),
    spec("select", 2, Read(connection::select)),
    spec("info", -1, Read(connection::info)),
    spec("config", -2, Read(connection::config)),
    spec("command", -1, Read(connection::command)),
    spec("unwatch", 1, Read(connection::unwatch)),
    spec("multi", 1, Kind::Control(Control::Multi)),
    spec("exec", 1, Kind::Control(Control::Exec)),
    spec("discard", 1, Kind::Control(Control::Discard)),
    spec("quit", -1, Kind::Control(Control::Quit)),
    spec("watch", -2, Kind::Control(Control::Watch)),
];

/// The command called `name`, in any case.
pub fn lookup(name: &[u8]) -> Option<&'static Spec> {
    COMMANDS.iter().find(|s| s.name.len() == name.len() && s.name.as_bytes().eq_ignore_ascii_case(name))
}

pub const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";
pub const NOT_AN_INTEGER: &str = "ERR value is not an integer or out of range";
pub const SYNTAX: &str = "ERR syntax error";

/// Redis's refusal of a command it does not know, quoting the first arguments.
pub fn unknown_command(out: &mut Replies, args: &[&[u8]]) {
    // As Redis: arguments are quoted until the list passes 128 bytes, each cut to what is left.
    let mut shown = String::new();
    for a in &args[1..] {
        if shown.len() >= 128 {
            break;
        }
        let room = 128 - shown.len();
        let text = String::from_utf8_lossy(&a[..a.len().min(room)]);
        shown.push_str(&format!("'{text}' "));
    }
    let name = String::from_utf8_lossy(&args[0][..args[0].len().min(128)]);
    out.error(&format!("ERR unknown command '{name}', with args beginning with: {shown}"));
}

pub fn wrong_arity(out: &mut Replies, name: &str) {
    out.error(&format!("ERR wrong number of arguments for '{name}' command"));
}

/// An integer in Redis's syntax (its `string2ll`): an optional minus sign, then digits with no
/// leading zero (except "0" itself), within 64 bits. No spaces, no plus sign.
pub fn parse_integer(arg: &[u8]) -> Option<i64> {
    let digits = arg.strip_prefix(b"-").unwrap_or(arg);
    let leading_zero = digits.first() == Some(&b'0') && arg.len() > 1;
    if digits.is_empty() || digits.len() > 19 || leading_zero || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let magnitude: u64 = digits.iter().fold(0, |n, d| n * 10 + u64::from(d - b'0'));
    if digits.len() == arg.len() {
        i64::try_from(magnitude).ok()
    } else {
        0i64.checked_sub_unsigned(magnitude)
    }
}

/// `parse_integer`, or Redis's error reply and `None`.
pub fn integer_argument(out: &mut Replies, arg: &[u8]) -> Option<i64> {
    let n = parse_integer(arg);
    if n.is_none() {
        out.error(NOT_AN_INTEGER);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_follow_redis_syntax() {
        for (text, n) in
            [("0", 0), ("-1", -1), ("9223372036854775807", i64::MAX), ("-9223372036854775808", i64::MIN), ("42", 42)]
        {
            assert_eq!(parse_integer(text.as_bytes()), Some(n), "{text}");
        }
        for text in [
            "",
            "-",
            "-0",
            "01",
            "+1",
            " 1",
            "1 ",
            "1.5",
            "9223372036854775808",
            "-9223372036854775809",
            "99999999999999999999",
        ] {
            assert_eq!(parse_integer(text.as_bytes()), None, "{text}");
        }
    }

    #[test]
    fn every_command_is_found_in_any_case_and_only_once() {
        for s in COMMANDS {
            assert_eq!(lookup(s.name.to_uppercase().as_bytes()).map(|f| f.name), Some(s.name));
            assert_eq!(COMMANDS.iter().filter(|o| o.name == s.name).count(), 1, "{}", s.name);
        }
        assert!(lookup(b"nosuch").is_none());
    }
}
