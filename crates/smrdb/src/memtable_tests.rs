//! The memtable against a model: a B-tree of every entry in internal-key order.

use std::cmp::Reverse;
use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;

#[test]
fn readers_see_the_newest_version_at_their_snapshot() {
    let m = MemTable::new(4096);
    m.insert(1, Kind::Value, b"k", b"one");
    m.insert(2, Kind::Value, b"k", b"two");
    m.insert(3, Kind::Deletion, b"k", b"");
    m.insert(4, Kind::Value, b"kk", b"other");
    assert_eq!(m.get(b"k", 0), None);
    assert_eq!(m.get(b"k", 1), Some((Found::Value(b"one".to_vec()), 1)));
    assert_eq!(m.get(b"k", 2), Some((Found::Value(b"two".to_vec()), 2)));
    assert_eq!(m.get(b"k", 9), Some((Found::Deleted, 3)));
    assert_eq!(m.get(b"j", 9), None);
    let all = m.entries(None, b"", 10);
    let order: Vec<(Vec<u8>, u64)> = all.iter().map(|(k, t, _)| (k.clone(), key::sequence_of(*t))).collect();
    assert_eq!(order, vec![(b"k".to_vec(), 3), (b"k".to_vec(), 2), (b"k".to_vec(), 1), (b"kk".to_vec(), 4)]);
    let rest = m.entries(Some((&all[1].0, all[1].1)), b"", 10);
    assert_eq!(rest.len(), 2, "resumes after the last entry returned");
    assert!(m.table_bytes() > 0);
}

/// One step of a memtable's life.
#[derive(Clone, Debug)]
enum Op {
    Put(u8, u8),
    Delete(u8),
    /// A batch of puts (key, value) and deletes (key, None), inserted together.
    Batch(Vec<(u8, Option<u8>)>),
    /// A put with an earlier sequence number than the newest (at most the newest, which it may
    /// repeat), as no write path makes but the memtable still orders.
    Late(u8, u8, u64),
    Get(u8, u64),
    /// Entries from a key (or, with `after`, after the model's entry at that index), at most
    /// `limit`.
    Entries {
        start: u8,
        after: Option<usize>,
        limit: usize,
    },
    ForEach,
}

fn op() -> impl Strategy<Value = Op> {
    // Keys of one or two bytes from a small alphabet, so keys repeat and prefix one another.
    let key = 0u8..12;
    prop_oneof![
        4 => (key.clone(), any::<u8>()).prop_map(|(k, v)| Op::Put(k, v)),
        2 => key.clone().prop_map(Op::Delete),
        2 => proptest::collection::vec((key.clone(), proptest::option::of(any::<u8>())), 0..6).prop_map(Op::Batch),
        1 => (key.clone(), any::<u8>(), 0u64..80).prop_map(|(k, v, back)| Op::Late(k, v, back)),
        3 => (key.clone(), 0u64..80).prop_map(|(k, s)| Op::Get(k, s)),
        2 => (key, proptest::option::of(0usize..80), 0usize..12).prop_map(|(start, after, limit)| Op::Entries { start, after, limit }),
        1 => Just(Op::ForEach),
    ]
}

/// Key number `k` as bytes: 0..4 one byte, the rest two bytes sharing a first byte with them.
fn key_bytes(k: u8) -> Vec<u8> {
    if k < 4 {
        vec![b'a' + k]
    } else {
        vec![b'a' + k % 4, k]
    }
}

type Model = BTreeMap<(Vec<u8>, Reverse<u64>), Vec<u8>>;

fn model_entries(model: &Model) -> Vec<Entry> {
    model.iter().map(|((k, Reverse(t)), v)| (k.clone(), *t, v.clone())).collect()
}

proptest! {
    /// Reads at any snapshot, entries from any point and a whole walk equal the model's, with
    /// writes, reads and walks interleaved (so keys join the order at different times).
    #[test]
    fn matches_an_ordered_map_of_every_entry(ops in proptest::collection::vec(op(), 1..80)) {
        let m = MemTable::new(4096);
        let mut model = Model::new();
        let mut sequence = 0u64;
        let mut batch_writes = [0u64; 2];
        let stats = crate::env::Stats::default();
        let put = |model: &mut Model, sequence: u64, k: u8, v: Option<u8>| {
            let (kind, value) = match v { Some(v) => (Kind::Value, vec![v; 1 + v as usize % 5]), None => (Kind::Deletion, Vec::new()) };
            model.insert((key_bytes(k), Reverse(key::tag(sequence, kind))), value.clone());
            (kind, value)
        };
        for op in ops {
            match op {
                Op::Put(k, v) => {
                    sequence += 1;
                    let (kind, value) = put(&mut model, sequence, k, Some(v));
                    m.insert(sequence, kind, &key_bytes(k), &value);
                }
                Op::Delete(k) => {
                    sequence += 1;
                    put(&mut model, sequence, k, None);
                    m.insert(sequence, Kind::Deletion, &key_bytes(k), b"");
                }
                Op::Batch(writes) => {
                    let mut batch = crate::batch::WriteBatch::new();
                    for (i, (k, v)) in writes.iter().enumerate() {
                        let (_, value) = put(&mut model, sequence + 1 + i as u64, *k, *v);
                        match v { Some(_) => batch.put(&key_bytes(*k), &value), None => batch.delete(&key_bytes(*k)) }
                    }
                    let user_bytes = m.insert_batch(sequence + 1, &batch, &stats);
                    prop_assert_eq!(user_bytes, batch.entries().map(|(_, k, v)| (k.len() + v.len()) as u64).sum::<u64>());
                    sequence += writes.len() as u64;
                    batch_writes[0] += writes.iter().filter(|(_, v)| v.is_none()).count() as u64;
                    batch_writes[1] += writes.iter().filter(|(_, v)| v.is_some()).count() as u64;
                }
                Op::Late(k, v, back) => {
                    let late = sequence.saturating_sub(back).max(1);
                    let (kind, value) = put(&mut model, late, k, Some(v));
                    m.insert(late, kind, &key_bytes(k), &value);
                    sequence = sequence.max(late);
                }
                Op::Get(k, snapshot) => {
                    let key = key_bytes(k);
                    let expected = model.range((key.clone(), Reverse(key::tag(snapshot, Kind::Value)))..).next()
                        .filter(|((found, _), _)| *found == key)
                        .map(|((_, Reverse(t)), v)| found(*t, v));
                    prop_assert_eq!(m.get(&key, snapshot), expected, "key {} at snapshot {}", k, snapshot);
                }
                Op::Entries { start, after, limit } => {
                    let all = model_entries(&model);
                    let (got, expected) = match after.filter(|&i| i < all.len()) {
                        Some(i) => (m.entries(Some((&all[i].0, all[i].1)), b"", limit), all[i + 1..].iter().take(limit).cloned().collect::<Vec<_>>()),
                        None => {
                            let start = key_bytes(start);
                            (m.entries(None, &start, limit), all.iter().filter(|(k, ..)| *k >= start).take(limit).cloned().collect())
                        }
                    };
                    prop_assert_eq!(got, expected);
                }
                Op::ForEach => {
                    let mut walked = Vec::new();
                    m.for_each(|k, t, v| { walked.push((k.to_vec(), t, v.to_vec())); Ok(()) }).unwrap();
                    prop_assert_eq!(walked, model_entries(&model));
                }
            }
            prop_assert_eq!(m.is_empty(), model.is_empty());
        }
        prop_assert_eq!([stats.deletes.load(Relaxed), stats.puts.load(Relaxed)], batch_writes, "batches' deletes and puts counted");
    }
}
