//! smr-core: the shared vocabulary of smrlab.
//!
//! Units and the `Request` type, trace readers/writers/statistics/synthesis, media timing models,
//! the zoned-device abstraction, typed parameters and metrics. Everything here is independent of
//! any particular SMR management scheme; the schemes themselves live in `smr-sim` and `smrdb`.
//!
//! Conventions (docs/architecture.md): offsets and lengths are bytes (`u64`) at every public boundary,
//! simulated time is nanoseconds (`u64`), and every random choice draws from a seeded RNG.

pub mod alloc_bound;
pub mod blockset;
pub mod media;
pub mod latency;
pub mod params;
pub mod prefetch;
pub mod quote;
pub mod request;
pub mod stretch_index;
pub mod trace;
pub mod units;
pub mod values;
pub mod zoned;

pub use params::{ParamError, Params};
pub use quote::{quote, quote_within};
pub use request::{Op, RangeError, Request};
