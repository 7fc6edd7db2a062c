//! Key-value workloads for smrlab: what a run of requests is, when each arrives, how they are
//! issued and measured, and a server that lets real clients reach SMRDB.
//!
//! - `ycsb`: YCSB's core workloads A-F (key naming, uniform / Zipfian / latest / hotspot key
//!   choice, operation mixes, scan lengths), seeded and deterministic.
//! - `arrival`: request arrival processes (§4.1 of the SMRDB thesis): constant, Poisson,
//!   self-similar (b-model) and envelope-guided diurnal, under Table 4.1's parameter names.
//! - `executor`: the open-loop executor of §4.2 (Fig. 4.4) and its per-request log.
//! - `target`: what the executor drives: a store in this process, or any Redis-protocol server.
//! - `resp` and `server`: the Redis protocol (RESP2) and a server for SMRDB speaking it.
//! - `run`: one YCSB run end to end (load, schedule, execute, summarise), and the stores
//!   experiments open.
//!
//! Not here: statistics of arrival series (ACF, Hurst: `python/smrlab/hurst.py`) and the
//! stores themselves (`smrdb`).

pub mod arrival;
pub mod error;
pub mod executor;
pub mod resp;
pub mod run;
pub mod server;
#[cfg(test)]
mod stats;
pub mod target;
pub mod ycsb;

pub use error::{Result, WorkloadError};
