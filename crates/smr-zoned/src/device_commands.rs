//! The zone commands the devices' property tests draw (test only): appends, writes at an
//! offset, resets and finishes on a small device, writes of 1 to `max_len` bytes of one value.
//! Not here: what a test checks after each command (`memory`: against a byte array, `file`:
//! against the memory device across reopens).

use proptest::prelude::*;

#[derive(Clone, Debug)]
pub enum Cmd {
    Append(u64, u8, usize),
    WriteAt(u64, u8, usize),
    Reset(u64),
    Finish(u64),
}

/// Commands on `zones` zones of `zone_size` bytes; writes are drawn more often than the rest.
pub fn cmd(zones: u64, zone_size: u64, max_len: usize) -> impl Strategy<Value = Cmd> {
    prop_oneof![
        4 => (0..zones, any::<u8>(), 1..max_len).prop_map(|(z, b, n)| Cmd::Append(z, b, n)),
        2 => (0..zones * zone_size, any::<u8>(), 1..max_len).prop_map(|(o, b, n)| Cmd::WriteAt(o, b, n)),
        1 => (0..zones).prop_map(Cmd::Reset),
        1 => (0..zones).prop_map(Cmd::Finish),
    ]
}
