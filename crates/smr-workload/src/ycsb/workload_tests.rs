use std::collections::HashMap;

use super::*;
use crate::stats::chi_square_upper_tail;

fn mix(name: &str, n: u64, seed: u64) -> HashMap<OpKind, u64> {
    let w = CoreWorkload::preset(name).unwrap();
    let mut s = OperationStream::new(&w, seed).unwrap();
    let mut counts = HashMap::new();
    for _ in 0..n {
        *counts.entry(s.next_op().kind).or_insert(0) += 1;
    }
    counts
}

#[test]
fn operation_mixes_match_their_fractions() {
    let n = 50_000;
    for (seed, name) in PRESETS.iter().enumerate() {
        let w = CoreWorkload::preset(name).unwrap();
        let counts = mix(name, n, seed as u64);
        let mut stat = 0.0;
        let mut bins = 0;
        for (kind, p) in OpKind::ALL.iter().zip(w.proportions) {
            let observed = *counts.get(kind).unwrap_or(&0) as f64;
            if p == 0.0 {
                assert_eq!(observed, 0.0, "workload {name} issued {kind:?}");
                continue;
            }
            let expected = p * n as f64;
            stat += (observed - expected).powi(2) / expected;
            bins += 1;
        }
        if bins > 1 {
            let p = chi_square_upper_tail(stat, bins - 1);
            assert!(p > 0.001, "workload {name}: chi-square p = {p}, {counts:?}");
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_stream() {
    let w = CoreWorkload::preset("e").unwrap();
    let take = |seed| {
        let mut s = OperationStream::new(&w, seed).unwrap();
        (0..1000).map(|_| s.next_op()).collect::<Vec<_>>()
    };
    assert_eq!(take(7), take(7));
    assert_ne!(take(7), take(8));
}

#[test]
fn keys_stay_among_inserted_records_and_inserts_count_up() {
    for name in PRESETS {
        let mut w = CoreWorkload::preset(name).unwrap();
        w.record_count = 500;
        w.operation_count = 20_000;
        let mut s = OperationStream::new(&w, 3).unwrap();
        let mut next_insert = 500;
        for _ in 0..20_000 {
            let op = s.next_op();
            if op.kind == OpKind::Insert {
                assert_eq!(op.record, next_insert);
                next_insert += 1;
            } else {
                assert!(op.record < next_insert, "workload {name}: {op:?} names a record not inserted");
            }
            if op.kind == OpKind::Scan {
                assert!((1..=100).contains(&op.scan_length));
            }
        }
    }
}

#[test]
fn hotspot_sends_its_share_to_the_hot_set() {
    let mut w = CoreWorkload::default();
    w.set("requestdistribution", "hotspot").unwrap();
    w.set("recordcount", "1000").unwrap();
    let mut s = OperationStream::new(&w, 9).unwrap();
    let hot = (0..20_000).filter(|_| s.next_op().record < 200).count() as f64 / 20_000.0;
    assert!((hot - 0.8).abs() < 0.02, "{hot}");
}

#[test]
fn bad_parameters_are_named() {
    let mut w = CoreWorkload::default();
    let e = w.set("readproportion", "1.5").unwrap_err().to_string();
    assert!(e.contains("readproportion") && e.contains("1.5"), "{e}");
    assert!(w.set("requestdistribution", "pareto").unwrap_err().to_string().contains("requestdistribution"));
    assert!(w.set("nosuch", "1").unwrap_err().to_string().contains("nosuch"));
    assert!(CoreWorkload::preset("g").unwrap_err().to_string().contains("'g'"));
    w.set("recordcount", "0").unwrap();
    assert!(w.validate().unwrap_err().to_string().contains("recordcount"));
    // What the user typed is quoted short and safe to print.
    let e = w.set("requestdistribution", &format!("\x1b[2J{}", "z".repeat(500))).unwrap_err().to_string();
    assert!(e.contains("\\x1b") && !e.contains('\x1b') && e.len() < 300, "{e}");
    // Records and keys too large to allocate are refused before a run starts.
    let mut w = CoreWorkload::default();
    w.set("fieldcount", "4294967295").unwrap();
    w.set("fieldlength", "4294967295").unwrap();
    assert!(w.validate().unwrap_err().to_string().contains("fieldlength"));
    let mut w = CoreWorkload::default();
    w.set("zeropadding", "4000000000").unwrap();
    assert!(w.validate().unwrap_err().to_string().contains("zeropadding"));
}
