//! The papers' workload tables and their generators: HWSR's Table 3 and FluidSMR's Table 1 as
//! synthesizer recipes, FluidSMR's `spread` placement and its four-phase workload (Fig. 16), each
//! a `PaperTrace` a pipeline can name as its source. These were first written in Python with
//! numpy; the traces they made are kept byte for byte (`pyformat` spells numbers as Python did,
//! `numpy_random` draws as numpy did). Not here: the synthesizer itself (`synth`), PORE's Table I
//! (the synthesizer's presets), caching generated files (the Python front).

pub mod fluid_table1;
pub mod four_phase;
pub mod hwsr_table3;
pub mod numpy_random;
mod pyformat;
pub mod spread;

use serde::{Deserialize, Serialize};
use smr_core::request::{Op, Request};

use super::synth::synthesized;
use super::{TraceError, TraceReader};
use four_phase::FourPhase;

/// The most requests a generated trace may have.
pub const MAX_GENERATED_REQUESTS: u64 = 1_000_000_000;

/// The request count of the paper trace called `name`, with the table that states it: PORE's
/// Table I (`wdev`, ...), FluidSMR's Table 1 (`hm_0`, ...) or HWSR's Table 3. A sample of that
/// trace has this many requests times the factor it was scaled down by.
pub fn original_requests(name: &str) -> Option<(u64, &'static str)> {
    let pore = super::synth::PRESETS.iter().find(|p| p.name == name).map(|p| (p.requests, "PORE Table I"));
    let fluid = fluid_table1::TABLE1.iter().find(|r| r.name == name).map(|r| (r.total as u64, "FluidSMR Table 1"));
    let hwsr = hwsr_table3::TABLE3.iter().find(|r| r.name == name).map(|r| (r.requests, "HWSR Table 3"));
    pore.or(fluid).or(hwsr)
}

/// Every name `original_requests` knows, table by table.
pub fn original_names() -> impl Iterator<Item = &'static str> {
    let pore = super::synth::PRESETS.iter().map(|p| p.name);
    pore.chain(fluid_table1::TABLE1.iter().map(|r| r.name)).chain(hwsr_table3::TABLE3.iter().map(|r| r.name))
}

/// A paper workload that cannot be made as asked, in a sentence for the user.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("{0}")]
pub struct PaperError(pub String);

impl From<PaperError> for TraceError {
    fn from(e: PaperError) -> Self {
        TraceError::Invalid(e.0)
    }
}

fn default_placement() -> String {
    "spread".into()
}
fn default_hot_ranges() -> i64 {
    fluid_table1::HOT_RANGES as i64
}
/// A paper workload, by table and row (a request count below the row's scales it down).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum PaperTrace {
    HwsrTable3 {
        name: String,
        #[serde(default)]
        requests: Option<i64>,
        #[serde(default)]
        seed: u64,
    },
    FluidTable1 {
        name: String,
        #[serde(default)]
        requests: Option<i64>,
        #[serde(default)]
        seed: u64,
        #[serde(default = "default_placement")]
        placement: String,
        #[serde(default = "default_hot_ranges")]
        hot_ranges: i64,
    },
    FourPhase(FourPhase),
}

/// What a paper workload is made of, for its caller: the synthesizer parameters (none for the
/// four-phase workload), its request count, the format it is kept in, and `spread`'s chunk and
/// range end (when spread).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Recipe {
    pub synth: Option<Vec<String>>,
    pub requests: u64,
    pub format: &'static str,
    pub chunk: Option<u64>,
    pub end: Option<u64>,
}

impl PaperTrace {
    /// The recipe, checked: any request the workload cannot be made for is refused here.
    pub fn recipe(&self) -> Result<Recipe, PaperError> {
        match self {
            PaperTrace::HwsrTable3 { name, requests, seed } => {
                let row = hwsr_table3::row(name)?;
                let synth = hwsr_table3::recipe(name, *requests, *seed)?;
                let format = if row.spc() { "spc" } else { "smrbin" };
                Ok(Recipe {
                    synth: Some(synth),
                    requests: hwsr_table3::count(row, *requests)?,
                    format,
                    chunk: None,
                    end: None,
                })
            }
            PaperTrace::FluidTable1 { name, requests, seed, placement, hot_ranges } => {
                let spread = fluid_table1::placement(placement)?;
                let row = fluid_table1::preset(name)?;
                let scale = fluid_table1::scale_of(row, *requests)?;
                let (chunk, end) = if spread {
                    (
                        Some(fluid_table1::chunk_bytes(row, scale, *hot_ranges)?),
                        Some(fluid_table1::max_offset(row, scale) as u64),
                    )
                } else {
                    (None, None)
                };
                let synth = fluid_table1::params(row, scale, *seed, spread);
                Ok(Recipe {
                    synth: Some(synth),
                    requests: fluid_table1::requests_of(row, scale) as u64,
                    format: "smrbin",
                    chunk,
                    end,
                })
            }
            PaperTrace::FourPhase(workload) => {
                workload.checked()?;
                Ok(Recipe { synth: None, requests: workload.requests as u64, format: "smrbin", chunk: None, end: None })
            }
        }
    }

    /// The workload's requests.
    pub fn requests(&self) -> Result<TraceReader, TraceError> {
        let recipe = self.recipe()?;
        match self {
            PaperTrace::FourPhase(workload) => {
                let writes = workload.trace()?;
                Ok(TraceReader::boxed(
                    writes.into_iter().map(|w| Ok(Request::new(w.time_ns, Op::Write, w.offset, w.len))),
                ))
            }
            PaperTrace::FluidTable1 { seed, .. } if recipe.chunk.is_some() => {
                let synth = synthesized(recipe.synth.as_deref().unwrap_or_default())?;
                let requests: Vec<Request> = synth.collect();
                let mut offsets: Vec<u64> = requests.iter().map(|r| r.offset).collect();
                let lengths: Vec<u64> = requests.iter().map(|r| r.len).collect();
                let (chunk, end) = (recipe.chunk.unwrap_or(1), recipe.end.unwrap_or(0));
                spread::spread(&mut offsets, &lengths, chunk, end, *seed);
                // The spread trace was first written through a CSV file and read back with times
                // relative to the first request.
                let first = requests.first().map_or(0, |r| r.time_ns);
                let moved = requests
                    .into_iter()
                    .zip(offsets)
                    .map(move |(r, offset)| Ok(Request::new(r.time_ns.saturating_sub(first), r.op, offset, r.len)));
                Ok(TraceReader::boxed(moved))
            }
            _ => Ok(TraceReader::boxed(synthesized(recipe.synth.as_deref().unwrap_or_default())?.map(Ok))),
        }
    }
}
