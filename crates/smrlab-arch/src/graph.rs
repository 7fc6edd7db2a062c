//! The arrows between a crate's top-level modules: a path written in module `a::x` that reaches
//! `b::...` (through `crate::`, `self::` or any number of `super::`) is an arrow from `a` to
//! `b`. A path reaching an item the crate root re-exports (`crate::Engine` where lib.rs has
//! `pub use kernel::Engine`) is an arrow to the module it comes from. The crate root itself
//! declares every module and is not a node. Not here: reading files (`tree`, `read`).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::tree::SourceFile;

/// Modules that reach one another: all of them, and one cycle through them to show.
#[derive(Debug, PartialEq)]
pub struct Circle {
    pub members: Vec<String>,
    /// A shortest cycle from the first member back to it, e.g. `["db", "recovery", "db"]`.
    pub cycle: Vec<String>,
}

/// Top-level module -> the modules it reaches, each with one place that shows it.
pub struct ModuleGraph {
    pub arrows: BTreeMap<String, BTreeMap<String, String>>,
}

impl ModuleGraph {
    /// The graph of the files of one crate, or a message naming a `super::` that climbs past the
    /// crate root.
    pub fn of(files: &[SourceFile]) -> Result<Self, String> {
        let modules: BTreeSet<String> = files
            .iter()
            .flat_map(|f| &f.facts.out_of_line)
            .filter(|m| m.module.len() == 1)
            .map(|m| m.module[0].clone())
            .collect();
        let reexports = root_reexports(files, &modules);
        let mut arrows: BTreeMap<String, BTreeMap<String, String>> =
            modules.iter().map(|m| (m.clone(), BTreeMap::new())).collect();
        for file in files {
            for written in &file.facts.written {
                let Some(from) = written.module.first() else { continue };
                let Some(reached) =
                    resolve(&written.module, &written.segments).map_err(|e| format!("{}: {e}", file.path.display()))?
                else {
                    continue;
                };
                let Some(first) = reached.first() else { continue };
                let to = if modules.contains(first) {
                    first
                } else if let Some(origin) = reexports.get(first) {
                    origin
                } else {
                    continue;
                };
                if to != from {
                    let evidence = format!("{}: {}", file.path.display(), written.segments.join("::"));
                    arrows.entry(from.clone()).or_default().entry(to.clone()).or_insert(evidence);
                }
            }
        }
        Ok(ModuleGraph { arrows })
    }

    /// Each circle: the largest set of modules that reach one another, and one cycle through it.
    pub fn circles(&self) -> Vec<Circle> {
        let reach: BTreeMap<&str, BTreeSet<&str>> =
            self.arrows.keys().map(|m| (m.as_str(), self.reachable(m))).collect();
        let mut seen = BTreeSet::new();
        let mut circles = Vec::new();
        for (module, reached) in &reach {
            if seen.contains(module) || !reached.contains(module) {
                continue;
            }
            let members: BTreeSet<&str> =
                reached.iter().copied().filter(|other| reach[other].contains(module)).collect();
            seen.extend(members.iter().copied());
            let cycle = self.cycle_through(module, &members);
            circles.push(Circle { members: members.iter().map(|m| m.to_string()).collect(), cycle });
        }
        circles
    }

    /// The modules reachable from `start` by one arrow or more.
    fn reachable(&self, start: &str) -> BTreeSet<&str> {
        let mut reached = BTreeSet::new();
        let mut queue: VecDeque<&str> = self.next(start).collect();
        while let Some(module) = queue.pop_front() {
            if reached.insert(module) {
                queue.extend(self.next(module));
            }
        }
        reached
    }

    fn next<'a>(&'a self, module: &str) -> impl Iterator<Item = &'a str> {
        self.arrows.get(module).into_iter().flat_map(|to| to.keys().map(String::as_str))
    }

    /// A shortest cycle from `start` back to it inside `members`.
    fn cycle_through(&self, start: &str, members: &BTreeSet<&str>) -> Vec<String> {
        let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = VecDeque::from([start]);
        while let Some(module) = queue.pop_front() {
            for next in self.next(module).filter(|n| members.contains(n)) {
                if next == start {
                    let mut cycle = vec![start.to_string(), module.to_string()];
                    let mut at = module;
                    while at != start {
                        at = came_from[at];
                        cycle.push(at.to_string());
                    }
                    cycle.reverse();
                    cycle.dedup();
                    if cycle.len() == 1 {
                        cycle.push(start.to_string());
                    }
                    return cycle;
                }
                if !came_from.contains_key(next) {
                    came_from.insert(next, module);
                    queue.push_back(next);
                }
            }
        }
        unreachable!("{start} is in a circle, so it reaches itself")
    }

    /// The place that shows the arrow `from` -> `to`.
    pub fn evidence(&self, from: &str, to: &str) -> &str {
        &self.arrows[from][to]
    }
}

/// Names the crate root brings in from its own modules (`pub use kernel::{Engine, ...}`): name
/// -> the top-level module it comes from.
fn root_reexports(files: &[SourceFile], modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let root = files.iter().flat_map(|f| &f.facts.written).filter(|w| w.module.is_empty());
    root.filter_map(|w| {
        let segments: Vec<&String> = w.segments.iter().skip_while(|s| *s == "crate" || *s == "self").collect();
        let (first, last) = (segments.first()?, segments.last()?);
        (segments.len() > 1 && modules.contains(*first)).then(|| (last.to_string(), first.to_string()))
    })
    .collect()
}

/// The absolute module path a path written in `module` reaches, `None` for a path that does not
/// start at this crate (`std::...`, another crate, a name imported into scope), or an error for a
/// `super` above the root.
pub fn resolve(module: &[String], segments: &[String]) -> Result<Option<Vec<String>>, String> {
    let mut at: Vec<String> = match segments.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("self" | "super") => module.to_vec(),
        _ => return Ok(None),
    };
    let skip = usize::from(segments[0] == "crate");
    let mut rest = segments[skip..].iter().peekable();
    while let Some(segment) = rest.next_if(|s| *s == "self" || *s == "super") {
        if segment == "super" && at.pop().is_none() {
            return Err(format!(
                "`{}` climbs above the crate root from module `{}`",
                segments.join("::"),
                module.join("::")
            ));
        }
    }
    at.extend(rest.cloned());
    Ok(Some(at))
}
