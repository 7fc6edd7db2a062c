//! The schemes of the FluidSMR paper, each selectable by name: what each starts from and which
//! mechanisms it runs. Every row is a combination of the same mechanisms, so a baseline differs
//! from FluidSMR only where the paper says it does.
//!
//! | scheme | converted at start | cache policy | zone swapping | format adaptation |
//! |---|---|---|---|---|
//! | `recency` (§2.4) | 0 | none | an accessed SMR zone swaps with the least recently accessed CMR zone | no |
//! | `frequency` (§2.4) | 0 | none | by accesses, every 24 h | no |
//! | `swap-only` (§2.4, §7.1) | 0 | none | by NSWs, every 24 h | no |
//! | `+cache-fix` (§7.1) | 20 % | block LRU | by NSWs, every 24 h | no |
//! | `format-adapt` (§7.1) | 20 % | block LRU | by NSWs, every 24 h | Algorithm 1 (its swaps and conversions), adaptive window |
//! | `imprv-lru` (§7.3) | 20 % | improved block LRU | by NSWs, every 24 h | Algorithm 1 |
//! | `fifo` (§7.3) | 20 % | in-place FIFO log | by NSWs, every 24 h | Algorithm 1 |
//! | `loop-back` (§7.3) | 20 % | loop-back log | by NSWs, every 24 h | Algorithm 1 |
//! | `fluid-smr` | 20 % | loop-back log | occupancy swapping (§6.2) | Algorithm 1 |
//! | `fix-0.2` .. `fix-0.8` (§7.2) | 20 .. 80 % | block LRU | Algorithm 1's swaps alone (NSW-Range) | no |
//! | `adapt` (§7.2) | 0 | block LRU | none beyond Algorithm 1's | Algorithm 1 |
//! | `pure-cmr` | every zone CMR, the partition's size ignored | none | none | no |
//!
//! "Converted at start" is the share of the CMR area left at the minimum SMR area that is
//! converted to SMR to make room for the cache (§7.1, §7.2). Each scheme of §7.1 keeps every
//! mechanism of the one it is built on: +cache-fix is "In addition to swap" (swap-only's
//! NSW-frequency swapping), format-adapt "On top of +cache-fix" adds Algorithm 1, and §7.3's
//! steps change only the cache policy ("on top of format-adapt we apply the improved block-based
//! LRU policy"). fluid-smr "adopt[s] the more efficient occupancy-based zone-swapping" (§7.3) in
//! place of the NSW-frequency swapping, which §2.4 tests as a preliminary and §3.2 does not list
//! among FluidSMR's components; §6.2's swapping is "in complement to the zone swapping described
//! in Section 5", Algorithm 1's, which it keeps. Choice where the paper is silent: format-adapt,
//! the §7.3 ablation steps and fluid-smr start from +cache-fix's 20 % (only §7.2's `adapt` is
//! said to start with no cache).

/// How zones are swapped between CMR and SMR besides format adaptation's own swaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Swapping {
    None,
    /// §2.4: an accessed SMR zone swaps at once with the least recently accessed CMR zone.
    Recency,
    /// §2.4: every window of `window_max`, zones ranked by accesses.
    Frequency,
    /// §2.4: every window of `window_max`, zones ranked by NSWs.
    NswFrequency,
    /// Algorithm 1's swaps (lines 5-16) on its adaptive window; with format adaptation on, the
    /// same as `None` (Algorithm 1 swaps anyway).
    NswRange,
}

/// Which cache policy orders the CMR cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    None,
    BlockLru,
    ImprovedLru,
    Fifo,
    LoopBack,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scheme {
    pub name: &'static str,
    pub convert: f64,
    pub policy: Policy,
    pub swapping: Swapping,
    pub adapt: bool,
    pub occupancy_swap: bool,
    pub pure_cmr: bool,
}

impl Scheme {
    /// Whether Algorithm 1 runs at the end of each adaptive window: in full (format
    /// adaptation), or its swaps alone (the fixed formats of §7.2).
    pub fn runs_algorithm1(&self) -> bool {
        self.adapt || self.swapping == Swapping::NswRange
    }

    /// Whether zones are ranked by their counts at the end of each fixed window (§2.4).
    pub fn ranks_by_counts(&self) -> bool {
        matches!(self.swapping, Swapping::Frequency | Swapping::NswFrequency)
    }
}

const fn row(name: &'static str, convert: f64, policy: Policy, swapping: Swapping, adapt: bool) -> Scheme {
    Scheme { name, convert, policy, swapping, adapt, occupancy_swap: false, pure_cmr: false }
}

pub const SCHEMES: &[Scheme] = &[
    row("recency", 0.0, Policy::None, Swapping::Recency, false),
    row("frequency", 0.0, Policy::None, Swapping::Frequency, false),
    row("swap-only", 0.0, Policy::None, Swapping::NswFrequency, false),
    row("+cache-fix", 0.2, Policy::BlockLru, Swapping::NswFrequency, false),
    row("format-adapt", 0.2, Policy::BlockLru, Swapping::NswFrequency, true),
    row("imprv-lru", 0.2, Policy::ImprovedLru, Swapping::NswFrequency, true),
    row("fifo", 0.2, Policy::Fifo, Swapping::NswFrequency, true),
    row("loop-back", 0.2, Policy::LoopBack, Swapping::NswFrequency, true),
    Scheme { occupancy_swap: true, ..row("fluid-smr", 0.2, Policy::LoopBack, Swapping::NswRange, true) },
    row("fix-0.2", 0.2, Policy::BlockLru, Swapping::NswRange, false),
    row("fix-0.4", 0.4, Policy::BlockLru, Swapping::NswRange, false),
    row("fix-0.6", 0.6, Policy::BlockLru, Swapping::NswRange, false),
    row("fix-0.8", 0.8, Policy::BlockLru, Swapping::NswRange, false),
    row("adapt", 0.0, Policy::BlockLru, Swapping::NswRange, true),
    Scheme { pure_cmr: true, ..row("pure-cmr", 0.0, Policy::None, Swapping::None, false) },
];

/// The names, for the `scheme` parameter (`cache-fix` also answers for `+cache-fix`).
pub const NAMES: &[&str] = &[
    "recency",
    "frequency",
    "swap-only",
    "+cache-fix",
    "cache-fix",
    "format-adapt",
    "imprv-lru",
    "fifo",
    "loop-back",
    "fluid-smr",
    "fix-0.2",
    "fix-0.4",
    "fix-0.6",
    "fix-0.8",
    "adapt",
    "pure-cmr",
];

/// The scheme called `name` (one of `NAMES`).
pub fn by_name(name: &str) -> Scheme {
    let name = if name == "cache-fix" { "+cache-fix" } else { name };
    *SCHEMES.iter().find(|s| s.name == name).expect("scheme names are checked by the parameter's choice")
}

pub const POLICY_NAMES: &[&str] = &["none", "lru", "imprv-lru", "fifo", "loop-back"];

pub fn policy_by_name(name: &str) -> Policy {
    match name {
        "lru" => Policy::BlockLru,
        "imprv-lru" => Policy::ImprovedLru,
        "fifo" => Policy::Fifo,
        "loop-back" => Policy::LoopBack,
        _ => Policy::None,
    }
}

pub const SWAPPING_NAMES: &[&str] = &["none", "recency", "frequency", "nsw-frequency", "nsw-range"];

pub fn swapping_by_name(name: &str) -> Swapping {
    match name {
        "recency" => Swapping::Recency,
        "frequency" => Swapping::Frequency,
        "nsw-frequency" => Swapping::NswFrequency,
        "nsw-range" => Swapping::NswRange,
        _ => Swapping::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_has_a_scheme() {
        for name in NAMES {
            assert!(by_name(name).name.trim_start_matches('+') == name.trim_start_matches('+'), "{name}");
        }
        assert_eq!(NAMES.len(), SCHEMES.len() + 1);
    }
}
