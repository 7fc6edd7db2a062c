//! Running a connection's commands: the pipelined commands that arrived together, and the
//! transactions among them.
//!
//! Commands run in order, each replying at once, but their writes are stored together: a
//! *segment* (the commands since the last store) holds its writes in a `Keyspace` and stores
//! them as one batch when the arrival ends, when they pass `SEGMENT_BYTES`, and before a
//! command that must come after them (MULTI, EXEC, DISCARD, QUIT, WATCH, FLUSHDB). So a
//! pipeline of N SETs costs the store one write, and, with `--sync`, one sync (replies leave
//! only after it). From a segment's first write to its store, the segment holds the server's
//! writer lock, so no other connection's write interleaves with its reads and writes (INCR,
//! SET NX, HSET, a transaction's commands are atomic); reads of other connections go on.
//!
//! MULTI queues the commands that follow (replying QUEUED, or an error for an unknown command
//! or a wrong arity, which makes EXEC discard the transaction, as in Redis); EXEC runs them as
//! one segment under the writer lock, so they are applied atomically as one batch; DISCARD
//! drops them. WATCH is refused: transactions here need no optimistic locking.
//!
//! When the store refuses a segment's batch as invalid (a key or value over its limits, or a
//! batch larger than a log band), nothing of it was stored: its commands are run again one at
//! a time, each stored alone, so only the offending command answers the error. Any other store
//! error fails every command of the segment. A transaction larger than a log band is
//! therefore stored command by command, and FLUSHDB within one stores its own batches.

use std::sync::MutexGuard;

use super::commands::{self, Control, Ctx, Kind, Spec};
use super::keyspace::Keyspace;
use super::session::{Session, Transaction};
use super::State;
use crate::resp::{Protocol, Replies};

/// Whether the connection goes on after its commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// Bytes of writes after which a pipeline's segment is stored before the next command.
const SEGMENT_BYTES: usize = 64 << 10;

/// Milliseconds since the Unix epoch: the clock times to live are kept on.
fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// Runs `commands` (each a name and its arguments), appending their replies to `out`.
pub fn run(state: &State, session: &mut Session, out: &mut Replies, commands: &[&[&[u8]]]) -> Flow {
    let mut runner = Runner::new(state);
    for (i, args) in commands.iter().enumerate() {
        let spec = commands::lookup(args[0]);
        if let Some(spec @ Spec { kind: Kind::Control(control), .. }) = spec {
            runner.store(session, out, commands);
            if runner.control(session, out, spec, *control, args) == Flow::Quit {
                return Flow::Quit;
            }
        } else if let Some(txn) = &mut session.transaction {
            queue(state, txn, out, spec, args);
        } else {
            runner.run(session, out, commands, i);
            if runner.keys.pending_bytes() >= SEGMENT_BYTES {
                runner.store(session, out, commands);
            }
        }
    }
    runner.store(session, out, commands);
    Flow::Continue
}

/// Adds a command to a transaction, or refuses it (and with it the transaction).
fn queue(state: &State, txn: &mut Transaction, out: &mut Replies, spec: Option<&Spec>, args: &[&[u8]]) {
    let bytes: usize = args.iter().map(|a| a.len()).sum();
    match spec {
        None => commands::unknown_command(out, args),
        Some(s) if !s.arity_ok(args.len()) => commands::wrong_arity(out, s.name),
        Some(_) if txn.bytes + bytes > state.max_query_buffer => {
            out.error(&format!("ERR a transaction may queue at most {} bytes of commands", state.max_query_buffer));
        }
        Some(_) => {
            txn.bytes += bytes;
            txn.queued.push(args.iter().map(|a| a.to_vec()).collect());
            out.simple("QUEUED");
            return;
        }
    }
    txn.refused = true;
}

/// A commit that the store refused as a whole without storing anything, which storing its
/// commands one at a time can get past.
fn refused_as_invalid(e: &smrdb::Error) -> bool {
    matches!(
        e,
        smrdb::Error::KeyTooLarge { .. } | smrdb::Error::ValueTooLarge { .. } | smrdb::Error::BatchTooLarge { .. }
    )
}

struct Runner<'s> {
    state: &'s State,
    keys: Keyspace<'s>,
    /// The commands since the last store, as their places in the list being run, and where
    /// each one's reply starts.
    segment: Vec<(usize, usize)>,
    /// The connection's protocol when the segment started (HELLO may change it).
    protocol: Protocol,
    /// The writer lock, held from the segment's first write to its store.
    writer: Option<MutexGuard<'s, ()>>,
}

impl<'s> Runner<'s> {
    fn new(state: &'s State) -> Runner<'s> {
        Runner {
            state,
            keys: Keyspace::new(&state.store, state.sync_writes, now_ms()),
            segment: Vec::new(),
            protocol: Protocol::Resp2,
            writer: None,
        }
    }

    fn lock_writer(&mut self) {
        if self.writer.is_none() {
            self.writer = Some(self.state.writer.lock().unwrap_or_else(|p| p.into_inner()));
        }
    }

    /// Runs `list[i]` as the next command of the segment.
    fn run(&mut self, session: &mut Session, out: &mut Replies, list: &[&[&[u8]]], i: usize) {
        let spec = commands::lookup(list[i][0]);
        let alone = matches!(spec, Some(Spec { kind: Kind::Alone(_), .. }));
        if alone {
            self.store(session, out, list);
        }
        if self.segment.is_empty() {
            self.protocol = out.protocol;
        }
        self.segment.push((i, out.mark()));
        self.dispatch(session, out, spec, list[i]);
        if alone {
            self.store(session, out, list);
        }
    }

    /// Runs a command (not a control one) and writes its reply.
    fn dispatch(&mut self, session: &mut Session, out: &mut Replies, spec: Option<&Spec>, args: &[&[u8]]) {
        let Some(spec) = spec else {
            commands::unknown_command(out, args);
            return;
        };
        if !spec.arity_ok(args.len()) {
            commands::wrong_arity(out, spec.name);
            return;
        }
        let handler = match spec.kind {
            Kind::Read(h) => h,
            Kind::Write(h) | Kind::Alone(h) => {
                self.lock_writer();
                h
            }
            Kind::Control(_) => unreachable!("the runner carries out control commands itself"),
        };
        let mark = out.mark();
        let mut ctx = Ctx { state: self.state, session, keys: &mut self.keys, out };
        if let Err(e) = handler(&mut ctx, &args[1..]) {
            out.truncate(mark);
            out.error(&format!("ERR {e}"));
        }
    }

    /// Stores the segment's writes (commands of `list`) as one batch, then releases the
    /// writer lock.
    fn store(&mut self, session: &mut Session, out: &mut Replies, list: &[&[&[u8]]]) {
        if let Err(e) = self.keys.commit() {
            let segment = std::mem::take(&mut self.segment);
            out.truncate(segment[0].1);
            out.protocol = self.protocol;
            if segment.len() > 1 && refused_as_invalid(&e) {
                for &(i, _) in &segment {
                    let mark = out.mark();
                    self.dispatch(session, out, commands::lookup(list[i][0]), list[i]);
                    if let Err(e) = self.keys.commit() {
                        out.truncate(mark);
                        out.error(&format!("ERR {e}"));
                    }
                }
            } else {
                segment.iter().for_each(|_| out.error(&format!("ERR {e}")));
            }
        }
        self.segment.clear();
        self.writer = None;
    }

    fn control(
        &mut self,
        session: &mut Session,
        out: &mut Replies,
        spec: &Spec,
        control: Control,
        args: &[&[u8]],
    ) -> Flow {
        if !spec.arity_ok(args.len()) {
            match (control, &mut session.transaction) {
                // As Redis: an EXEC refused in a transaction ends it, saying why.
                (Control::Exec, Some(_)) => {
                    session.transaction = None;
                    out.error(&format!(
                        "EXECABORT Transaction discarded because of: wrong number of arguments for '{}' command",
                        spec.name
                    ));
                }
                (_, txn) => {
                    if let Some(txn) = txn {
                        txn.refused = true;
                    }
                    commands::wrong_arity(out, spec.name);
                }
            }
            return Flow::Continue;
        }
        match (control, session.transaction.is_some()) {
            (Control::Quit, _) => {
                out.ok();
                return Flow::Quit;
            }
            (Control::Multi, false) => {
                session.transaction = Some(Transaction::default());
                out.ok();
            }
            (Control::Multi, true) => out.error("ERR MULTI calls can not be nested"),
            (Control::Exec | Control::Discard, false) => out.error(&format!("ERR {} without MULTI", spec.name.to_uppercase())),
            (Control::Discard, true) => {
                session.transaction = None;
                out.ok();
            }
            (Control::Exec, true) => self.exec(session, out),
            (Control::Watch, true) => out.error("ERR WATCH inside MULTI is not allowed"),
            (Control::Watch, false) => out.error("ERR WATCH is not supported: MULTI/EXEC transactions here always run atomically, without optimistic locking"),
        }
        Flow::Continue
    }

    /// EXEC: the queued commands as one segment, under the writer lock from the start, so
    /// they read and write as if alone and are stored as one batch.
    fn exec(&mut self, session: &mut Session, out: &mut Replies) {
        let Some(txn) = session.transaction.take() else { return };
        if txn.refused {
            out.error("EXECABORT Transaction discarded because of previous errors.");
            return;
        }
        let args: Vec<Vec<&[u8]>> = txn.queued.iter().map(|c| c.iter().map(Vec::as_slice).collect()).collect();
        let list: Vec<&[&[u8]]> = args.iter().map(Vec::as_slice).collect();
        if list.iter().filter_map(|args| commands::lookup(args[0])).any(Spec::writes) {
            self.lock_writer();
        }
        out.array(list.len());
        for i in 0..list.len() {
            self.run(session, out, &list, i);
        }
        self.store(session, out, &list);
    }
}
