//! A simulated drive that a caller drives one request at a time, seeing each request's response
//! time before it chooses the next, as a host sees a real device's: what `smrlab probe` measures
//! a `sim:` target through. Any registered system with any of its parameters, built for a given
//! capacity (as if a trace wrote and read all of it, so shares such as `dmsmr`'s `buffer` are of
//! that capacity) and replayed by the kernel's `Session` (open loop in simulated real time: the
//! pause a caller asks for before a request is idle time the system may clean in).
//!
//! Not here: what to send (the probe, in Python) or whole-trace runs (`runner`).

use smr_core::{Op, Params, Request};
use smr_trace::Footprint;

use crate::registry;
use smr_kernel::{BuildContext, IoCtx, Session, SimError, System};

pub struct SimDrive {
    system: Box<dyn System>,
    ctx: IoCtx,
    session: Session,
    /// Every parameter the system read, with the value it used.
    params: Vec<(String, String)>,
}

impl SimDrive {
    /// Builds `system` with `params` (`key=value`) for `capacity` bytes of address space.
    pub fn build(system: &str, params: &[String], capacity: u64, seed: u64) -> Result<Self, SimError> {
        let mut given = Params::parse(params)?;
        let mut ctx = IoCtx::new();
        let footprint = Footprint::dense(capacity, capacity, capacity);
        let mut build = BuildContext::new(&mut given, footprint, seed, &mut ctx, registry::SYSTEMS);
        let system = build.build(system)?;
        let params = build.params.resolved().to_vec();
        given.finish()?;
        let session = Session::new(&*system, &mut ctx)?;
        Ok(SimDrive { system, ctx, session, params })
    }

    /// Bytes of address space the drive serves (at least the capacity it was built for).
    pub fn capacity(&self) -> u64 {
        self.system.capacity()
    }

    /// The drive's clock: simulated ns since it was built.
    pub fn now_ns(&self) -> u64 {
        self.ctx.now()
    }

    pub fn params(&self) -> &[(String, String)] {
        &self.params
    }

    /// Serves one request `pause_ns` after the drive's clock (idle time before it), and returns
    /// its response time in ns.
    pub fn submit(&mut self, op: Op, offset: u64, len: u64, pause_ns: u64) -> Result<u64, SimError> {
        let at = self.ctx.now().saturating_add(pause_ns);
        let served = self.session.submit(self.system.as_mut(), &mut self.ctx, &Request::new(at, op, offset, len))?;
        Ok(served.response_ns())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    fn write(drive: &mut SimDrive, block: u64, pause_ns: u64) -> u64 {
        drive.submit(Op::Write, block * 4096, 4096, pause_ns).unwrap()
    }

    /// A drive-managed SMR disk of 8 blocks of buffer answers the ninth new block with a band
    /// cleaning (hundreds of ms), where the eight before took a log append each.
    #[test]
    fn the_ninth_new_block_of_an_eight_block_buffer_stalls() {
        let params = ["buffer=8blocks".to_string(), "band_size=1MiB".to_string()];
        let mut drive = SimDrive::build("dmsmr", &params, 64 * MIB, 1).unwrap();
        assert!(drive.capacity() >= 64 * MIB);
        let times: Vec<u64> = (0..9).map(|i| write(&mut drive, i * 1000, 0)).collect();
        assert!(times[..8].iter().all(|&t| t < 20_000_000), "{times:?}");
        assert!(times[8] > 10 * times[1..8].iter().max().unwrap(), "{times:?}");
    }

    /// With idle cleaning, a pause before a write is time the drive cleans in: after a long
    /// pause the write that would have stalled does not, and it arrives after the pause.
    #[test]
    fn a_pause_is_idle_time_the_drive_cleans_in() {
        let params = ["buffer=8blocks", "band_size=1MiB", "idle_clean=true", "idle_clean_above=0"].map(String::from);
        let mut drive = SimDrive::build("dmsmr", &params, 64 * MIB, 1).unwrap();
        for i in 0..8 {
            write(&mut drive, i * 1000, 0);
        }
        let before = drive.now_ns();
        let after_pause = write(&mut drive, 9000, 60_000_000_000);
        assert!(after_pause < 20_000_000, "{after_pause} ns: the buffer was cleaned in the pause");
        assert!(drive.now_ns() >= before + 60_000_000_000);
    }

    #[test]
    fn bad_parameters_and_requests_beyond_the_drive_are_errors() {
        assert!(SimDrive::build("dmsmr", &["nonsense=1".to_string()], MIB, 0).is_err());
        assert!(SimDrive::build("no-such-system", &[], MIB, 0).is_err());
        let mut drive = SimDrive::build("cmr", &[], 64 * MIB, 0).unwrap();
        assert!(drive.submit(Op::Read, drive.capacity(), 4096, 0).is_err());
    }
}
