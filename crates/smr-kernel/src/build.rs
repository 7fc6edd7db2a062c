//! How systems are described and built: a `SystemEntry` per system (its name, summary, declared
//! parameters and constructor) and the `BuildContext` a constructor receives.
//!
//! A system that stacks over another (the SSD cache's `below`) builds it through
//! `BuildContext::build` by name, from the list of entries the context was given: the kernel
//! never names a system, and no system imports another. Not here: the list of systems itself
//! (smr-sim's `registry`).

use smr_core::param_spec::{ParamList, ParamReader};
use smr_core::{ParamError, Params};
use smr_trace::Footprint;

use super::engine::ReplayMode;
use super::error::SimError;
use super::ioctx::IoCtx;
use super::system::System;
use super::user_policy::PolicySource;

/// A system as the registry lists it.
pub struct SystemEntry {
    pub name: &'static str,
    /// Other names it answers to.
    pub aliases: &'static [&'static str],
    /// One line for `--help`.
    pub summary: &'static str,
    /// Every parameter it reads (a system stacked over another also accepts that one's).
    pub params: ParamList,
    /// How it is replayed unless a run says otherwise: as its paper measures it (closed loop for
    /// most; HWSR replays its traces at their timestamps).
    pub replay: ReplayMode,
    /// Builds it from the context's parameters.
    pub build: fn(&mut BuildContext<'_>) -> Result<Box<dyn System>, SimError>,
}

impl SystemEntry {
    pub const fn new(
        name: &'static str,
        summary: &'static str,
        params: ParamList,
        build: fn(&mut BuildContext<'_>) -> Result<Box<dyn System>, SimError>,
    ) -> Self {
        SystemEntry { name, aliases: &[], summary, params, replay: ReplayMode::Closed, build }
    }

    /// The same entry, replayed `replay` unless a run says otherwise.
    pub const fn replayed(self, replay: ReplayMode) -> Self {
        SystemEntry { replay, ..self }
    }

    /// The same entry, also answering to `aliases`.
    pub const fn with_aliases(self, aliases: &'static [&'static str]) -> Self {
        SystemEntry { aliases, ..self }
    }

    pub fn answers_to(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }
}

/// What a system's constructor gets: its parameters (read through their declarations), the
/// trace's footprint (for sizes relative to it), the seed, the `IoCtx` to register media in, the
/// systems it may build below itself, and where users' own policies come from, if anywhere.
pub struct BuildContext<'a> {
    pub params: ParamReader<'a>,
    pub footprint: Footprint,
    pub seed: u64,
    pub ctx: &'a mut IoCtx,
    /// Builds the policies written in Python that parameters name (the bindings give one).
    pub policies: Option<&'a dyn PolicySource>,
    /// What the run says of itself beside its numbers (e.g. the geometry a disk was given and
    /// why), for the fronts that describe one run.
    pub notes: Vec<String>,
    /// What makes the run's numbers say less than they seem to (e.g. a disk of few bands): every
    /// front shows these.
    pub warnings: Vec<String>,
    systems: &'a [&'static SystemEntry],
    /// The systems being built, outermost first (a system may not stack over itself).
    building: Vec<&'static str>,
}

impl<'a> BuildContext<'a> {
    pub fn new(
        params: &'a mut Params,
        footprint: Footprint,
        seed: u64,
        ctx: &'a mut IoCtx,
        systems: &'a [&'static SystemEntry],
    ) -> Self {
        BuildContext {
            params: ParamReader::new(params, &[]),
            footprint,
            seed,
            ctx,
            policies: None,
            notes: Vec::new(),
            warnings: Vec::new(),
            systems,
            building: Vec::new(),
        }
    }

    /// The same context, building the Python policies parameters name through `policies`.
    pub fn with_policies(self, policies: Option<&'a dyn PolicySource>) -> Self {
        BuildContext { policies, ..self }
    }

    /// Builds the system called `name` (or an alias) with this context's parameters.
    pub fn build(&mut self, name: &str) -> Result<Box<dyn System>, SimError> {
        let Some(entry) = self.systems.iter().copied().find(|e| e.answers_to(name)) else {
            return Err(SimError::UnknownSystem {
                name: name.to_string(),
                known: self.systems.iter().map(|e| e.name).collect::<Vec<_>>().join(", "),
            });
        };
        if self.building.contains(&entry.name) {
            return Err(ParamError::new("below", format!("{} cannot stack over itself", entry.name)).into());
        }
        let stacked = !self.building.is_empty();
        let outer_scope = self.params.enter(entry.name, stacked);
        self.building.push(entry.name);
        let built = self.construct(entry.params, entry.build);
        self.building.pop();
        self.params.leave(outer_scope, stacked);
        built
    }

    /// Runs a system's constructor with `declared` as the parameters it may read (its entry's),
    /// then restores those of the system being built around it.
    pub fn construct<T>(
        &mut self,
        declared: ParamList,
        constructor: impl FnOnce(&mut Self) -> Result<T, SimError>,
    ) -> Result<T, SimError> {
        let outer = self.params.swap_declared(declared);
        let built = constructor(self);
        self.params.swap_declared(outer);
        built
    }
}
