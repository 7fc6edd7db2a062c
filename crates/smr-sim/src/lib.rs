//! smr-sim: the replay engine and every simulated SMR system.
//!
//! A `System` receives host `Request`s and sends media I/Os through an `IoCtx`, which times them
//! on the right `Medium`, accounts them per channel and can record them as a fio iolog. The
//! `Engine` replays a request stream through a system, closed-loop or open-loop, and produces a
//! serialisable `RunReport`. Not here: trace parsing and media models (`smr-core`), the key-value
//! store (`smrdb`).

pub mod engine;
pub mod gauge_series;
pub mod runner;
pub mod error;
pub mod ioctx;
pub mod recorder;
pub mod registry;
pub mod system;
pub mod ucache;

pub mod cache;
pub mod cmr;
pub mod dmsmr;
pub mod estimate;

pub use engine::{Engine, EngineConfig, ReplayMode, RunReport};
pub use error::SimError;
pub use ioctx::{ChannelId, IoCtx};
pub use system::System;
