//! One simulation run from a description: open the trace, measure its footprint (first pass),
//! build the named system, replay the trace through the engine (second pass), and optionally
//! record the translated trace as a fio iolog. The requests come from the trace file the spec
//! names, or from memory (`run_requests`: a trace handed over as columns from Python); the
//! policies written in Python that parameters name are built by the source `run_own` is given.
//!
//! This is the single entry point the Python front and the benchmarks use, so that every run is
//! configured the same way. Not here: provenance (version, commit, checksum — the Python front
//! adds them) or presentation.

use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use smr_core::{Params, Request};
use smr_trace::{Footprint, Interruptible, TraceError, TraceReader, TraceStats};

use crate::registry;
use smr_kernel::geometry::GEOMETRY_SCALE;
use smr_kernel::policy::PolicySource;
use smr_kernel::recorder::{IologRecorder, MIN_SPLIT};
use smr_kernel::{BuildContext, Engine, EngineConfig, EngineOptions, IoCtx, Progress, RunReport, SimError};

/// Everything that defines a run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunSpec {
    pub system: String,
    pub trace: PathBuf,
    /// Trace format name; `None` detects it from the file name.
    pub format: Option<String>,
    /// Reader options as `key=value` (e.g. `action=D` for blkparse).
    #[serde(default)]
    pub trace_options: Vec<String>,
    /// System parameters as `key=value`.
    #[serde(default)]
    pub params: Vec<String>,
    /// The replay asked for; what it leaves out is the system's own (`SystemEntry::replay`).
    #[serde(default)]
    pub engine: EngineOptions,
    #[serde(default)]
    pub seed: u64,
    /// Known footprint of the trace, to skip the first pass (e.g. in a sweep over one trace).
    pub footprint: Option<Footprint>,
    /// Where to write every media I/O as a fio iolog v2.
    pub iolog: Option<PathBuf>,
    /// Split recorded I/Os into pieces of at most this many bytes (0: never).
    #[serde(default)]
    pub iolog_max_io: u64,
}

/// What a run produced.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunOutput {
    pub report: RunReport,
    /// The replay as it ran: the options asked for, the system's own replay where they said none.
    pub engine: EngineConfig,
    /// The footprint the system was sized from, without its extents (they are sizing input, as
    /// long as the trace, not a result).
    pub footprint: Footprint,
    /// Every parameter the system (and any system below it) read, with the value it used, given
    /// or default.
    pub params: Vec<(String, String)>,
    /// The trace format, as given or as detected from the file name.
    pub format: String,
    /// (device name, medium description) of every simulated device.
    pub devices: Vec<(String, String)>,
    /// Media I/Os written to the iolog, if one was recorded.
    pub iolog_ios: Option<u64>,
    /// What the run says of itself beside its numbers (e.g. the geometry of a shingled disk).
    pub notes: Vec<String>,
    /// What makes its numbers say less than they seem to (e.g. a disk of few bands).
    pub warnings: Vec<String>,
}

/// Opens the trace named by `spec` with its reader options.
pub fn open_trace(spec: &RunSpec) -> Result<smr_trace::TraceReader, SimError> {
    let mut options = Params::parse(&spec.trace_options).map_err(|e| TraceError::Invalid(e.to_string()))?;
    Ok(smr_trace::open(&spec.trace, spec.format.as_deref(), &mut options)?)
}

/// Measures the footprint of the trace named by `spec` (the first pass of `run`).
pub fn measure_footprint(spec: &RunSpec) -> Result<Footprint, SimError> {
    measure_footprint_with(spec, &mut |_| true)
}

/// `measure_footprint`, asking `progress` every `trace::CHECK_EVERY` requests whether to go on
/// (a `Progress` with `first_pass` set); a no ends it with `TraceError::Interrupted`.
pub fn measure_footprint_with(
    spec: &RunSpec,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<Footprint, SimError> {
    Ok(measure_with(spec, progress)?.0)
}

/// The footprint of the trace named by `spec` and its number of requests (one pass).
pub fn measure_with(spec: &RunSpec, progress: &mut dyn FnMut(Progress) -> bool) -> Result<(Footprint, u64), SimError> {
    measure(open_trace(spec)?, &spec.trace, progress)
}

/// The pass is skipped for a trace that carries its statistics (an smrbin file smrlab wrote).
fn measure(
    requests: TraceReader,
    path: &std::path::Path,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<(Footprint, u64), SimError> {
    let stats = TraceStats::of(requests, |r| {
        Interruptible::new(r, |requests| progress(Progress { requests, sim_time_ns: 0, first_pass: true }))
    })?;
    if stats.requests == 0 {
        return Err(TraceError::Empty { path: path.to_path_buf() }.into());
    }
    let count = stats.requests;
    Ok((stats.into_footprint(), count))
}

/// Where a run's requests come from: the trace file its spec names, or memory.
enum Source {
    File,
    Memory(Arc<[Request]>),
}

impl Source {
    fn open(&self, spec: &RunSpec) -> Result<TraceReader, SimError> {
        match self {
            Source::File => open_trace(spec),
            Source::Memory(requests) => {
                let requests = Arc::clone(requests);
                Ok(TraceReader::boxed((0..requests.len()).map(move |i| Ok(requests[i]))))
            }
        }
    }

    fn format(&self, spec: &RunSpec) -> Result<String, SimError> {
        match self {
            Source::File => Ok(smr_trace::FormatEntry::resolve(spec.format.as_deref(), &spec.trace)?.name.to_string()),
            Source::Memory(_) => Ok(smr_trace::columns::IN_MEMORY.to_string()),
        }
    }
}

/// Runs `spec`; `progress` is called every `engine.progress_every` requests and may cancel.
pub fn run(spec: &RunSpec, progress: Option<&mut dyn FnMut(Progress) -> bool>) -> Result<RunOutput, SimError> {
    run_from(spec, &Source::File, progress, None)
}

/// Runs `spec` on `requests` held in memory instead of the trace file it names (its `trace`,
/// `format` and `trace_options` are not read).
pub fn run_requests(
    spec: &RunSpec,
    requests: Arc<[Request]>,
    progress: Option<&mut dyn FnMut(Progress) -> bool>,
) -> Result<RunOutput, SimError> {
    run_from(spec, &Source::Memory(requests), progress, None)
}

/// `run` (or `run_requests`, given `requests`) with the Python policies that parameters name
/// built by `policies`.
pub fn run_own(
    spec: &RunSpec,
    requests: Option<Arc<[Request]>>,
    progress: Option<&mut dyn FnMut(Progress) -> bool>,
    policies: &dyn PolicySource,
) -> Result<RunOutput, SimError> {
    let source = requests.map_or(Source::File, Source::Memory);
    run_from(spec, &source, progress, Some(policies))
}

fn run_from(
    spec: &RunSpec,
    source: &Source,
    mut progress: Option<&mut dyn FnMut(Progress) -> bool>,
    policies: Option<&dyn PolicySource>,
) -> Result<RunOutput, SimError> {
    if spec.iolog_max_io != 0 && spec.iolog_max_io < MIN_SPLIT {
        return Err(smr_core::ParamError::new(
            "iolog_max_io",
            format!("{} bytes is less than one {MIN_SPLIT}-byte sector (0: never split)", spec.iolog_max_io),
        )
        .into());
    }
    let file = matches!(source, Source::File).then_some(spec.trace.as_path());
    let pairs = named_auto(smr_core::params::split(&spec.params)?, file);
    registry::resolve_pairs(&spec.system, &pairs)?;
    let engine = spec.engine.config(registry::named(&spec.system, "system")?.replay)?;
    let footprint = match (&spec.footprint, progress.as_mut()) {
        (Some(f), _) => f.clone(),
        (None, Some(cb)) => measure(source.open(spec)?, &spec.trace, *cb)?.0,
        (None, None) => measure(source.open(spec)?, &spec.trace, &mut |_| true)?.0,
    };
    let mut params = Params::from_pairs(pairs);
    let mut ctx = IoCtx::new();
    // Built here rather than by `registry::build` to take the footprint back without a copy.
    let mut build =
        BuildContext::new(&mut params, footprint, spec.seed, &mut ctx, registry::SYSTEMS).with_policies(policies);
    let mut system = build.build(&spec.system)?;
    let footprint = Footprint {
        written_extents: Vec::new(),
        accessed_extents: Vec::new(),
        requests: 0,
        ..std::mem::take(&mut build.footprint)
    };
    let (notes, warnings) = (std::mem::take(&mut build.notes), std::mem::take(&mut build.warnings));
    let resolved = build.params.resolved().to_vec();
    params.finish()?;
    if let Some(path) = &spec.iolog {
        let file =
            std::fs::File::create(path).map_err(|source| SimError::Io { path: path.display().to_string(), source })?;
        ctx.record_to(IologRecorder::new(Box::new(std::io::BufWriter::new(file)), spec.iolog_max_io));
    }
    let mut replay = Engine::new(engine.clone());
    if let Some(cb) = progress {
        replay = replay.on_progress(cb);
    }
    let report = replay.run(system.as_mut(), &mut ctx, source.open(spec)?)?;
    let iolog_ios = match ctx.take_recorder() {
        None => None,
        Some(rec) => Some(rec.finish().map_err(|source| SimError::Io {
            path: spec.iolog.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
            source,
        })?),
    };
    Ok(RunOutput {
        report,
        engine,
        footprint,
        params: resolved,
        format: source.format(spec)?,
        devices: ctx.device_descriptions(),
        iolog_ios,
        notes,
        warnings,
    })
}

/// The parameters of `spec` as a bag, its trace file named where `geometry_scale=auto` asks
/// for it (for a reader of parameters other than a registered system: the §III-A estimate).
pub fn params_of(spec: &RunSpec) -> Result<Params, SimError> {
    Ok(Params::from_pairs(named_auto(smr_core::params::split(&spec.params)?, Some(&spec.trace))))
}

/// `pairs` with a plain `geometry_scale=auto` naming the trace (`auto:NAME`, NAME the file's
/// name up to its first dot: `wdev.csv.gz` is a sample of PORE's wdev); a trace in memory has
/// no name (`None`), and its `auto` stays as it is (the geometry then asks for one).
fn named_auto(mut pairs: Vec<(String, String)>, trace: Option<&std::path::Path>) -> Vec<(String, String)> {
    let stem = trace.and_then(|t| t.file_name()).and_then(|n| n.to_str()).and_then(|n| n.split('.').next());
    if let Some(stem) = stem {
        for (key, value) in pairs.iter_mut() {
            if key == GEOMETRY_SCALE.key && value == "auto" {
                *value = format!("auto:{stem}");
            }
        }
    }
    pairs
}
