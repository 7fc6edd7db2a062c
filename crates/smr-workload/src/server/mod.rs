//! A Redis-protocol server over a store in this process, so real clients (redis-cli,
//! redis-benchmark, redis-py, go-redis and other client libraries) can use SMRDB. It speaks
//! RESP2, and RESP3 after HELLO 3, as Redis 6 and later do. Many connections at once on an
//! async runtime (tokio), pipelining (every complete command in a connection's buffer is run
//! as one batch, on a blocking thread, since store calls may wait for the device, and their
//! writes are stored as one write batch), MULTI/EXEC transactions applied atomically, and
//! graceful shutdown on SIGTERM or SIGINT, or when asked through a `Stop`: no new
//! connections, each connection finishes the batch it is running, then the store is synced
//! and closed.
//!
//! Bad input never crashes or hangs the server: a protocol error (a bad header, a length over
//! the limits, which are checked before anything is allocated) gets a RESP error and the
//! connection is closed, as Redis does; a client that disconnects mid-command is dropped; a
//! bad command (unknown, wrong arity, a malformed HELLO) gets Redis's error reply and the
//! connection goes on.
//!
//! Here: the listener, what connections share (`State`) and INFO. Elsewhere: one connection
//! (`connection`), what it remembers (`session`), running its commands and transactions
//! (`run`), the commands (`commands`), keys as a run sees them (`keyspace`), how a key's value
//! is kept in the store (`record`), SCAN cursors (`cursors`), MATCH patterns (`glob`).
//! Not at all: replication, publish/subscribe, data types other than strings and hashes.

mod commands;
mod connection;
mod cursors;
mod glob;
mod keyspace;
mod record;
mod run;
mod session;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::net::TcpListener;
use tokio::sync::{watch, Notify};
use tokio::task::JoinSet;

use crate::error::{Result, WorkloadError};
use crate::resp::Limits;
use crate::target::SharedStore;
use cursors::Cursors;

#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// `host:port` to listen on (port 0: any free port).
    pub address: String,
    pub limits: Limits,
    /// Bytes a connection's unparsed input may reach (a command in flight).
    pub max_query_buffer: usize,
    /// Sync every write before replying (as Redis's `appendfsync always`).
    pub sync_writes: bool,
    /// The store's calls wait for a device model's paced time: run batches on blocking
    /// threads (as with `sync_writes`), so waiting connections hold no runtime thread.
    pub store_waits: bool,
    /// Threads of the async runtime.
    pub threads: usize,
    /// Shut down on SIGTERM and SIGINT.
    pub handle_signals: bool,
    /// How long shutdown waits for connections to finish their batches.
    pub drain_timeout: Duration,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            address: "127.0.0.1:6379".into(),
            limits: Limits::default(),
            max_query_buffer: 64 << 20,
            sync_writes: false,
            store_waits: false,
            threads: 2,
            handle_signals: true,
            drain_timeout: Duration::from_secs(10),
        }
    }
}

/// Asks a running server to shut down, from any thread.
#[derive(Clone, Default)]
pub struct Stop(Arc<Notify>);

impl Stop {
    pub fn trigger(&self) {
        self.0.notify_one();
    }
}

/// What a server did, when it has stopped.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct ServeReport {
    pub connections: u64,
    pub commands: u64,
    /// Why it stopped: "SIGTERM", "SIGINT" or "stop".
    pub stopped_by: String,
}

/// What every connection shares.
pub(crate) struct State {
    store: Arc<SharedStore>,
    sync_writes: bool,
    /// Batches run on blocking threads (the store waits for a device), not the runtime's.
    blocking_batches: bool,
    limits: Limits,
    max_query_buffer: usize,
    cursors: Mutex<Cursors>,
    /// Held by a run of commands from its first write until its writes are stored, so no
    /// other connection's write comes between its reads and writes (`run`).
    writer: Mutex<()>,
    commands: AtomicU64,
    connections: AtomicU64,
    connected: AtomicU64,
    started: Instant,
    port: u16,
}

impl State {
    /// INFO's text: the sections asked for (all when none, or `all`, `everything`, `default`),
    /// with the fields client libraries read (`redis_version`, `redis_mode`, `role`) where
    /// Redis has them, and the store's counters in a section of its own.
    fn info(&self, sections: &[&[u8]]) -> String {
        use std::fmt::Write;
        let wanted = |name: &str| {
            sections.is_empty()
                || sections.iter().any(|s| {
                    [name, "all", "everything", "default"].iter().any(|n| s.eq_ignore_ascii_case(n.as_bytes()))
                })
        };
        let uptime = self.started.elapsed().as_secs();
        let mut text = String::new();
        let mut section = |name: &str, title: &str, fields: Vec<(String, String)>| {
            if wanted(name) {
                if !text.is_empty() {
                    text.push_str("\r\n");
                }
                let _ = write!(text, "# {title}\r\n");
                for (k, v) in fields {
                    let _ = write!(text, "{k}:{v}\r\n");
                }
            }
        };
        let field = |k: &str, v: &dyn std::fmt::Display| (k.to_string(), v.to_string());
        section(
            "server",
            "Server",
            vec![
                field("redis_version", &commands::REDIS_VERSION),
                field("smrdb_version", &env!("CARGO_PKG_VERSION")),
                field("redis_mode", &"standalone"),
                field("os", &std::env::consts::OS),
                field("arch_bits", &(usize::BITS)),
                field("process_id", &std::process::id()),
                field("tcp_port", &self.port),
                field("uptime_in_seconds", &uptime),
                field("uptime_in_days", &(uptime / 86_400)),
            ],
        );
        section("clients", "Clients", vec![field("connected_clients", &self.connected.load(Relaxed))]);
        section("replication", "Replication", vec![field("role", &"master"), field("connected_slaves", &0)]);
        section(
            "stats",
            "Stats",
            vec![
                field("total_connections_received", &self.connections.load(Relaxed)),
                field("total_commands_processed", &self.commands.load(Relaxed)),
            ],
        );
        let stats = self.store.with(|s| Ok(s.stats_json().as_object().cloned())).ok().flatten().unwrap_or_default();
        section(
            "store",
            "Store",
            stats.into_iter().map(|(k, v)| (k, v.to_string().trim_matches('"').to_string())).collect(),
        );
        text
    }
}

/// Serves `store` until a signal or `stop`; calls `ready` with the bound address once it
/// accepts connections. The store is synced and closed before this returns.
pub fn serve(
    store: Arc<SharedStore>,
    config: &ServerConfig,
    stop: Stop,
    ready: impl FnOnce(SocketAddr),
) -> Result<ServeReport> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.threads.max(1))
        .thread_name("smrdb-server")
        .enable_all()
        .build()
        .map_err(|e| WorkloadError::io("start the server's runtime", e))?;
    let listener = runtime.block_on(TcpListener::bind(&config.address)).map_err(|e| WorkloadError::Server {
        server: config.address.clone(),
        problem: format!("cannot listen: {e}"),
    })?;
    let address = listener.local_addr().map_err(|e| WorkloadError::io("read the listening address", e))?;
    let state = Arc::new(State {
        store,
        sync_writes: config.sync_writes,
        blocking_batches: config.sync_writes || config.store_waits,
        limits: config.limits,
        max_query_buffer: config.max_query_buffer,
        cursors: Mutex::new(Cursors::default()),
        writer: Mutex::new(()),
        commands: AtomicU64::new(0),
        connections: AtomicU64::new(0),
        connected: AtomicU64::new(0),
        started: Instant::now(),
        port: address.port(),
    });
    ready(address);
    let stopped_by = runtime.block_on(accept_until_stopped(
        listener,
        state.clone(),
        stop,
        config.handle_signals,
        config.drain_timeout,
    ))?;
    runtime.shutdown_timeout(Duration::from_secs(1));
    state.store.close()?;
    Ok(ServeReport { connections: state.connections.load(Relaxed), commands: state.commands.load(Relaxed), stopped_by })
}

async fn stop_signal(stop: Stop, handle_signals: bool) -> Result<String> {
    if !handle_signals {
        stop.0.notified().await;
        return Ok("stop".into());
    }
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).map_err(|e| WorkloadError::io("watch for SIGTERM", e))?;
    let mut int = signal(SignalKind::interrupt()).map_err(|e| WorkloadError::io("watch for SIGINT", e))?;
    Ok(tokio::select! {
        _ = term.recv() => "SIGTERM".into(),
        _ = int.recv() => "SIGINT".into(),
        _ = stop.0.notified() => "stop".into(),
    })
}

async fn accept_until_stopped(
    listener: TcpListener,
    state: Arc<State>,
    stop: Stop,
    handle_signals: bool,
    drain: Duration,
) -> Result<String> {
    let (closing_tx, closing_rx) = watch::channel(false);
    let mut connections = JoinSet::new();
    let stopped = stop_signal(stop, handle_signals);
    tokio::pin!(stopped);
    let reason = loop {
        tokio::select! {
            reason = &mut stopped => break reason?,
            accepted = listener.accept() => {
                // A failed accept (the peer gave up, too many open files) ends nothing else.
                if let Ok((socket, _)) = accepted {
                    let id = state.connections.fetch_add(1, Relaxed) + 1;
                    connections.spawn(connection::serve_connection(socket, state.clone(), id, closing_rx.clone()));
                }
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    };
    drop(listener);
    let _ = closing_tx.send(true);
    let _ = tokio::time::timeout(drain, async { while connections.join_next().await.is_some() {} }).await;
    Ok(reason)
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
