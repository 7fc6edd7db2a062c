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
    let mut args = Args::default();
    let kept = split(b"\"kept\"");
    args.spans = kept.spans.clone();
    args.decoded = kept.decoded.clone();
    let end = parse_command(buf, 0, limits, &mut args);
    if !matches!(end, Ok(Some(_))) {
        assert_eq!((args.spans.len(), args.decoded.len()), (1, 4), "a command not parsed leaves nothing behind");
    }
    let end = end?;
    let all: Vec<Vec<u8>> = args.slices(buf).map(<[u8]>::to_vec).collect();
    assert_eq!(all[0], b"kept", "what was there before is kept");
    Ok(end.map(|end| (all[1..].to_vec(), end)))
}

/// The arguments of one inline line.
fn split(line: &[u8]) -> Args {
    let mut input = line.to_vec();
    input.push(b'\n');
    let mut args = Args::default();
    parse_command(&input, 0, &limits(), &mut args).unwrap().unwrap();
    args
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

/// The arguments of an inline line, or the protocol error, as Redis 7's `sdssplitargs` gives
/// them (cases worked from its source: quotes, escapes, quotes mid-argument, closing quotes).
#[test]
fn inline_commands_are_split_as_redis_splits_them() {
    // Each line, and its arguments (none: refused as unbalanced).
    type Case<'a> = (&'a [u8], Option<&'a [&'a [u8]]>);
    let cases: [Case; 15] = [
        (b"SET k \"hello world\"", Some(&[b"SET", b"k", b"hello world"])),
        (b"SET k 'it''s'", None),
        (b"SET k 'it\\'s'", Some(&[b"SET", b"k", b"it's"])),
        (b"SET k \"a\\x41\\n\\t\\\"\\q\"", Some(&[b"SET", b"k", b"aA\n\t\"q"])),
        (b"SET k \"\\xZZ\"", Some(&[b"SET", b"k", b"xZZ"])),
        (b"SET k 'no \\n escape'", Some(&[b"SET", b"k", b"no \\n escape"])),
        (b"SET k a\"b c\"", Some(&[b"SET", b"k", b"ab c"])),
        (b"SET k \"\"", Some(&[b"SET", b"k", b""])),
        (b"SET k \"open", None),
        (b"SET k 'open", None),
        (b"SET k \"a\"b", None),
        (b"SET k \"ends in \\", None),
        (b"  GET\t k  \x0b", Some(&[b"GET", b"k"])),
        (b"GET a\x0bb", Some(&[b"GET", b"a\x0bb"])),
        (b"ECHO \"x\" 'y' z\r", Some(&[b"ECHO", b"x", b"y", b"z"])),
    ];
    for (line, expected) in cases {
        let mut input = line.to_vec();
        input.push(b'\n');
        let parsed = parse(&input, &limits());
        match expected {
            Some(args) => {
                let (got, used) = parsed.unwrap().unwrap();
                assert_eq!((got, used), (args.iter().map(|a| a.to_vec()).collect::<Vec<_>>(), input.len()), "{line:?}");
            }
            None => {
                assert_eq!(parsed.unwrap_err().0, "unbalanced quotes in request", "{line:?}")
            }
        }
    }
    assert!(parse(b"GET k\0x\n", &limits()).unwrap_err().0.contains("NUL byte"));
}
