use proptest::prelude::*;

use super::*;

fn limits() -> Limits {
    Limits { max_bulk: 1000, max_args: 10, max_inline: 100 }
}

/// A command's arguments, copied out, and the bytes it took.
type Parsed = Option<(Vec<Vec<u8>>, usize)>;

/// One command from the start of `buf`.
fn parse(buf: &[u8], limits: &Limits) -> Result<Parsed, ProtocolError> {
    // Something already in the list, which parsing must keep.
    let kept = 7..9;
    let mut args = vec![kept.clone()];
    let end = parse_command(buf, 0, limits, &mut args);
    if !matches!(end, Ok(Some(_))) {
        assert_eq!(args.len(), 1, "a command not parsed leaves no arguments behind");
    }
    let end = end?;
    assert_eq!(args[0], kept, "what was there before is kept");
    Ok(end.map(|end| (args[1..].iter().map(|r| buf[r.clone()].to_vec()).collect(), end)))
}

#[test]
fn parses_arrays_and_inline_commands() {
    let mut buf = Vec::new();
    encode::command(&mut buf, &[b"SET", b"k", b"v\r\nx"]);
    let n = buf.len();
    buf.extend_from_slice(b"PING hello\r\n");
    let (args, used) = parse(&buf, &limits()).unwrap().unwrap();
    assert_eq!((args, used), (vec![b"SET".to_vec(), b"k".to_vec(), b"v\r\nx".to_vec()], n));
    let (args, _) = parse(&buf[n..], &limits()).unwrap().unwrap();
    assert_eq!(args, vec![b"PING".to_vec(), b"hello".to_vec()]);
}

#[test]
fn waits_for_truncated_frames() {
    let mut buf = Vec::new();
    encode::command(&mut buf, &[b"SET", b"key", b"value"]);
    for cut in 0..buf.len() {
        assert_eq!(parse(&buf[..cut], &limits()), Ok(None), "cut at {cut}");
    }
}

#[test]
fn refuses_oversized_lengths_from_the_header_alone() {
    // Only the header has arrived: the refusal cannot have needed the bytes it announces.
    let e = parse(b"*1\r\n$1001\r\n", &limits()).unwrap_err();
    assert!(e.0.contains("invalid bulk length 1001"), "{e}");
    assert!(parse(b"*11\r\n", &limits()).unwrap_err().0.contains("multibulk length 11"));
    assert!(parse(b"*1\r\n$-5\r\n", &limits()).is_err());
    assert!(parse(b"*1\r\n$99999999999999999999999\r\n", &limits()).is_err());
    assert!(parse(&[b'*'; 40], &limits()).unwrap_err().0.contains("header longer"));
    assert!(parse(b"*1\r\nX3\r\nabc\r\n", &limits()).unwrap_err().0.contains("expected '$'"));
    assert!(parse(b"*1\r\n$3\r\nabcde", &limits()).unwrap_err().0.contains("CRLF"));
    assert!(parse(&[b'a'; 150], &limits()).unwrap_err().0.contains("inline"));
}

#[test]
fn replies_round_trip() {
    let mut out = Vec::new();
    encode::array_header(&mut out, 4);
    encode::simple(&mut out, "OK");
    encode::integer(&mut out, -7);
    encode::bulk(&mut out, None);
    encode::bulk(&mut out, Some(b"a\r\nb"));
    encode::error(&mut out, "ERR two\nlines");
    let (reply, used) = parse_reply(&out, 100).unwrap().unwrap();
    assert_eq!(
        reply,
        Reply::Array(Some(vec![
            Reply::Simple("OK".into()),
            Reply::Integer(-7),
            Reply::Bulk(None),
            Reply::Bulk(Some(b"a\r\nb".to_vec()))
        ]))
    );
    assert_eq!(parse_reply(&out[used..], 100).unwrap().unwrap().0, Reply::Error("ERR two lines".into()));
    assert_eq!(parse_reply(&out[..used - 1], 100), Ok(None));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        if let Ok(Some((_, used))) = parse(&bytes, &limits()) {
            prop_assert!(used <= bytes.len());
        }
        let _ = parse_reply(&bytes, 100);
    }

    #[test]
    fn commands_round_trip(args in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..50), 1..8)) {
        let refs: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
        let mut buf = Vec::new();
        encode::command(&mut buf, &refs);
        prop_assert_eq!(parse(&buf, &limits()).unwrap(), Some((args.clone(), buf.len())));
    }
}
