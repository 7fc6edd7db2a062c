//! `cmr`: the trace played on a plain (conventional, non-shingled) disk: every request is one
//! disk access at its own address. The baseline every SMR scheme is compared with.

use smr_core::metrics::Counters;
use smr_core::Request;

use crate::error::SimError;
use crate::ioctx::{ChannelId, IoCtx};
use crate::registry::{BuildContext, ParamDoc, SystemDoc};
use crate::system::System;

pub const DOC: SystemDoc = SystemDoc {
    name: "cmr",
    summary: "plain conventional disk: each request is one disk access at its own address",
    params: &[ParamDoc::DISK],
};

pub struct Cmr {
    disk: ChannelId,
    capacity: u64,
}

impl Cmr {
    pub fn build(b: &mut BuildContext<'_>) -> Result<Self, SimError> {
        let medium = smr_core::media::disk_from_params(b.params, b.footprint.max_end)?;
        let capacity = medium.capacity();
        let dev = b.ctx.add_device("disk", medium);
        Ok(Cmr { disk: b.ctx.channel(dev, "disk"), capacity })
    }
}

impl System for Cmr {
    fn submit(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
        if req.end() > self.capacity {
            return Err(SimError::OutOfRange { index: 0, offset: req.offset, len: req.len, capacity: self.capacity });
        }
        if req.len > 0 {
            ctx.io(self.disk, req.op, req.offset, req.len);
        }
        Ok(())
    }

    fn counters(&self, _out: &mut Counters) {}
}
