//! The simulator's kernel: what every system is built from and run by, and nothing specific to
//! any one system.
//!
//! - the interface: `System` (`system`), `SystemEntry` and `BuildContext` (`build`), the shared
//!   `disk` parameters (`disk`; parameter declarations themselves are smr-core's `param_spec`);
//! - running: `IoCtx` (media, channels, the clock; `ioctx`, with fio iolog recording in
//!   `recorder` and the commands in flight on devices that queue in `inflight`), the `Engine`
//!   (`engine`, and its overlapped replay of requests and background work in `overlapped`),
//!   what it reports (`report`, `metrics`, `gauge_series`, and whether an open-loop run was
//!   saturated: `saturation`), the error type (`error`);
//! - the parts systems share: slot pools (`slots`), recency lists (`lists`), cache replacement
//!   policies (`policy`), coalescing blocks
//!   into runs (`runs`), band layouts (`bands`) and the factor a geometry is scaled by (`geometry`), garbage-collection accounting (`gc`), a
//!   zoned disk under the zone rules (`zoned_disk`), and a prefetch hint (`prefetch`).
//!
//! The kernel depends on smr-core, smr-trace, smr-media and smr-zoned only; it never names a
//! system (Cargo holds it to that: this crate does not depend on smr-sim). Systems depend on the
//! kernel only, never on each other (crates/smrlab-arch's test checks that from the source).

pub mod bands;
pub mod build;
pub mod disk;
pub mod engine;
pub mod error;
pub mod gauge_series;
pub mod gc;
pub mod geometry;
pub mod ioctx;
pub mod lists;
pub mod metrics;
#[cfg(test)]
mod overlap_tests;
pub mod policy;
pub mod recorder;
pub mod report;
pub mod runs;
pub mod saturation;
pub mod slots;
pub mod system;
pub mod totals;
pub mod user_policy;
pub mod zoned_disk;

pub use bands::{BandCursor, BandLayout};
pub use build::{BuildContext, SystemEntry};
pub use engine::{ok_requests, Engine, EngineConfig, EngineOptions, Progress, ReplayMode, Served, Session};
pub use error::SimError;
pub use ioctx::{Background, ChannelId, Command, IoCtx, RunningTimer, TimerId};
pub use metrics::{Counters, Gauges, Metric, Ratio, Unit};
pub use report::RunReport;
pub use saturation::Saturation;
pub use smr_core::param_spec::{self as params, Kind, ParamList, ParamSpec};
pub use system::{Bands, Concurrency, System};
