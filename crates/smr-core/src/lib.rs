//! smr-core: the base every other smrlab crate shares.
//!
//! Units and the `Request` type, the `key=value` parameter bag and its typed values, quoting of
//! user text in messages, latency histograms, block sets, stretch indexes, the allocation bound for
//! untrusted sizes and the prefetch hint. Not here: trace readers and synthesis (`smr-trace`),
//! media timing models (`smr-media`), zoned devices (`smr-zoned`), any SMR management scheme
//! (`smr-sim`, `smrdb`). This crate depends on no other smrlab crate and builds no decompressor.
//!
//! Conventions (docs/architecture.md): offsets and lengths are bytes (`u64`) at every public boundary,
//! simulated time is nanoseconds (`u64`), and every random choice draws from a seeded RNG.

pub mod alloc_bound;
pub mod blockset;
pub mod latency;
pub mod names;
pub mod param_spec;
pub mod params;
pub mod prefetch;
pub mod quote;
pub mod request;
pub mod stretch_index;
pub mod units;
pub mod values;

pub use param_spec::{Kind, ParamList, ParamReader, ParamSpec, PolicyName, TimeUnit};
pub use params::{ParamError, Params};
pub use quote::{quote, quote_within};
pub use request::{Op, RangeError, Request};
