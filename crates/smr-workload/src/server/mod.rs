//! A Redis-protocol (RESP2) server over a store in this process, so real clients (redis-cli,
//! redis-benchmark, client libraries) can use SMRDB. Many connections at once on an async
//! runtime (tokio), pipelining (every complete command in a connection's buffer is run as one
//! batch, on a blocking thread, since store calls may wait for the device), and graceful
//! shutdown on SIGTERM or SIGINT, or when asked through a `Stop`: no new connections, each
//! connection finishes the batch it is running, then the store is synced and closed.
//!
//! Bad input never crashes or hangs the server: a protocol error (a bad header, a length over
//! the limits, which are checked before anything is allocated) gets a RESP error and the
//! connection is closed, as Redis does; a client that disconnects mid-command is dropped.
//!
//! Not here: the commands themselves (`commands`), SCAN cursors (`cursors`), MATCH patterns
//! (`glob`); expiry, data types other than strings, transactions, replication.

mod commands;
mod connection;
mod cursors;
mod glob;

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
    /// Threads of the async runtime.
    pub threads: usize,
    /// Shut down on SIGTERM and SIGINT.
    pub handle_signals: bool,
    /// How long shutdown waits for connections to finish their batches.
    pub drain_timeout: Duration,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig { address: "127.0.0.1:6379".into(), limits: Limits::default(), max_query_buffer: 64 << 20, sync_writes: false, threads: 2, handle_signals: true, drain_timeout: Duration::from_secs(10) }
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
    limits: Limits,
    max_query_buffer: usize,
    cursors: Mutex<Cursors>,
    /// Held by conditional writes (SET NX / XX, DEL counting, FLUSHDB) across check and write.
    conditional: Mutex<()>,
    commands: AtomicU64,
    connections: AtomicU64,
    connected: AtomicU64,
    started: Instant,
    port: u16,
}

impl State {
    /// Runs `f` on the store, or fails if the store is already closed (shutdown).
    fn with_store<T>(&self, f: impl FnOnce(&dyn crate::target::Store) -> smrdb::Result<T>) -> smrdb::Result<T> {
        self.store.with(f)
    }

    fn info(&self) -> String {
        let mut text = format!(
            "# Server\r\nsmrdb_version:{}\r\nprocess_id:{}\r\ntcp_port:{}\r\nuptime_in_seconds:{}\r\n\r\n# Clients\r\nconnected_clients:{}\r\n\r\n# Stats\r\ntotal_connections_received:{}\r\ntotal_commands_processed:{}\r\n\r\n# Store\r\n",
            env!("CARGO_PKG_VERSION"),
            std::process::id(),
            self.port,
            self.started.elapsed().as_secs(),
            self.connected.load(Relaxed),
            self.connections.load(Relaxed),
            self.commands.load(Relaxed),
        );
        if let Ok(Some(stats)) = self.with_store(|s| Ok(s.stats_json().as_object().cloned())) {
            for (k, v) in stats {
                text.push_str(&format!("{k}:{}\r\n", v.to_string().trim_matches('"')));
            }
        }
        text
    }
}

/// Serves `store` until a signal or `stop`; calls `ready` with the bound address once it
/// accepts connections. The store is synced and closed before this returns.
pub fn serve(store: Arc<SharedStore>, config: &ServerConfig, stop: Stop, ready: impl FnOnce(SocketAddr)) -> Result<ServeReport> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.threads.max(1))
        .thread_name("smrdb-server")
        .enable_all()
        .build()
        .map_err(|e| WorkloadError::io("start the server's runtime", e))?;
    let listener = runtime
        .block_on(TcpListener::bind(&config.address))
        .map_err(|e| WorkloadError::Server { server: config.address.clone(), problem: format!("cannot listen: {e}") })?;
    let address = listener.local_addr().map_err(|e| WorkloadError::io("read the listening address", e))?;
    let state = Arc::new(State {
        store,
        sync_writes: config.sync_writes,
        limits: config.limits,
        max_query_buffer: config.max_query_buffer,
        cursors: Mutex::new(Cursors::default()),
        conditional: Mutex::new(()),
        commands: AtomicU64::new(0),
        connections: AtomicU64::new(0),
        connected: AtomicU64::new(0),
        started: Instant::now(),
        port: address.port(),
    });
    ready(address);
    let stopped_by = runtime.block_on(accept_until_stopped(listener, state.clone(), stop, config.handle_signals, config.drain_timeout))?;
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

async fn accept_until_stopped(listener: TcpListener, state: Arc<State>, stop: Stop, handle_signals: bool, drain: Duration) -> Result<String> {
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
                    state.connections.fetch_add(1, Relaxed);
                    connections.spawn(connection::serve_connection(socket, state.clone(), closing_rx.clone()));
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
