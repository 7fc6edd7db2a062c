//! `cmr`: the trace played on a plain (conventional, non-shingled) disk: every request is one
//! disk access at its own address. The baseline every SMR scheme is compared with.

use smr_core::Request;

use smr_kernel::disk::{disk, DISK_PARAMS};
use smr_kernel::{BuildContext, ChannelId, Concurrency, Counters, IoCtx, ParamList, SimError, System, SystemEntry};

pub const PARAMS: ParamList = &[&DISK_PARAMS];

pub const ENTRY: SystemEntry = SystemEntry::new(
    "cmr",
    "plain conventional disk: each request is one disk access at its own address",
    PARAMS,
    |b| Ok(Box::new(Cmr::build(b)?)),
);

pub struct Cmr {
    disk: ChannelId,
    capacity: u64,
}

impl Cmr {
    pub fn build(b: &mut BuildContext<'_>) -> Result<Self, SimError> {
        let min_capacity = b.footprint.max_end;
        let medium = disk(b, min_capacity)?;
        let capacity = medium.capacity();
        let dev = b.ctx.add_device("disk", medium);
        Ok(Cmr { disk: b.ctx.channel(dev, "disk"), capacity })
    }
}

impl System for Cmr {
    fn submit(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
        ctx.io(self.disk, req.op, req.offset, req.len);
        Ok(())
    }

    /// Each request is one disk access and nothing else: requests may overlap at the drive.
    fn concurrency(&self) -> Concurrency {
        Concurrency::Overlapped { background: false }
    }

    fn capacity(&self) -> u64 {
        self.capacity
    }

    fn counters(&self, _out: &mut Counters) {}
}
