//! Block traces: streaming readers and writers for every supported format, statistics,
//! synthesis and transforms.
//!
//! Every reader yields `Result<Request, TraceError>`; a malformed record is an error that names
//! the file and line (or record), never a panic. Not here: replay (see `smr-sim`'s engine).

mod error;
mod footprint;

pub use error::TraceError;
pub use footprint::Footprint;

use crate::request::Request;

/// A stream of requests from one trace, in file order.
pub type TraceReader = Box<dyn Iterator<Item = Result<Request, TraceError>> + Send>;
