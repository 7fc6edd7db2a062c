use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::mpsc;

use smrdb::{Db, Options};

use super::*;
use crate::resp::{encode, Reply};
use crate::target::RespTarget;

struct Running {
    address: SocketAddr,
    stop: Stop,
    done: std::thread::JoinHandle<Result<ServeReport>>,
}

fn start(limits: Limits) -> Running {
    start_with(ServerConfig { limits, ..ServerConfig::default() })
}

fn start_with(config: ServerConfig) -> Running {
    start_on(Options { band_size: Some(1 << 20), capacity: Some(64 << 20), ..Options::default() }, config)
}

fn start_on(options: Options, config: ServerConfig) -> Running {
    let db = Db::open_in_memory(options, None).unwrap();
    let stop = Stop::default();
    let config = ServerConfig { address: "127.0.0.1:0".into(), handle_signals: false, ..config };
    let (tx, rx) = mpsc::channel();
    let s = stop.clone();
    let done = std::thread::spawn(move || {
        serve(Arc::new(SharedStore::new(Box::new(db), "test store")), &config, s, |a| tx.send(a).unwrap())
    });
    Running { address: rx.recv().unwrap(), stop, done }
}

fn bulk(b: &[u8]) -> Reply {
    Reply::Bulk(Some(b.to_vec()))
}

#[test]
fn serves_the_string_commands() {
    let server = start(Limits::default());
    let mut c = RespTarget::connect(&server.address.to_string()).unwrap();
    assert_eq!(c.call(&[b"PING"]).unwrap(), Reply::Simple("PONG".into()));
    assert_eq!(c.call(&[b"set", b"a", b"1"]).unwrap(), Reply::Simple("OK".into()));
    assert_eq!(c.call(&[b"MSET", b"b", b"2", b"c", b"3"]).unwrap(), Reply::Simple("OK".into()));
    assert_eq!(c.call(&[b"GET", b"a"]).unwrap(), bulk(b"1"));
    assert_eq!(c.call(&[b"GET", b"zz"]).unwrap(), Reply::Bulk(None));
    assert_eq!(
        c.call(&[b"MGET", b"a", b"x", b"c"]).unwrap(),
        Reply::Array(Some(vec![bulk(b"1"), Reply::Bulk(None), bulk(b"3")]))
    );
    assert_eq!(c.call(&[b"EXISTS", b"a", b"b", b"x", b"a"]).unwrap(), Reply::Integer(3));
    assert_eq!(c.call(&[b"SET", b"a", b"9", b"NX"]).unwrap(), Reply::Bulk(None));
    assert_eq!(c.call(&[b"SET", b"d", b"4", b"NX"]).unwrap(), Reply::Simple("OK".into()));
    assert_eq!(c.call(&[b"DBSIZE"]).unwrap(), Reply::Integer(4));
    assert_eq!(
        c.call(&[b"RANGE", b"b", b"d", b"COUNT", b"10"]).unwrap(),
        Reply::Array(Some(vec![bulk(b"b"), bulk(b"2"), bulk(b"c"), bulk(b"3")]))
    );
    assert_eq!(c.call(&[b"DEL", b"a", b"a", b"x"]).unwrap(), Reply::Integer(1));
    assert!(c.call(&[b"GET"]).unwrap_err().to_string().contains("wrong number of arguments for 'get'"));
    assert!(c
        .call(&[b"NOPE", b"x"])
        .unwrap_err()
        .to_string()
        .contains("unknown command 'NOPE', with args beginning with: 'x' "));
    assert_eq!(c.call(&[b"SET", b"k", b"v", b"PX", b"100000"]).unwrap(), Reply::Simple("OK".into()));
    assert!(matches!(c.call(&[b"PTTL", b"k"]).unwrap(), Reply::Integer(ms) if (99_000..=100_000).contains(&ms)));
    assert_eq!(c.call(&[b"FLUSHDB"]).unwrap(), Reply::Simple("OK".into()));
    assert_eq!(c.call(&[b"DBSIZE"]).unwrap(), Reply::Integer(0));
    assert!(
        matches!(c.call(&[b"INFO"]).unwrap(), Reply::Bulk(Some(t)) if String::from_utf8_lossy(&t).contains("total_commands_processed"))
    );
    server.stop.trigger();
    let report = server.done.join().unwrap().unwrap();
    assert!(report.commands >= 19);
}

#[test]
fn scan_visits_every_key_once_with_match_and_count() {
    let server = start(Limits::default());
    let mut c = RespTarget::connect(&server.address.to_string()).unwrap();
    for i in 0..250 {
        let k = format!("{}:{i:03}", if i % 5 == 0 { "five" } else { "other" });
        c.call(&[b"SET", k.as_bytes(), b"v"]).unwrap();
    }
    let (mut cursor, mut seen, mut calls) = (b"0".to_vec(), Vec::new(), 0);
    loop {
        let Reply::Array(Some(parts)) = c.call(&[b"SCAN", &cursor, b"MATCH", b"five:*", b"COUNT", b"17"]).unwrap()
        else {
            panic!()
        };
        let [Reply::Bulk(Some(next)), Reply::Array(Some(keys))] = &parts[..] else { panic!("{parts:?}") };
        seen.extend(keys.iter().map(|k| match k {
            Reply::Bulk(Some(k)) => k.clone(),
            _ => panic!(),
        }));
        calls += 1;
        if next == b"0" {
            break;
        }
        cursor = next.clone();
    }
    assert_eq!(seen.len(), 50);
    seen.dedup();
    assert_eq!(seen.len(), 50);
    assert_eq!(calls, 250usize.div_ceil(17));
    assert!(c.call(&[b"SCAN", b"999999"]).unwrap_err().to_string().contains("invalid cursor"));
    server.stop.trigger();
    server.done.join().unwrap().unwrap();
}

fn raw(address: SocketAddr, bytes: &[u8]) -> Vec<u8> {
    let mut s = TcpStream::connect(address).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
    s.write_all(bytes).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    out
}

#[test]
fn bad_protocol_gets_an_error_and_a_closed_connection() {
    let server = start(Limits { max_bulk: 1024, ..Limits::default() });
    let huge = raw(server.address, b"*2\r\n$3\r\nGET\r\n$99999999999\r\n");
    assert!(
        String::from_utf8_lossy(&huge).starts_with("-ERR Protocol error: invalid bulk length"),
        "{}",
        String::from_utf8_lossy(&huge)
    );
    let garbage = raw(server.address, b"*1\r\n\x00\xff\xfe garbage\r\n");
    assert!(String::from_utf8_lossy(&garbage).starts_with("-ERR Protocol error"));
    // Replies to what came before the bad bytes are sent first.
    let mut pipelined = Vec::new();
    encode::command(&mut pipelined, &[b"SET", b"x", b"1"]);
    encode::command(&mut pipelined, &[b"GET", b"x"]);
    pipelined.extend_from_slice(b"*1\r\n$-7\r\n");
    let out = raw(server.address, &pipelined);
    assert!(out.starts_with(b"+OK\r\n$1\r\n1\r\n-ERR Protocol error"), "{}", String::from_utf8_lossy(&out));
    // A client that leaves mid-command does not disturb the server.
    {
        let mut s = TcpStream::connect(server.address).unwrap();
        s.write_all(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\nonly a little").unwrap();
    }
    let mut c = RespTarget::connect(&server.address.to_string()).unwrap();
    assert_eq!(c.call(&[b"GET", b"k"]).unwrap(), Reply::Bulk(None));
    assert_eq!(c.call(&[b"GET", b"x"]).unwrap(), bulk(b"1"));
    server.stop.trigger();
    server.done.join().unwrap().unwrap();
}

#[test]
fn pipelined_commands_are_answered_in_order() {
    let server = start(Limits::default());
    let mut out = Vec::new();
    for i in 0..3000 {
        encode::command(&mut out, &[b"SET", format!("k{i}").as_bytes(), format!("v{i}").as_bytes()]);
    }
    for i in 0..3000 {
        encode::command(&mut out, &[b"GET", format!("k{i}").as_bytes()]);
    }
    encode::command(&mut out, &[b"QUIT"]);
    let replies = raw(server.address, &out);
    let mut at = 0;
    let mut n = 0;
    while let Some((r, used)) = crate::resp::parse_reply(&replies[at..], 1 << 20).unwrap() {
        if (3000..6000).contains(&n) {
            assert_eq!(r, bulk(format!("v{}", n - 3000).as_bytes()));
        }
        at += used;
        n += 1;
    }
    assert_eq!(n, 6001);
    server.stop.trigger();
    server.done.join().unwrap().unwrap();
}

fn stop(server: Running) {
    server.stop.trigger();
    server.done.join().unwrap().unwrap();
}

fn error_of(c: &mut RespTarget, args: &[&[u8]]) -> String {
    c.call(args).unwrap_err().to_string()
}

#[test]
fn hello_3_switches_to_resp3_and_hello_2_back() {
    let server = start(Limits::default());
    let mut c = RespTarget::connect(&server.address.to_string()).unwrap();
    assert_eq!(c.call(&[b"GET", b"nope"]).unwrap(), Reply::Bulk(None));
    let Reply::Map(fields) = c.call(&[b"HELLO", b"3", b"SETNAME", b"me"]).unwrap() else {
        panic!("HELLO 3 answers a map")
    };
    assert_eq!(fields[2], (bulk(b"proto"), Reply::Integer(3)));
    assert_eq!(
        fields.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(),
        ["server", "version", "proto", "id", "mode", "role", "modules"].map(|f| bulk(f.as_bytes()))
    );
    assert_eq!(c.call(&[b"GET", b"nope"]).unwrap(), Reply::Null);
    assert_eq!(c.call(&[b"HSET", b"h", b"f1", b"a", b"f2", b"b"]).unwrap(), Reply::Integer(2));
    assert_eq!(
        c.call(&[b"HGETALL", b"h"]).unwrap(),
        Reply::Map(vec![(bulk(b"f1"), bulk(b"a")), (bulk(b"f2"), bulk(b"b"))])
    );
    assert_eq!(c.call(&[b"HMGET", b"h", b"f2", b"x"]).unwrap(), Reply::Array(Some(vec![bulk(b"b"), Reply::Null])));
    assert_eq!(c.call(&[b"CLIENT", b"GETNAME"]).unwrap(), bulk(b"me"));
    let Reply::Verbatim(format, text) = c.call(&[b"INFO"]).unwrap() else {
        panic!("INFO answers a verbatim string in RESP3")
    };
    let text = String::from_utf8(text).unwrap();
    assert!(format == "txt" && text.contains("redis_version:") && text.contains("role:master"), "{text}");
    let Reply::Array(Some(fields)) = c.call(&[b"HELLO", b"2"]).unwrap() else { panic!("HELLO 2 answers a flat array") };
    assert_eq!(fields.len(), 14);
    assert_eq!(
        c.call(&[b"HGETALL", b"h"]).unwrap(),
        Reply::Array(Some(vec![bulk(b"f1"), bulk(b"a"), bulk(b"f2"), bulk(b"b")]))
    );
    stop(server);
}

#[test]
fn a_bad_hello_is_refused_and_the_connection_goes_on() {
    let server = start(Limits::default());
    let mut c = RespTarget::connect(&server.address.to_string()).unwrap();
    let refusals: [(&[&[u8]], &str); 7] = [
        (&[b"HELLO", b"4"], "NOPROTO unsupported protocol version"),
        (&[b"HELLO", b"1"], "NOPROTO unsupported protocol version"),
        (&[b"HELLO", b"three"], "ERR Protocol version is not an integer or out of range"),
        (&[b"HELLO", b"3", b"AUTH", b"default"], "ERR Syntax error in HELLO option 'AUTH'"),
        (&[b"HELLO", b"3", b"SETNAME"], "ERR Syntax error in HELLO option 'SETNAME'"),
        (&[b"HELLO", b"3", b"AUTH", b"bob", b"secret"], "WRONGPASS"),
        (&[b"HELLO", b"3", b"SETNAME", b"two words"], "ERR Client names cannot contain spaces"),
    ];
    for (args, refusal) in refusals {
        assert!(error_of(&mut c, args).contains(refusal), "{args:?}");
        // Still RESP2, still serving.
        assert_eq!(c.call(&[b"GET", b"nope"]).unwrap(), Reply::Bulk(None));
    }
    assert!(matches!(c.call(&[b"HELLO", b"3", b"AUTH", b"default", b"any"]).unwrap(), Reply::Map(_)));
    stop(server);
}

#[test]
fn transactions_queue_then_apply_or_are_discarded() {
    let server = start(Limits::default());
    let mut c = RespTarget::connect(&server.address.to_string()).unwrap();
    let queued = Reply::Simple("QUEUED".into());
    assert!(error_of(&mut c, &[b"EXEC"]).contains("ERR EXEC without MULTI"));
    assert!(error_of(&mut c, &[b"DISCARD"]).contains("ERR DISCARD without MULTI"));
    assert_eq!(c.call(&[b"MULTI"]).unwrap(), Reply::Simple("OK".into()));
    assert!(error_of(&mut c, &[b"MULTI"]).contains("nested"));
    assert_eq!(c.call(&[b"SET", b"n", b"5"]).unwrap(), queued);
    assert_eq!(c.call(&[b"INCRBY", b"n", b"10"]).unwrap(), queued);
    assert_eq!(c.call(&[b"HSET", b"n", b"f", b"v"]).unwrap(), queued);
    assert_eq!(c.call(&[b"GET", b"n"]).unwrap(), queued);
    let Reply::Array(Some(replies)) = c.call(&[b"EXEC"]).unwrap() else { panic!() };
    assert_eq!(replies[..2], [Reply::Simple("OK".into()), Reply::Integer(15)]);
    assert!(matches!(&replies[2], Reply::Error(e) if e.starts_with("WRONGTYPE")));
    assert_eq!(replies[3], bulk(b"15"));
    // A command refused while queueing discards the transaction.
    c.call(&[b"MULTI"]).unwrap();
    c.call(&[b"SET", b"n", b"0"]).unwrap();
    assert!(error_of(&mut c, &[b"GET"]).contains("wrong number of arguments for 'get'"));
    assert!(error_of(&mut c, &[b"EXEC"]).contains("EXECABORT"));
    c.call(&[b"MULTI"]).unwrap();
    c.call(&[b"SET", b"n", b"0"]).unwrap();
    assert_eq!(c.call(&[b"DISCARD"]).unwrap(), Reply::Simple("OK".into()));
    assert_eq!(c.call(&[b"GET", b"n"]).unwrap(), bulk(b"15"));
    assert!(error_of(&mut c, &[b"WATCH", b"n"]).contains("not supported"));
    stop(server);
}

/// Sends `commands` at once on `stream` and reads their replies.
fn pipeline(stream: &mut TcpStream, commands: &[&[&[u8]]]) -> Vec<Reply> {
    let mut out = Vec::new();
    commands.iter().for_each(|args| encode::command(&mut out, args));
    stream.write_all(&out).unwrap();
    let (mut buf, mut replies, mut chunk) = (Vec::new(), Vec::new(), [0u8; 4096]);
    while replies.len() < commands.len() {
        match crate::resp::parse_reply(&buf, 1 << 20).unwrap() {
            Some((reply, used)) => {
                buf.drain(..used);
                replies.push(reply);
            }
            None => {
                let n = stream.read(&mut chunk).unwrap();
                assert!(n > 0, "the server closed the connection");
                buf.extend_from_slice(&chunk[..n]);
            }
        }
    }
    replies
}

#[test]
fn concurrent_writes_never_interleave_with_a_transaction_or_an_increment() {
    // Batches on blocking threads, as for a paced store: many run at once.
    let server = start_with(ServerConfig { store_waits: true, ..ServerConfig::default() });
    let (writers, rounds) = (6u64, 300u64);
    let threads: Vec<_> = (0..writers)
        .map(|_| {
            let address = server.address;
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(address).unwrap();
                for _ in 0..rounds {
                    // A transaction adding 2 in two steps, a lone increment of another key, and
                    // a read that must never see half of a transaction.
                    let replies = pipeline(
                        &mut s,
                        &[
                            &[b"MULTI"],
                            &[b"INCR", b"pair"],
                            &[b"INCR", b"pair"],
                            &[b"EXEC"],
                            &[b"INCR", b"single"],
                            &[b"GET", b"pair"],
                        ],
                    );
                    let Reply::Bulk(Some(v)) = &replies[5] else { panic!("{replies:?}") };
                    let v: u64 = String::from_utf8_lossy(v).parse().unwrap();
                    assert_eq!(v % 2, 0, "a reader saw half a transaction");
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
    let mut c = RespTarget::connect(&server.address.to_string()).unwrap();
    // No increment was lost between another's read and write.
    assert_eq!(
        c.call(&[b"MGET", b"single", b"pair"]).unwrap(),
        Reply::Array(Some(vec![
            bulk((writers * rounds).to_string().as_bytes()),
            bulk((2 * writers * rounds).to_string().as_bytes())
        ]))
    );
    stop(server);
}

#[test]
fn a_write_the_store_refuses_fails_only_its_own_command() {
    // Bands of 1 MiB: the store takes values up to a quarter band.
    let server = start(Limits::default());
    let mut out = Vec::new();
    let big = vec![b'x'; 300 << 10];
    encode::command(&mut out, &[b"SET", b"a", b"1"]);
    encode::command(&mut out, &[b"SET", b"big", &big]);
    encode::command(&mut out, &[b"INCR", b"a"]);
    encode::command(&mut out, &[b"GET", b"a"]);
    encode::command(&mut out, &[b"MULTI"]);
    encode::command(&mut out, &[b"SET", b"b", b"1"]);
    encode::command(&mut out, &[b"HSET", b"h", b"f", &big]);
    encode::command(&mut out, &[b"EXEC"]);
    encode::command(&mut out, &[b"QUIT"]);
    let replies = raw(server.address, &out);
    let text = String::from_utf8_lossy(&replies);
    assert!(text.starts_with("+OK\r\n-ERR value of "), "{text}");
    assert!(
        text.contains("over the maximum")
            && text.contains(":2\r\n$1\r\n2\r\n+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n+OK\r\n-ERR value of "),
        "{text}"
    );
    let mut c = RespTarget::connect(&server.address.to_string()).unwrap();
    assert_eq!(
        c.call(&[b"MGET", b"a", b"big", b"b", b"h"]).unwrap(),
        Reply::Array(Some(vec![bulk(b"2"), Reply::Bulk(None), bulk(b"1"), Reply::Bulk(None)]))
    );
    stop(server);
}

#[test]
fn expired_keys_are_gone_for_every_command() {
    let server = start(Limits::default());
    let mut c = RespTarget::connect(&server.address.to_string()).unwrap();
    c.call(&[b"SET", b"soon", b"v", b"PX", b"30"]).unwrap();
    c.call(&[b"HSET", b"hsoon", b"f", b"v"]).unwrap();
    assert_eq!(c.call(&[b"PEXPIRE", b"hsoon", b"30"]).unwrap(), Reply::Integer(1));
    c.call(&[b"SET", b"kept", b"v"]).unwrap();
    assert_eq!(c.call(&[b"EXPIRE", b"kept", b"100", b"XX"]).unwrap(), Reply::Integer(0));
    assert_eq!(c.call(&[b"EXPIRE", b"kept", b"100"]).unwrap(), Reply::Integer(1));
    assert_eq!(c.call(&[b"TTL", b"kept"]).unwrap(), Reply::Integer(100));
    assert_eq!(c.call(&[b"EXPIRE", b"kept", b"200", b"LT"]).unwrap(), Reply::Integer(0));
    assert_eq!(c.call(&[b"PERSIST", b"kept"]).unwrap(), Reply::Integer(1));
    assert_eq!(c.call(&[b"TTL", b"kept"]).unwrap(), Reply::Integer(-1));
    assert_eq!(c.call(&[b"DBSIZE"]).unwrap(), Reply::Integer(3));
    std::thread::sleep(std::time::Duration::from_millis(80));
    for args in [&[&b"GET"[..], b"soon"][..], &[b"HGETALL", b"hsoon"], &[b"KEYS", b"*"]] {
        assert!(matches!(c.call(args).unwrap(), Reply::Bulk(None) | Reply::Array(Some(_))), "{args:?}");
    }
    assert_eq!(c.call(&[b"KEYS", b"*"]).unwrap(), Reply::Array(Some(vec![bulk(b"kept")])));
    assert_eq!(c.call(&[b"EXISTS", b"soon", b"hsoon", b"kept"]).unwrap(), Reply::Integer(1));
    assert_eq!(c.call(&[b"TTL", b"soon"]).unwrap(), Reply::Integer(-2));
    assert_eq!(c.call(&[b"DEL", b"soon", b"kept"]).unwrap(), Reply::Integer(1));
    assert_eq!(c.call(&[b"INCR", b"soon"]).unwrap(), Reply::Integer(1));
    assert_eq!(c.call(&[b"DBSIZE"]).unwrap(), Reply::Integer(1));
    assert!(error_of(&mut c, &[b"SET", b"k", b"v", b"EX", b"0"]).contains("invalid expire time in 'set' command"));
    assert!(error_of(&mut c, &[b"EXPIRE", b"k", b"9223372036854775807"])
        .contains("invalid expire time in 'expire' command"));
    stop(server);
}

fn keys_of(reply: Reply) -> Vec<Vec<u8>> {
    let Reply::Array(Some(items)) = reply else { panic!("{reply:?}") };
    items
        .into_iter()
        .map(|k| match k {
            Reply::Bulk(Some(k)) => k,
            other => panic!("{other:?}"),
        })
        .collect()
}

/// Every key a SCAN iteration from cursor 0 returns, with `COUNT count`.
fn scan_all(c: &mut RespTarget, count: &[u8]) -> Vec<Vec<u8>> {
    let (mut cursor, mut seen) = (b"0".to_vec(), Vec::new());
    loop {
        let Reply::Array(Some(parts)) = c.call(&[b"SCAN", &cursor, b"COUNT", count]).unwrap() else { panic!() };
        let [Reply::Bulk(Some(next)), keys] = &parts[..] else { panic!("{parts:?}") };
        seen.extend(keys_of(keys.clone()));
        if next == b"0" {
            return seen;
        }
        cursor = next.clone();
    }
}

#[test]
fn key_walks_cross_a_value_larger_than_a_store_call_reads() {
    // Bands of 32 MiB take values up to 8 MiB; a store call stops after 4 MiB of pairs.
    let options = Options { band_size: Some(32 << 20), capacity: Some(256 << 20), ..Options::default() };
    let server = start_on(options, ServerConfig::default());
    let mut c = RespTarget::connect(&server.address.to_string()).unwrap();
    let big = vec![b'v'; 5 << 20];
    for (k, v) in [(&b"a"[..], &big[..]), (b"b", b"2"), (b"c", b"3")] {
        assert_eq!(c.call(&[b"SET", k, v]).unwrap(), Reply::Simple("OK".into()));
    }
    let all: Vec<Vec<u8>> = [&b"a"[..], b"b", b"c"].map(<[u8]>::to_vec).to_vec();
    assert_eq!(c.call(&[b"DBSIZE"]).unwrap(), Reply::Integer(3));
    assert_eq!(keys_of(c.call(&[b"KEYS", b"*"]).unwrap()), all);
    assert_eq!(scan_all(&mut c, b"10"), all);
    let Reply::Array(Some(pairs)) = c.call(&[b"RANGE", b"", b"", b"COUNT", b"10"]).unwrap() else { panic!() };
    assert_eq!(pairs.len(), 6);
    // Writes a transaction holds merge into the walk on both sides of where a store call stopped.
    let mut s = TcpStream::connect(server.address).unwrap();
    let replies = pipeline(
        &mut s,
        &[
            &[b"MULTI"],
            &[b"SET", b"ab", b"x"],
            &[b"DEL", b"c"],
            &[b"SET", b"d", b"y"],
            &[b"DBSIZE"],
            &[b"KEYS", b"*"],
            &[b"EXEC"],
        ],
    );
    let Reply::Array(Some(done)) = &replies[6] else { panic!("{replies:?}") };
    assert_eq!(done[3], Reply::Integer(4));
    assert_eq!(keys_of(done[4].clone()), [&b"a"[..], b"ab", b"b", b"d"].map(<[u8]>::to_vec).to_vec());
    assert_eq!(c.call(&[b"FLUSHALL"]).unwrap(), Reply::Simple("OK".into()));
    assert_eq!(c.call(&[b"DBSIZE"]).unwrap(), Reply::Integer(0));
    assert_eq!(keys_of(c.call(&[b"KEYS", b"*"]).unwrap()), Vec::<Vec<u8>>::new());
    stop(server);
}

#[test]
fn key_walks_cross_many_store_calls() {
    let server = start(Limits::default());
    let mut c = RespTarget::connect(&server.address.to_string()).unwrap();
    let n = 5000;
    let value = vec![b'v'; 1024];
    let keys: Vec<Vec<u8>> = (0..n).map(|i| format!("key:{i:05}").into_bytes()).collect();
    for chunk in keys.chunks(250) {
        let mut args: Vec<&[u8]> = vec![b"MSET"];
        chunk.iter().for_each(|k| args.extend([k.as_slice(), &value]));
        c.call(&args).unwrap();
    }
    assert_eq!(c.call(&[b"DBSIZE"]).unwrap(), Reply::Integer(n));
    assert_eq!(keys_of(c.call(&[b"KEYS", b"key:*"]).unwrap()), keys);
    assert_eq!(scan_all(&mut c, b"4500"), keys);
    assert_eq!(c.call(&[b"FLUSHDB"]).unwrap(), Reply::Simple("OK".into()));
    assert_eq!(c.call(&[b"DBSIZE"]).unwrap(), Reply::Integer(0));
    assert_eq!(scan_all(&mut c, b"10"), Vec::<Vec<u8>>::new());
    stop(server);
}

#[test]
fn scan_examines_count_keys_whatever_their_values_weigh() {
    // 300 values of 100 KB: a store call stops after 4 MiB, about 42 of them.
    let options = Options { band_size: Some(4 << 20), capacity: Some(256 << 20), ..Options::default() };
    let server = start_on(options, ServerConfig::default());
    let mut c = RespTarget::connect(&server.address.to_string()).unwrap();
    let value = vec![b'v'; 100_000];
    let keys: Vec<Vec<u8>> = (0..300).map(|i| format!("key:{i:03}").into_bytes()).collect();
    for chunk in keys.chunks(20) {
        let mut args: Vec<&[u8]> = vec![b"MSET"];
        chunk.iter().for_each(|k| args.extend([k.as_slice(), &value]));
        c.call(&args).unwrap();
    }
    let (mut cursor, mut seen, mut per_call) = (b"0".to_vec(), Vec::new(), Vec::new());
    loop {
        let Reply::Array(Some(parts)) = c.call(&[b"SCAN", &cursor, b"COUNT", b"100"]).unwrap() else { panic!() };
        let [Reply::Bulk(Some(next)), found] = &parts[..] else { panic!("{parts:?}") };
        let found = keys_of(found.clone());
        per_call.push(found.len());
        seen.extend(found);
        if next == b"0" {
            break;
        }
        cursor = next.clone();
    }
    assert_eq!(per_call, [100, 100, 100]);
    assert_eq!(seen, keys);
    // A transaction's pending deletes hide every pair of the first store calls (50 values,
    // more than 4 MiB): the walks go on past them.
    let mut s = TcpStream::connect(server.address).unwrap();
    let mut commands: Vec<Vec<&[u8]>> = vec![vec![b"MULTI"]];
    commands.extend(keys[..50].iter().map(|k| vec![&b"DEL"[..], k]));
    commands.extend([vec![&b"DBSIZE"[..]], vec![b"SCAN", b"0", b"COUNT", b"100"], vec![b"EXEC"]]);
    let commands: Vec<&[&[u8]]> = commands.iter().map(Vec::as_slice).collect();
    let replies = pipeline(&mut s, &commands);
    let Some(Reply::Array(Some(done))) = replies.last() else { panic!("{replies:?}") };
    assert_eq!(done[50], Reply::Integer(250));
    let Reply::Array(Some(parts)) = &done[51] else { panic!("{done:?}") };
    assert_eq!(keys_of(parts[1].clone()), keys[50..150]);
    stop(server);
}
