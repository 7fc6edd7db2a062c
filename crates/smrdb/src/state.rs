//! The plain store's shared state: what its writing threads, its background thread (`background`)
//! and opening (`recovery`) all reach into. The locks and what each guards are described in
//! `db`'s module comment; the operations on this state live beside the work they do (`db`: the
//! write path, `background`: flushes and compactions, `recovery`: opening). Not here: any of
//! those operations, or the offloading store's state (`offload`).

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use crate::env::Env;
use crate::guarded::{CurrentState, Guarded, Standing};
use crate::log::writer::LogWriter;
use crate::memtable::MemTable;
use crate::options::{Geometry, Limits, Options};
use crate::table::builder::TableShape;
use crate::version::Version;

pub(crate) struct Writer {
    pub log: LogWriter,
    /// Last sequence number handed out.
    pub last_sequence: u64,
}

pub(crate) struct Current {
    pub mem: Arc<MemTable>,
    pub imm: Option<Arc<MemTable>>,
    /// The last sequence number the memtable `imm` holds (the table made of it holds no more).
    pub imm_last_sequence: u64,
    pub version: Arc<Version>,
    /// Last sequence number readers may see.
    pub visible_sequence: u64,
    /// Closing, or failed in the background.
    pub standing: Standing,
    /// Manual compactions asked for and done.
    pub manual_requested: u64,
    pub manual_done: u64,
}

pub(crate) struct Inner {
    pub env: Arc<Env>,
    pub options: Options,
    pub geometry: Geometry,
    pub limits: Limits,
    pub shape: TableShape,
    pub guarded: Guarded<Writer, Current>,
    pub next_table_id: AtomicU64,
    /// LOC compaction pointers, as in the last metadata record; a leaf lock (nothing else is
    /// locked while it is held), so compactions can be picked under `current`.
    pub pointers: Mutex<Vec<(u32, Vec<u8>)>>,
    /// Held for each flush or compaction step, so two threads never do the same work (inline
    /// mode lets every writing thread step). Taken after `writer`, before `meta`.
    pub stepping: Mutex<()>,
}

impl CurrentState for Current {
    fn standing(&mut self) -> &mut Standing {
        &mut self.standing
    }
}
