//! The smrbin reader on arbitrary bytes: see `smr_trace::invariants`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smr_trace::invariants;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = invariants::check("smrbin", data, &[]) {
        panic!("{broken}");
    }
});
