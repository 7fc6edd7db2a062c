//! A described chain of trace sources and transforms — one or more input files (merged into
//! adjacent ranges), or the synthesizer; then duplication, shifting, keeping writes, sampling and
//! a head — producing one request stream. `smrlab trace convert/merge/dup/synth/...` are all
//! this one pipeline with different fields set, so every combination works the same way.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::paper::PaperTrace;
use super::synth::synthesized;
use super::transform::{self, MergeInput};
use super::{open, TraceError, TraceReader, TraceStats};
use smr_core::params::Params;
use smr_core::request::MAX_END;

/// One input file.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Input {
    pub path: PathBuf,
    #[serde(default)]
    pub format: Option<String>,
    #[serde(default)]
    pub options: Vec<String>,
}

impl Input {
    fn open(&self) -> Result<TraceReader, TraceError> {
        let mut options = Params::parse(&self.options).map_err(TraceError::option)?;
        open(&self.path, self.format.as_deref(), &mut options)
    }
}

/// The most copies of the inputs `duplicate` lays. Each copy of each input is an open reader
/// with its own buffers (about 150 KiB resident for a small text trace), so 65,536 copies, the
/// limit before, held 10 GB and more files open than a process may: 256 copies stay near
/// 40 MB, and PORE §V-G's mix lays a handful.
pub const MAX_COPIES: u64 = 256;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Pipeline {
    /// Input files; several are merged into adjacent LBA ranges in a seeded interleaving.
    pub inputs: Vec<Input>,
    /// Synthesizer parameters (instead of inputs).
    pub synth: Option<Vec<String>>,
    /// A paper's workload (instead of inputs or synthesizer parameters).
    #[serde(default)]
    pub paper: Option<PaperTrace>,
    /// Copies of the (merged) input laid into adjacent ranges and interleaved (PORE's `mix`).
    pub duplicate: Option<u64>,
    pub shift: u64,
    pub writes_only: bool,
    pub sample: Option<f64>,
    pub head: Option<u64>,
    pub seed: u64,
}

impl Pipeline {
    /// The resulting request stream. Merging and duplicating read each input once beforehand to
    /// count its requests and find its extent.
    pub fn requests(&self) -> Result<TraceReader, TraceError> {
        const DUPLICATE_GENERATED: &str = "duplicate works on input files; synthesize a larger trace instead";
        let base: TraceReader = match (&self.paper, &self.synth, self.inputs.as_slice()) {
            (None, Some(_), [_, ..]) => {
                return Err(TraceError::Invalid("give either input traces or synthesizer parameters, not both".into()))
            }
            (Some(_), Some(_), _) | (Some(_), _, [_, ..]) => {
                return Err(TraceError::Invalid(
                    "give a paper's workload alone, without input traces or synthesizer parameters".into(),
                ))
            }
            (Some(paper), ..) => {
                let requests = paper.requests()?;
                if self.duplicate.is_some() {
                    return Err(TraceError::Invalid(DUPLICATE_GENERATED.into()));
                }
                requests
            }
            (None, Some(params), []) => {
                let synth = synthesized(params)?;
                if self.duplicate.is_some() {
                    return Err(TraceError::Invalid(DUPLICATE_GENERATED.into()));
                }
                TraceReader::boxed(synth.map(Ok))
            }
            (None, None, []) => return Err(TraceError::Invalid("no input trace given".into())),
            (None, None, [single]) if self.duplicate.is_none() => single.open()?,
            (None, None, inputs) => self.merged(inputs)?,
        };
        let mut stream: TraceReader = base;
        if self.shift > 0 {
            stream = TraceReader::boxed(transform::shift(stream, self.shift));
        }
        if self.writes_only {
            stream = TraceReader::boxed(transform::writes_only(stream));
        }
        if let Some(fraction) = self.sample {
            stream = TraceReader::boxed(transform::sample(stream, fraction, self.seed)?);
        }
        if let Some(n) = self.head {
            stream = TraceReader::boxed(stream.take(n as usize));
        }
        Ok(stream)
    }

    fn merged(&self, inputs: &[Input]) -> Result<TraceReader, TraceError> {
        let copies = self.duplicate.unwrap_or(1);
        if !(1..=MAX_COPIES).contains(&copies) {
            return Err(TraceError::Invalid(format!("copies must be from 1 to {MAX_COPIES}, not {copies}")));
        }
        let measured: Vec<(u64, u64)> = inputs
            .iter()
            .map(|i| TraceStats::of(i.open()?, |trace| trace).map(|s| (s.requests, s.max_end)))
            .collect::<Result<_, _>>()?;
        let mut parts = Vec::new();
        let mut at = 0u64;
        for copy in 1..=copies {
            for (input, &(count, max_end)) in inputs.iter().zip(&measured) {
                if at.checked_add(max_end).is_none_or(|end| end > MAX_END) {
                    return Err(TraceError::Invalid(format!(
                        "copy {copy} of {} would end past byte 2^63, the largest address smrlab accepts: the merged ranges do not fit",
                        input.path.display()
                    )));
                }
                parts.push(MergeInput { requests: input.open()?, count, shift_by: at });
                at = transform::next_range_start(max_end).and_then(|size| at.checked_add(size)).unwrap_or(u64::MAX);
            }
        }
        Ok(TraceReader::boxed(transform::interleave(parts, self.seed)))
    }
}
