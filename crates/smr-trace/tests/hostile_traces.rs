//! Every trace reader against hostile input, generated: arbitrary bytes, text lines made of
//! hostile fields (numbers past 2^64 or near 2^63 once scaled, negatives, NaN, control bytes,
//! too many or too few fields, CR-only line ends) and binary records with arbitrary fields. Each
//! case must keep `smr_trace::invariants` (it ends within one step per byte, yields only
//! accepted ranges, and stops at a short, printable error), and no case may allocate more than
//! 16 MiB at once (this binary's allocator refuses it, which aborts the test).
//!
//! Cases per property: 256 by default; `PROPTEST_CASES` raises it (`make test-long`).

use proptest::prelude::*;
use smr_core::alloc_bound::Bounded;
use smr_trace::invariants::check;

/// Readers buffer 1 MiB at a time; nothing else they hold should come near 16 MiB.
#[global_allocator]
static ALLOCATOR: Bounded<{ 16 << 20 }> = Bounded;

/// Each format with the reader options it is tried with.
const READERS: &[(&str, &[&str])] = &[
    ("msr", &[]),
    ("spc", &[]),
    ("blkparse", &[]),
    ("vscsi", &[]),
    ("blocks", &[]),
    ("csv", &[]),
    ("csv", &["op=0", "offset=1", "len=2", "offset_unit=sectors", "len_unit=blocks", "time=3", "time_unit=filetime"]),
    ("smrbin", &[]),
];

fn fields() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("18446744073709551615".to_string()),
        Just("18446744073709551616".to_string()),
        Just("36028797018963967".to_string()),
        Just("9223372036854775807".to_string()),
        Just("4294967296".to_string()),
        Just("-1".to_string()),
        Just("1e300".to_string()),
        Just("nan".to_string()),
        Just("".to_string()),
        Just("+".to_string()),
        Just("\u{0}\u{7}\u{1b}[2J".to_string()),
        prop::sample::select(vec![
            "Read",
            "Write",
            "r",
            "w",
            "W",
            "R",
            "D",
            "Q",
            "C",
            "WS",
            "0",
            "1",
            "8,0",
            "Timestamp"
        ])
        .prop_map(str::to_string),
        (0u64..1 << 40).prop_map(|n| n.to_string()),
        (0.0f64..1e12).prop_map(|x| x.to_string()),
        "\\PC{0,8}",
    ]
}

fn lines() -> impl Strategy<Value = Vec<u8>> {
    let line = (prop::collection::vec(fields(), 0..12), prop::sample::select(vec![",", " ", "\t", "  "]));
    (prop::collection::vec(line, 0..12), prop::sample::select(vec!["\n", "\r\n", "\r", ""])).prop_map(|(lines, end)| {
        lines.iter().map(|(fields, sep)| fields.join(sep)).collect::<Vec<_>>().join(end).into_bytes()
    })
}

fn vscsi_records() -> impl Strategy<Value = Vec<u8>> {
    let v1 =
        (any::<u32>(), any::<u16>(), any::<u64>(), any::<u64>(), prop::sample::select(vec![0x28u16, 0x2a, 0x12, 0x88]))
            .prop_map(|(len, ver_low, lbn, ts, cmd)| {
                [
                    7u32.to_le_bytes().as_slice(),
                    &len.to_le_bytes(),
                    &1u32.to_le_bytes(),
                    &cmd.to_le_bytes(),
                    &(0x0100 | (ver_low & 0xff)).to_le_bytes(),
                    &lbn.to_le_bytes(),
                    &ts.to_le_bytes(),
                ]
                .concat()
            });
    (prop::collection::vec(v1, 0..6), 0usize..40).prop_map(|(records, cut)| {
        let mut bytes = records.concat();
        bytes.truncate(bytes.len().saturating_sub(cut % 33));
        bytes
    })
}

/// smrbin files of every version: records with arbitrary fields, a header of version 2 or 3
/// whose count may be right, wrong or unknown (or a version 1 header, without one), where the
/// statistics block goes arbitrary bytes or a block of arbitrary bytes whose length and checksum
/// hold, and a cut.
fn smrbin_records() -> impl Strategy<Value = Vec<u8>> {
    let record = (any::<u64>(), any::<u64>(), any::<u32>(), 0u8..4).prop_map(|(t, offset, len, op)| {
        [t.to_le_bytes().as_slice(), &offset.to_le_bytes(), &len.to_le_bytes(), &[op, 0, 0, 0]].concat()
    });
    let count = prop_oneof![Just(None), Just(Some(u64::MAX)), (0u64..8).prop_map(Some), any::<u64>().prop_map(Some)];
    let framed = |block: Vec<u8>| {
        [&(block.len() as u32).to_le_bytes()[..], &crc32fast::hash(&block).to_le_bytes(), &block].concat()
    };
    let tail = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..64),
        prop::collection::vec(any::<u8>(), 0..64).prop_map(framed)
    ];
    (prop::collection::vec(record, 0..6), count, any::<bool>(), tail, 0usize..30).prop_map(
        |(records, count, third, tail, cut)| {
            let version = match count {
                None => 1,
                Some(_) => 2 + u8::from(third),
            };
            let mut bytes = [b"SMRLABTR".as_slice(), &[version, 0, 0, 0], &24u32.to_le_bytes()].concat();
            if let Some(count) = count {
                bytes.extend(count.to_le_bytes());
            }
            bytes.extend(records.concat());
            bytes.extend(tail);
            bytes.truncate(bytes.len().saturating_sub(cut % 25));
            bytes
        },
    )
}

/// `bytes` as an smrbin file opened by memory map (the reader runs use): it opens or is refused
/// with a short message, and reading it ends, within a step per byte, at its end or an error.
fn mapped_smrbin(bytes: &[u8]) -> Result<(), TestCaseError> {
    let path = std::env::temp_dir().join(format!("smrlab-hostile-{}.smrbin", std::process::id()));
    std::fs::write(&path, bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let trace = smr_trace::open(&path, None, &mut smr_core::Params::default());
    let mut steps = 0;
    if let Ok(trace) = trace {
        for item in trace {
            steps += 1;
            prop_assert!(steps <= bytes.len() + 1, "more items than bytes");
            if let Err(e) = item {
                prop_assert!(e.to_string().lines().count() == 1, "{e}");
            }
        }
    }
    // Left behind only by a failing case, for a look at what failed.
    std::fs::remove_file(&path).map_err(|e| TestCaseError::fail(e.to_string()))?;
    Ok(())
}

/// A valid line of each text format, and how its fields are separated.
const TEMPLATES: &[(&str, &str, &str)] = &[
    ("msr", "128166372003061629,wdev,0,Write,3154944,4096,1331", ","),
    ("spc", "0,20941264,8192,W,0.551706", ","),
    ("blkparse", "8,0 3 2 0.000100000 697 D WS 223490 + 8 [kjournald]", " "),
    ("blocks", "1 10", " "),
    ("csv", "0,W,4096,4096", ","),
];

/// Lines of one text format, each a valid line with some fields made hostile, some dropped or
/// added: (index into `TEMPLATES`, bytes).
fn near_valid_lines() -> impl Strategy<Value = (usize, Vec<u8>)> {
    let edits = prop::collection::vec((any::<bool>(), fields(), 0u8..8), 0..12);
    (0..TEMPLATES.len(), prop::collection::vec(edits, 1..6)).prop_map(|(which, lines)| {
        let (_, template, sep) = TEMPLATES[which];
        let text: Vec<String> = lines
            .into_iter()
            .map(|edits| {
                let mut fields: Vec<String> = template.split(sep).map(str::to_string).collect();
                for (index, (replace, hostile, how)) in edits.into_iter().enumerate() {
                    let at = index % fields.len().max(1);
                    match how {
                        0 => drop(fields.pop()),
                        1 => fields.push(hostile),
                        _ if replace && at < fields.len() => fields[at] = hostile,
                        _ => {}
                    }
                }
                fields.join(sep)
            })
            .collect();
        (which, text.join("\n").into_bytes())
    })
}

fn each_reader(bytes: &[u8]) -> Result<(), TestCaseError> {
    for (format, options) in READERS {
        check(format, bytes, options).map_err(TestCaseError::fail)?;
    }
    Ok(())
}

proptest! {
    // Cases: `PROPTEST_CASES`, or proptest's 256.
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        each_reader(&bytes)?;
    }

    #[test]
    fn hostile_text_lines(bytes in lines()) {
        each_reader(&bytes)?;
    }

    #[test]
    fn near_valid_lines_with_hostile_fields((which, bytes) in near_valid_lines()) {
        let (format, _, _) = TEMPLATES[which];
        check(format, &bytes, &[]).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn hostile_binary_records(vscsi in vscsi_records(), smrbin in smrbin_records()) {
        each_reader(&vscsi)?;
        each_reader(&smrbin)?;
        mapped_smrbin(&smrbin)?;
    }
}

#[test]
fn an_endless_line_is_refused_at_line_one_by_every_text_reader() {
    let zeros = vec![0u8; 1 << 20];
    for (format, options) in READERS.iter().filter(|(f, _)| !["vscsi", "smrbin"].contains(f)) {
        assert_eq!(check(format, &zeros, options), Ok(0), "{format}");
    }
}
