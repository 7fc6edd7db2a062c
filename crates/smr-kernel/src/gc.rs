//! The cost of garbage collection, counted the same way by every system that collects (a
//! translation layer cleaning data zones, a log cleaning its segments): cycles, and the bytes
//! each cycle read and wrote.

use super::metrics::{Counters, Metric, Unit};

pub static GC_CYCLES: Metric =
    Metric::new("gc_cycles", Unit::Count, "garbage collections (each cleans one data zone or log unit)");
pub static GC_BYTES_READ: Metric = Metric::new("gc_bytes_read", Unit::Bytes, "bytes read by garbage collection");
pub static GC_BYTES_WRITTEN: Metric =
    Metric::new("gc_bytes_written", Unit::Bytes, "bytes written by garbage collection");

#[derive(Clone, Copy, Debug, Default)]
pub struct GcCost {
    pub cycles: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
}

impl GcCost {
    /// One collection that read `read` and wrote `written` bytes.
    pub fn record(&mut self, read: u64, written: u64) {
        self.cycles += 1;
        self.bytes_read += read;
        self.bytes_written += written;
    }

    pub fn counters(&self, out: &mut Counters) {
        out.add(&GC_CYCLES, self.cycles);
        out.add(&GC_BYTES_READ, self.bytes_read);
        out.add(&GC_BYTES_WRITTEN, self.bytes_written);
    }
}
