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
    let options = Options { band_size: Some(1 << 20), capacity: Some(64 << 20), ..Options::default() };
    let db = Db::open_in_memory(options, None).unwrap();
    let stop = Stop::default();
    let config = ServerConfig { address: "127.0.0.1:0".into(), limits, handle_signals: false, ..ServerConfig::default() };
    let (tx, rx) = mpsc::channel();
    let s = stop.clone();
    let done = std::thread::spawn(move || serve(Arc::new(SharedStore::new(Box::new(db), "test store")), &config, s, |a| tx.send(a).unwrap()));
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
    assert_eq!(c.call(&[b"MGET", b"a", b"x", b"c"]).unwrap(), Reply::Array(Some(vec![bulk(b"1"), Reply::Bulk(None), bulk(b"3")])));
    assert_eq!(c.call(&[b"EXISTS", b"a", b"b", b"x", b"a"]).unwrap(), Reply::Integer(3));
    assert_eq!(c.call(&[b"SET", b"a", b"9", b"NX"]).unwrap(), Reply::Bulk(None));
    assert_eq!(c.call(&[b"SET", b"d", b"4", b"NX"]).unwrap(), Reply::Simple("OK".into()));
    assert_eq!(c.call(&[b"DBSIZE"]).unwrap(), Reply::Integer(4));
    assert_eq!(c.call(&[b"RANGE", b"b", b"d", b"COUNT", b"10"]).unwrap(), Reply::Array(Some(vec![bulk(b"b"), bulk(b"2"), bulk(b"c"), bulk(b"3")])));
    assert_eq!(c.call(&[b"DEL", b"a", b"a", b"x"]).unwrap(), Reply::Integer(1));
    assert!(c.call(&[b"GET"]).unwrap_err().to_string().contains("wrong number of arguments for 'get'"));
    assert!(c.call(&[b"NOPE", b"x"]).unwrap_err().to_string().contains("unknown command 'NOPE'"));
    assert!(c.call(&[b"SET", b"k", b"v", b"EX", b"10"]).unwrap_err().to_string().contains("expiry"));
    assert_eq!(c.call(&[b"FLUSHDB"]).unwrap(), Reply::Simple("OK".into()));
    assert_eq!(c.call(&[b"DBSIZE"]).unwrap(), Reply::Integer(0));
    assert!(matches!(c.call(&[b"INFO"]).unwrap(), Reply::Bulk(Some(t)) if String::from_utf8_lossy(&t).contains("total_commands_processed")));
    server.stop.trigger();
    let report = server.done.join().unwrap().unwrap();
    assert!(report.commands >= 18);
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
        let Reply::Array(Some(parts)) = c.call(&[b"SCAN", &cursor, b"MATCH", b"five:*", b"COUNT", b"17"]).unwrap() else { panic!() };
        let [Reply::Bulk(Some(next)), Reply::Array(Some(keys))] = &parts[..] else { panic!("{parts:?}") };
        seen.extend(keys.iter().map(|k| match k { Reply::Bulk(Some(k)) => k.clone(), _ => panic!() }));
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
    assert!(String::from_utf8_lossy(&huge).starts_with("-ERR Protocol error: invalid bulk length"), "{}", String::from_utf8_lossy(&huge));
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
