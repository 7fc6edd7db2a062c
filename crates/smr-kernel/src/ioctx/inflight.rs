//! Media commands in flight: what an I/O context keeps when commands overlap, because a batch
//! reached a device that queues (`IoCtx::batch`) or the engine overlaps requests and background
//! work (`overlapped`).
//!
//! Commands form chains, one per request or piece of background work: each command waits for
//! what its chain issued before it (`io`), the commands of a batch wait together and what comes
//! after waits for all of them (`batch`), a command may also wait for an earlier one of its
//! batch (`Command::after`), and a chain may wait for a piece of background work (`wait_for`).
//! A request's chain may instead be unordered (`begin_request` with a piece size): each of its
//! commands, split into pieces, waits for nothing, and the request ends with the last of them,
//! as a replayed translated trace's commands do. A timer (`begin_timer`, `end_timer`) measures
//! the commands issued while it runs, from when the first of them reaches its device (the
//! device takes it into its queue: fio's submission) to the end of the last of them.
//! A command whose wait is over joins its device's queue (`smr_media::DeviceQueue`); each
//! device serves one command at a time, chosen among those it holds, and its completion is an
//! event. Events are taken in time order (ties in the order they were made), so the run is
//! deterministic. A chain ends when its last command does: a request's end is its completion,
//! a background chain's end makes its handle finished.
//!
//! This module keeps the graph, the queues and the events; `Media` (in `ioctx`) times and counts
//! each command when it starts. Not here: which commands a system issues, or when requests arrive.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;
use smr_media::{Access, DeviceQueue};

use super::{ChannelId, Command, Media};

const NONE: u32 = u32::MAX;

/// A piece of background work in flight (`IoCtx::background`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Background(u64);

/// Whom a chain's end concerns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owner {
    /// The engine's request of this sequence number.
    Request(u64),
    Background(Background),
    /// A batch run to its end outside an overlapped replay.
    Batch,
}

#[derive(Clone, Copy, Debug)]
enum Work {
    Command {
        channel: ChannelId,
        access: Access,
    },
    /// Nothing to do: done once what it waits for is.
    Join,
    /// A join that, when done, adds the time since `started` (when the first command it waits
    /// for reached its device) to timer `timer`'s total.
    Timer {
        timer: u32,
        started: Option<u64>,
    },
}

#[derive(Clone, Copy, Debug)]
struct Node {
    work: Work,
    /// Commands and joins it still waits for.
    waiting: u32,
    /// First of the nodes waiting for it (`edges`).
    first_edge: u32,
    /// Its chain, or `NONE` (a command issued behind a request, which nobody waits for).
    chain: u32,
}

#[derive(Clone, Copy, Debug)]
struct Edge {
    to: u32,
    next: u32,
}

#[derive(Clone, Copy, Debug)]
struct Chain {
    owner: Owner,
    /// When its first command started, if one has.
    started: Option<u64>,
    /// The node whose completion ends it (`NONE` while it is being issued).
    end: u32,
}

/// A chain being issued: its id and the node what it issues next waits for.
#[derive(Clone, Copy, Debug)]
struct Builder {
    chain: u32,
    frontier: Option<u32>,
    /// An unordered chain: the join it ends with, and the largest piece a command is split into.
    unordered: Option<(u32, u64)>,
    /// The timer running while the chain is issued (`begin_timer`), whose join each command
    /// issued meanwhile joins.
    timer: Option<u32>,
}

/// A request whose chain ended: when its first command started and when it completed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Completed {
    pub seq: u64,
    pub started: u64,
    pub ended: u64,
}

/// Puts `item` in a free place of `items` (one of `free`, else a new one); returns its index.
fn place<T>(items: &mut Vec<T>, free: &mut Vec<u32>, item: T) -> u32 {
    match free.pop() {
        Some(id) => {
            items[id as usize] = item;
            id
        }
        None => {
            items.push(item);
            (items.len() - 1) as u32
        }
    }
}

/// The graph of commands in flight, the devices' queues and the pending completions.
#[derive(Default)]
pub(crate) struct InFlight {
    nodes: Vec<Node>,
    free_nodes: Vec<u32>,
    edges: Vec<Edge>,
    free_edges: Vec<u32>,
    chains: Vec<Chain>,
    free_chains: Vec<u32>,
    /// Chains being issued, innermost last (background work issued while a request is).
    building: Vec<Builder>,
    /// Per device: its queue, and the command it is serving.
    queues: Vec<DeviceQueue<u32>>,
    serving: Vec<Option<u32>>,
    /// Devices that may have become able to start a command.
    to_start: Vec<usize>,
    /// (completion time, order made, device) of every command being served.
    events: BinaryHeap<Reverse<(u64, u64, usize)>>,
    made: u64,
    /// Background work in flight: its end node.
    background: FxHashMap<Background, u32>,
    next_background: u64,
    /// Requests completed and not yet taken (`take_completed`).
    completed: Vec<Completed>,
    /// Each timer's total so far, nanoseconds (`begin_timer`).
    pub(crate) timed_ns: Vec<u64>,
    /// Commands a device took into its queue in the call being handled (`start_devices`).
    admitted: Vec<u32>,
    /// Whether, since last asked, background work finished or a device ran out of commands.
    pub(crate) background_finished: bool,
    pub(crate) went_idle: bool,
    /// Every command as served: its device, what it did, when it started and ended.
    #[cfg(test)]
    pub(crate) served: Vec<(usize, Access, u64, u64)>,
}

impl InFlight {
    fn node(&mut self, work: Work, chain: u32) -> u32 {
        place(&mut self.nodes, &mut self.free_nodes, Node { work, waiting: 0, first_edge: NONE, chain })
    }

    /// `to` waits for `from` as well.
    fn edge(&mut self, from: u32, to: u32) {
        let id = place(&mut self.edges, &mut self.free_edges, Edge { to, next: self.nodes[from as usize].first_edge });
        self.nodes[from as usize].first_edge = id;
        self.nodes[to as usize].waiting += 1;
    }

    fn chain(&mut self, owner: Owner) -> u32 {
        place(&mut self.chains, &mut self.free_chains, Chain { owner, started: None, end: NONE })
    }

    /// Starts issuing a chain for `owner`: what follows belongs to it until `end`.
    fn begin(&mut self, owner: Owner) {
        let chain = self.chain(owner);
        self.building.push(Builder { chain, frontier: None, unordered: None, timer: None });
    }

    /// Starts issuing request `seq`'s chain; with `pieces`, an unordered one whose commands are
    /// split into pieces of at most that many bytes (`unordered`).
    pub(crate) fn begin_request(&mut self, seq: u64, pieces: Option<u64>) {
        self.begin(Owner::Request(seq));
        if let Some(piece) = pieces {
            let b = self.builder().expect("the chain just begun");
            // The end join holds one wait of its own until the chain ends, so that it cannot
            // be done before every command has been issued.
            let end = self.node(Work::Join, b.chain);
            self.nodes[end as usize].waiting = 1;
            self.building.last_mut().expect("the chain just begun").unordered = Some((end, piece.max(1)));
        }
    }

    /// Starts timer `timer`: the commands the chain issues until `end_timer` join it.
    pub(crate) fn begin_timer(&mut self, timer: u32) {
        let Some(b) = self.builder() else { return };
        let node = self.node(Work::Timer { timer, started: None }, b.chain);
        // Its own wait, released by `end_timer`, keeps it from being done before then.
        self.nodes[node as usize].waiting = 1;
        self.building.last_mut().expect("a chain is being issued").timer = Some(node);
    }

    /// Stops the running timer: it is done when the last command issued since it started is
    /// (at once if there was none).
    pub(crate) fn end_timer(&mut self, media: &mut Media, now: u64) {
        let Some(node) = self.building.last_mut().and_then(|b| b.timer.take()) else { return };
        self.release_wait(media, node, now);
    }

    /// Gives up `node`'s own wait: it is done at `now` if nothing else holds it.
    fn release_wait(&mut self, media: &mut Media, node: u32, now: u64) {
        let n = &mut self.nodes[node as usize];
        n.waiting -= 1;
        if n.waiting == 0 {
            self.complete(media, node, now);
        }
    }

    /// `node` of the chain being issued joins the running timer, if one runs.
    fn join_timer(&mut self, node: u32) {
        if let Some(timer) = self.builder().and_then(|b| b.timer) {
            self.edge(node, timer);
        }
    }

    /// Starts issuing background work; `end_background` gives its handle.
    pub(crate) fn begin_background(&mut self) {
        let handle = Background(self.next_background);
        self.next_background += 1;
        self.begin(Owner::Background(handle));
    }

    fn builder(&self) -> Option<Builder> {
        self.building.last().copied()
    }

    fn set_frontier(&mut self, frontier: Option<u32>) {
        if let Some(b) = self.building.last_mut() {
            b.frontier = frontier;
        }
    }

    /// A command of the chain being issued (detached when none is), waiting for `waits`.
    fn command(&mut self, media: &mut Media, now: u64, command: &Command, chain: u32, waits: &[Option<u32>]) -> u32 {
        let work = Work::Command {
            channel: command.channel,
            access: Access { op: command.op, offset: command.offset, len: command.len },
        };
        let node = self.node(work, chain);
        for &from in waits.iter().flatten() {
            self.edge(from, node);
        }
        if self.nodes[node as usize].waiting == 0 {
            self.ready(media, node, now);
        }
        node
    }

    /// One command after everything the chain issued before it; in an unordered chain, its
    /// pieces after nothing, the chain's end after them.
    pub(crate) fn io(&mut self, media: &mut Media, now: u64, command: &Command) {
        let b = self.builder();
        if let Some((chain, (end, piece))) = b.and_then(|b| Some((b.chain, b.unordered?))) {
            let mut done = 0;
            while done < command.len || done == 0 {
                let len = piece.min(command.len - done);
                let part = Command { offset: command.offset + done, len, ..*command };
                let node = self.command(media, now, &part, chain, &[]);
                self.edge(node, end);
                self.join_timer(node);
                done += len.max(1);
            }
        } else {
            let (chain, frontier) = b.map_or((NONE, None), |b| (b.chain, b.frontier));
            let node = self.command(media, now, command, chain, &[frontier]);
            self.join_timer(node);
            self.set_frontier(Some(node));
        }
        self.start_devices(media, now);
    }

    /// One command after everything the chain issued before it, which the chain does not wait
    /// for.
    pub(crate) fn behind(&mut self, media: &mut Media, now: u64, command: &Command) {
        let frontier = self.builder().and_then(|b| b.frontier);
        self.command(media, now, command, NONE, &[frontier]);
        self.start_devices(media, now);
    }

    /// `commands`, issued together after everything the chain issued before them, each also
    /// after the earlier command of the batch it names; what the chain issues next waits for all.
    pub(crate) fn batch(&mut self, media: &mut Media, now: u64, commands: &[Command]) {
        let b = self.builder();
        let (chain, frontier) = b.map_or((NONE, None), |b| (b.chain, b.frontier));
        let join = self.node(Work::Join, chain);
        let mut ids = Vec::with_capacity(commands.len());
        for (i, command) in commands.iter().enumerate() {
            let after = command.after.map(|a| {
                assert!((a as usize) < i, "a command of a batch waits for an earlier one");
                ids[a as usize]
            });
            let node = self.command(media, now, command, chain, &[frontier, after]);
            self.edge(node, join);
            self.join_timer(node);
            ids.push(node);
        }
        self.set_frontier(if commands.is_empty() { frontier } else { Some(join) });
        if commands.is_empty() {
            self.release(join);
        }
        self.start_devices(media, now);
    }

    /// What the chain issues next waits for `work` as well (nothing if it has finished).
    pub(crate) fn wait_for(&mut self, work: Background) {
        let Some(&end) = self.background.get(&work) else { return };
        let Some(b) = self.builder() else { return };
        let join = self.node(Work::Join, b.chain);
        if let Some(frontier) = b.frontier {
            self.edge(frontier, join);
        }
        self.edge(end, join);
        self.set_frontier(Some(join));
    }

    /// A handle of background work that is already finished (work run at once).
    pub(crate) fn finished_handle(&mut self) -> Background {
        self.next_background += 1;
        Background(self.next_background - 1)
    }

    pub(crate) fn finished(&self, work: Background) -> bool {
        !self.background.contains_key(&work)
    }

    /// Ends the chain being issued at `now`: a request whose chain issued nothing completes at
    /// once, background work that issued nothing is finished. Returns the handle of background
    /// work.
    pub(crate) fn end(&mut self, media: &mut Media, now: u64) -> Option<Background> {
        self.end_timer(media, now);
        let b = self.building.pop().expect("a chain is being issued");
        let owner = self.chains[b.chain as usize].owner;
        if let Some((end, _)) = b.unordered {
            self.chains[b.chain as usize].end = end;
            self.release_wait(media, end, now);
            return None;
        }
        match b.frontier {
            Some(end) => {
                self.chains[b.chain as usize].end = end;
                if let Owner::Background(handle) = owner {
                    self.background.insert(handle, end);
                }
            }
            None => self.chain_done(b.chain, now),
        }
        match owner {
            Owner::Background(handle) => Some(handle),
            _ => None,
        }
    }

    /// Starts issuing a batch that is run to its end on its own.
    pub(crate) fn begin_batch(&mut self) {
        self.begin(Owner::Batch);
    }

    /// Whether device `device` has nothing in flight.
    pub(crate) fn device_idle(&self, device: usize) -> bool {
        self.serving.get(device).is_none_or(Option::is_none)
            && self.queues.get(device).is_none_or(DeviceQueue::is_empty)
    }

    /// When the next command completes, if any is being served.
    pub(crate) fn next_event(&self) -> Option<u64> {
        self.events.peek().map(|Reverse((t, _, _))| *t)
    }

    /// Takes the next completion (`next_event`): its command is done, what waited for it may
    /// go on, and the devices free by then start their next commands. Returns its time.
    pub(crate) fn step(&mut self, media: &mut Media) -> u64 {
        let Reverse((t, _, device)) = self.events.pop().expect("an event to take");
        let node = self.serving[device].take().expect("the device serves the command whose completion this is");
        self.complete(media, node, t);
        self.to_start.push(device);
        self.start_devices(media, t);
        if self.device_idle(device) {
            self.went_idle = true;
        }
        t
    }

    /// Runs every command in flight to its end; returns the time the last one ended (`now`
    /// if none was in flight).
    pub(crate) fn drain(&mut self, media: &mut Media, now: u64) -> u64 {
        let mut t = now;
        while self.next_event().is_some() {
            t = self.step(media);
        }
        t
    }

    /// Requests completed since last asked, in the order they completed.
    pub(crate) fn take_completed(&mut self, into: &mut Vec<Completed>) {
        into.append(&mut self.completed);
    }

    /// `node` may go on at `now`: a command joins its device's queue, a join is done.
    fn ready(&mut self, media: &mut Media, node: u32, now: u64) {
        match self.nodes[node as usize].work {
            Work::Command { channel, access } => {
                let device = media.device_index(channel);
                if self.queues.len() <= device {
                    self.queues.resize_with(device + 1, DeviceQueue::default);
                    self.serving.resize(device + 1, None);
                }
                self.queues[device].push(node, access);
                self.to_start.push(device);
            }
            Work::Join | Work::Timer { .. } => self.complete(media, node, now),
        }
    }

    /// `node` is done at `now`, and so is every join that then has nothing left to wait for.
    fn complete(&mut self, media: &mut Media, node: u32, now: u64) {
        let mut joins = vec![node];
        while let Some(n) = joins.pop() {
            self.finish_node(media, n, now, &mut joins);
        }
    }

    /// `node` is done at `now`: its chain may end, and what waited for it goes on (joins onto
    /// `joins`, to be finished in the same instant).
    fn finish_node(&mut self, media: &mut Media, node: u32, now: u64, joins: &mut Vec<u32>) {
        if let Work::Timer { timer, started } = self.nodes[node as usize].work {
            let timer = timer as usize;
            if self.timed_ns.len() <= timer {
                self.timed_ns.resize(timer + 1, 0);
            }
            self.timed_ns[timer] += now - started.unwrap_or(now);
        }
        let chain = self.nodes[node as usize].chain;
        if chain != NONE && self.chains[chain as usize].end == node {
            self.chain_done(chain, now);
        }
        let mut edge = self.nodes[node as usize].first_edge;
        while edge != NONE {
            let Edge { to, next } = self.edges[edge as usize];
            self.free_edges.push(edge);
            let waiter = &mut self.nodes[to as usize];
            waiter.waiting -= 1;
            if waiter.waiting == 0 {
                match waiter.work {
                    Work::Join | Work::Timer { .. } => joins.push(to),
                    Work::Command { .. } => self.ready(media, to, now),
                }
            }
            edge = next;
        }
        self.release(node);
    }

    fn release(&mut self, node: u32) {
        self.free_nodes.push(node);
    }

    fn chain_done(&mut self, chain: u32, now: u64) {
        let c = self.chains[chain as usize];
        match c.owner {
            Owner::Request(seq) => {
                self.completed.push(Completed { seq, started: c.started.unwrap_or(now), ended: now })
            }
            Owner::Background(handle) => {
                self.background.remove(&handle);
                self.background_finished = true;
            }
            Owner::Batch => {}
        }
        self.free_chains.push(chain);
    }

    /// Command `node` reached its device at `now`: a timer waiting for it that has not started
    /// starts.
    fn reached_device(&mut self, node: u32, now: u64) {
        let mut edge = self.nodes[node as usize].first_edge;
        while edge != NONE {
            let Edge { to, next } = self.edges[edge as usize];
            if let Work::Timer { started: started @ None, .. } = &mut self.nodes[to as usize].work {
                *started = Some(now);
            }
            edge = next;
        }
    }

    /// Every device named in `to_start` that is free starts its next command at `now`.
    fn start_devices(&mut self, media: &mut Media, now: u64) {
        while let Some(device) = self.to_start.pop() {
            let admitted = &mut self.admitted;
            if self.serving[device].is_some() {
                // Busy: it takes in what it has room for, and chooses when it is free.
                self.queues[device].admit(media.medium(device), 1, |&node| admitted.push(node));
                while let Some(node) = self.admitted.pop() {
                    self.reached_device(node, now);
                }
                continue;
            }
            let next = self.queues[device].next_admitting(media.medium(device), now, |&node| admitted.push(node));
            while let Some(node) = self.admitted.pop() {
                self.reached_device(node, now);
            }
            let Some((node, access)) = next else { continue };
            let Work::Command { channel, .. } = self.nodes[node as usize].work else {
                unreachable!("only commands are queued")
            };
            let service = media.serve(channel, now, access.op, access.offset, access.len);
            self.serving[device] = Some(node);
            #[cfg(test)]
            self.served.push((device, access, now, now + service));
            self.events.push(Reverse((now + service, self.made, device)));
            self.made += 1;
            let chain = self.nodes[node as usize].chain;
            if chain != NONE {
                self.chains[chain as usize].started.get_or_insert(now);
            }
        }
    }
}
