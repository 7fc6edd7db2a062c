//! `POLICIES`, every native policy by name with its constructor, and building the policy a
//! system's `policy` parameter names: a row of the table, or a user's own written in Python
//! (through the `PolicySource` the run was given; `own`).
//!
//! A policy is added by its file and one row here. A system offers it by listing its name in
//! its `policy` parameter (`Kind::Policy`) and declaring the parameters the policy reads, if
//! any; it builds whatever the parameter names through `build`, with no arm per policy.
//!
//! The constructors hand the policy to a `Host`, generic over the policy's type, rather than
//! returning a `Box<dyn Policy>`: the SSD cache is compiled once per policy, so its several
//! calls per block go straight to the policy and the small ones are inlined (boxed, an lru
//! replay took 6.5 % more instructions). Not here: what a policy does (its own file), the
//! checks on a user's policy (`own`).

use smr_core::param_spec::PolicyName;

use super::lru_band::LruBand;
use super::lwa::Lwa;
use super::own::Guarded;
use super::pore;
use super::recency::{Order, Recency};
use super::segments::{SegmentOrder, Segments};
use super::Policy;
use crate::bands::BandLayout;
use crate::user_policy::Geometry;
use crate::{BuildContext, Kind, ParamSpec, SimError};

/// What a constructor gets: the geometry, and the build context for the parameters a policy
/// declares (`pore`) and for errors, which name `spec`, the parameter that named the policy.
pub struct PolicySetup<'s, 'a> {
    pub b: &'s mut BuildContext<'a>,
    pub spec: &'static ParamSpec,
    pub geometry: Geometry,
}

impl PolicySetup<'_, '_> {
    /// An error about the policy the parameter names.
    pub fn error(&self, message: impl Into<String>) -> SimError {
        self.b.params.error(self.spec, message).into()
    }

    /// The band layout below, or an error saying that `policy` needs one.
    pub fn bands(&self, policy: &str) -> Result<BandLayout, SimError> {
        self.geometry.bands.clone().ok_or_else(|| {
            self.error(format!(
                "{policy} needs the band layout of a shingled disk below {} (e.g. below=dmsmr)",
                self.geometry.host
            ))
        })
    }

    /// The blocks per segment, or an error saying that `policy` needs segments.
    pub fn segment_blocks(&self, policy: &str) -> Result<u64, SimError> {
        self.geometry.segment_blocks.ok_or_else(|| {
            self.error(format!("{policy} evicts whole segments, which {} does not have", self.geometry.host))
        })
    }
}

/// A cache that takes its policy as a type parameter; each row hands the policy it builds to
/// `take`, which builds the cache around it.
pub trait Host: Sized + 'static {
    /// The cache with its policy in place.
    type Hosted;
    fn take<P: Policy + 'static>(self, policy: P) -> Self::Hosted;
}

/// The host of a cache that holds its policy behind a pointer (HWSR's MEM buffer and SSD read
/// cache: a few calls per block against a disk access per miss).
pub struct Boxed;

impl Host for Boxed {
    type Hosted = Box<dyn Policy>;
    fn take<P: Policy + 'static>(self, policy: P) -> Box<dyn Policy> {
        Box::new(policy)
    }
}

/// A policy as the table lists it.
pub struct PolicyEntry<H: Host> {
    pub name: &'static str,
    /// What it evicts, in a line.
    pub about: &'static str,
    /// The parameters it reads, which a system that offers it declares.
    pub params: &'static [ParamSpec],
    pub build: fn(&mut PolicySetup<'_, '_>, H) -> Result<H::Hosted, SimError>,
}

/// The table for every host (`POLICIES` is it for listing).
pub trait Table: Host {
    const POLICIES: &'static [PolicyEntry<Self>];
}

impl<H: Host> Table for H {
    const POLICIES: &'static [PolicyEntry<H>] = &[
        PolicyEntry {
            name: "lru",
            about: "the least recently used block",
            params: &[],
            build: |s, host| Ok(host.take(Recency::new(s.geometry.slots, Order::Lru))),
        },
        PolicyEntry {
            name: "lru-block",
            about: "lru under HWSR's name for it (§2.3)",
            params: &[],
            build: |s, host| Ok(host.take(Recency::new(s.geometry.slots, Order::Lru))),
        },
        PolicyEntry {
            name: "fifo",
            about: "the block cached longest, hits leaving it in place",
            params: &[],
            build: |s, host| Ok(host.take(Recency::new(s.geometry.slots, Order::Fifo))),
        },
        PolicyEntry {
            name: "lru-band",
            about: "every cached block of the least recently used block's SMR band",
            params: &[],
            build: |s, host| Ok(host.take(LruBand::build(s)?)),
        },
        PolicyEntry {
            name: "pore",
            about: "the least recent block among the clean ones and the dirty ones of open zones (PORE §IV)",
            params: pore::PARAMS,
            build: |s, host| Ok(host.take(pore::build(s)?)),
        },
        PolicyEntry {
            name: "lru-segment",
            about: "every buffered block of the segment used least recently (HWSR §2.3)",
            params: &[],
            build: |s, host| Ok(host.take(Segments::build(s, SegmentOrder::Recency)?)),
        },
        PolicyEntry {
            name: "most-blocks",
            about: "every buffered block of the segment with the most of them (S-block's group destage, HWSR §4.1)",
            params: &[],
            build: |s, host| Ok(host.take(Segments::build(s, SegmentOrder::MostBlocks)?)),
        },
        PolicyEntry {
            name: "lwa",
            about: "in a window at the LRU tail, the blocks of the segment with the most there (HWSR §4.3, Fig. 10)",
            params: super::lwa::PARAMS,
            build: |s, host| Ok(host.take(Lwa::build(s)?)),
        },
    ];
}

/// Every native policy by name; a system's `policy` parameter offers some of them.
pub const POLICIES: &[PolicyEntry<Boxed>] = Boxed::POLICIES;

/// The table's entry named `name`.
pub fn entry(name: &str) -> Option<&'static PolicyEntry<Boxed>> {
    POLICIES.iter().find(|p| p.name == name)
}

/// Reads the policy `spec` names, and the parameters of every policy `spec` offers: a system
/// declares them all, and they are recorded, accepted and checked as far as their kind allows
/// whichever policy is chosen (an experiment gives PORE's zone to its lru cells too); the
/// policy that uses them reads them again.
pub fn read(b: &mut BuildContext<'_>, spec: &'static ParamSpec) -> Result<PolicyName, SimError> {
    let name = b.params.policy(spec)?;
    let Kind::Policy(offered) = spec.kind else { unreachable!("ParamReader::policy read a Kind::Policy") };
    for entry in POLICIES.iter().filter(|e| offered.contains(&e.name)) {
        for param in entry.params {
            b.params.check(param)?;
        }
    }
    Ok(name)
}

/// Builds the policy `name` (read by `read`) over `setup`'s geometry and hands it to `host`: a
/// row of the table, or a user's own, built by the run's `PolicySource` and checked (`Guarded`).
pub fn build<H: Host>(setup: &mut PolicySetup<'_, '_>, name: &PolicyName, host: H) -> Result<H::Hosted, SimError> {
    match name {
        PolicyName::Listed(listed) => {
            let entry = H::POLICIES.iter().find(|e| e.name == *listed).ok_or_else(|| {
                setup.error(format!("{listed} is offered but not in kernel::policy::POLICIES (a bug in smrlab)"))
            })?;
            (entry.build)(setup, host)
        }
        PolicyName::Python(reference) => {
            let Some(source) = setup.b.policies else {
                return Err(setup.error(format!(
                    "{reference} is a Python policy: run it through smrlab's Python front (smrlab sim, \
                     smrlab.simulate), which loads it"
                )));
            };
            let own = source.build(reference, &setup.geometry)?;
            Ok(host.take(Guarded::new(reference.clone(), setup.geometry.clone(), own)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smr_core::Params;
    use smr_trace::Footprint;

    use crate::IoCtx;

    /// A host that keeps only the name of the policy type it is handed.
    struct TypeName;

    impl Host for TypeName {
        type Hosted = &'static str;
        fn take<P: Policy + 'static>(self, _policy: P) -> &'static str {
            std::any::type_name::<P>().rsplit("::").next().unwrap_or_default()
        }
    }

    const OFFERED: ParamSpec = ParamSpec::new(
        "policy",
        Kind::Policy(&["lru", "lru-block", "fifo", "lru-band", "pore", "lru-segment", "most-blocks", "lwa", "lfu"]),
        "lru",
        "a policy",
    );

    /// Builds `name` through the table over a cache of 64 blocks above a banded disk, in
    /// segments of 8 blocks, handing it to `host`.
    fn built<H: Host>(name: &str, host: H) -> Result<H::Hosted, SimError> {
        built_with(&[format!("policy={name}")], host)
    }

    /// `built`, given `params`.
    fn built_with<H: Host>(params: &[String], host: H) -> Result<H::Hosted, SimError> {
        let mut params = Params::parse(params).expect("parameters");
        let mut ctx = IoCtx::new();
        let footprint = Footprint { max_end: 1 << 30, ..Footprint::default() };
        let mut b = BuildContext::new(&mut params, footprint, 0, &mut ctx, &[]);
        let declared: &[&[ParamSpec]] =
            &[&[OFFERED], pore::PARAMS, super::super::lwa::PARAMS, &crate::geometry::GEOMETRY_PARAMS];
        b.construct(declared, |b| {
            let chosen = read(b, &OFFERED)?;
            let geometry = Geometry {
                host: "the test cache",
                slots: 64,
                block_bytes: 4096,
                bands: Some(BandLayout::fixed(1 << 20, 1 << 30)),
                write_buffer_bytes: Some(1 << 22),
                segment_blocks: Some(8),
            };
            build(&mut PolicySetup { b, spec: &OFFERED, geometry }, &chosen, host)
        })
    }

    /// Each row builds its own policy, and a name with no row is refused rather than built as
    /// some other policy (the SSD cache once built PORE for any name without an arm of its own).
    #[test]
    fn each_name_builds_its_own_policy() {
        let expected = [
            ("lru", "Recency"),
            ("lru-block", "Recency"),
            ("fifo", "Recency"),
            ("lru-band", "LruBand"),
            ("pore", "Pore"),
            ("lru-segment", "Segments"),
            ("most-blocks", "Segments"),
            ("lwa", "Lwa"),
        ];
        assert_eq!(expected.len(), POLICIES.len(), "every row is checked");
        for (name, type_name) in expected {
            assert_eq!(built(name, TypeName).expect("a row of the table"), type_name, "{name}");
        }
        let err = built("lfu", TypeName).expect_err("no row").to_string();
        assert!(err.contains("lfu is offered but not in kernel::policy::POLICIES"), "{err}");
        let err = built("mine.py:Mine", TypeName).expect_err("no source of Python policies").to_string();
        assert!(err.contains("mine.py:Mine is a Python policy"), "{err}");
    }

    /// The parameters of an offered policy are checked whichever policy is chosen.
    #[test]
    fn an_offered_policys_parameters_are_checked_for_any_choice() {
        let given = ["policy=lru".to_string(), "zone=20XB".to_string()];
        let err = built_with(&given, TypeName).expect_err("a bad zone").to_string();
        assert!(err.contains("'zone'") && err.contains("20XB"), "{err}");
        let given = ["policy=lru".to_string(), "zone=2MB".to_string()];
        assert_eq!(built_with(&given, TypeName).expect("a good zone, unused"), "Recency");
    }

    /// The orders the table's rows give: FIFO leaves a hit block in place, LRU moves it.
    #[test]
    fn lru_and_fifo_rows_order_differently() {
        for (name, first_victim) in [("lru", 1), ("fifo", 0)] {
            let mut policy = built(name, Boxed).expect("a row");
            for slot in 0..3 {
                policy.inserted(slot, slot as u64, false);
            }
            policy.hit(0, 0, false);
            let mut out = Vec::new();
            policy.victims(&[], &mut out);
            assert_eq!(out, [first_victim], "{name}");
        }
    }
}
