//! The trace characteristics of the HWSR paper's Table 3, measured in one pass: requests,
//! unique data (the union of touched 4 KiB blocks), average read and write length, updates and
//! write percent. The paper does not define an update; here it is a write request that
//! overwrites at least one 4 KiB block an earlier request of the trace wrote (its counts never
//! exceed the writes, and match the per-request reading: e.g. Financial1's 749,893 updates of
//! 787,300 writes). Not here: the other statistics (`smr_trace::TraceStats`).

use serde::Serialize;
use smr_core::blockset::BlockSet;
use smr_core::units::BLOCK_4K;
use smr_core::{Op, Request};
use smr_trace::TraceError;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Table3Row {
    pub requests: u64,
    pub unique_bytes: u64,
    pub avg_read_len: f64,
    pub avg_write_len: f64,
    pub updates: u64,
    pub write_percent: f64,
}

pub fn measure(requests: impl IntoIterator<Item = Result<Request, TraceError>>) -> Result<Table3Row, TraceError> {
    let (mut touched, mut written) = (BlockSet::new(), BlockSet::new());
    let (mut reads, mut writes, mut read_bytes, mut write_bytes, mut updates, mut total) =
        (0u64, 0u64, 0u64, 0u64, 0u64, 0u64);
    for req in requests {
        let req = req?;
        total += 1;
        let blocks = req.blocks(BLOCK_4K);
        match req.op {
            Op::Read => {
                reads += 1;
                read_bytes += req.len;
            }
            Op::Write => {
                writes += 1;
                write_bytes += req.len;
                updates += u64::from(written.insert_range(blocks.clone()) > 0);
            }
            Op::Trim => continue,
        }
        touched.insert_range(blocks);
    }
    let mean = |bytes: u64, n: u64| if n == 0 { 0.0 } else { bytes as f64 / n as f64 };
    Ok(Table3Row {
        requests: total,
        unique_bytes: touched.len() * BLOCK_4K,
        avg_read_len: mean(read_bytes, reads),
        avg_write_len: mean(write_bytes, writes),
        updates,
        write_percent: 100.0 * mean(writes, reads + writes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hand_worked_trace() {
        let reqs = [
            Request::new(0, Op::Write, 0, 8192),
            Request::new(1, Op::Write, 4096, 512),
            Request::new(2, Op::Read, 1 << 20, 3000),
            Request::new(3, Op::Write, 1 << 20, 4096),
            Request::new(4, Op::Write, 8192, 4096),
        ];
        let row = measure(reqs.iter().map(|r| Ok(*r))).unwrap();
        // The second write overwrites block 1; the third only touches a block read before.
        assert_eq!(
            row,
            Table3Row {
                requests: 5,
                unique_bytes: 4 * 4096,
                avg_read_len: 3000.0,
                avg_write_len: (8192.0 + 512.0 + 8192.0) / 4.0,
                updates: 1,
                write_percent: 80.0
            }
        );
    }
}
