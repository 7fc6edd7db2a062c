//! One client connection: read what arrives, parse every complete command, run them as one
//! batch, write the replies, repeat. Pipelined commands therefore cost one pass per batch, not
//! per command, and their writes are stored together (`run`). A batch runs on the runtime's
//! own thread, as Redis runs commands on its event loop, unless the store's calls wait for a
//! device (a paced disk model, or a sync per write): then on a blocking thread, so the
//! runtime goes on serving other connections meanwhile. What the connection remembers between batches (its
//! protocol version, name and open transaction) travels with the batch.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::watch;

use super::run::{run, Flow};
use super::session::Session;
use super::State;
use crate::resp::{parse_command, Args, Replies};

/// Commands run per batch at most, so one client's deep pipeline cannot hold a thread long.
const MAX_BATCH: usize = 1024;

/// The commands of one batch: their arguments (most of them where they lie in the connection's
/// buffer), and where each command's arguments end in that list.
#[derive(Default)]
struct Batch {
    args: Args,
    ends: Vec<usize>,
}

impl Batch {
    /// Runs the batch's commands on the bytes they were parsed from.
    fn run(&self, state: &State, session: &mut Session, out: &mut Replies, buf: &[u8]) -> Flow {
        let args: Vec<&[u8]> = self.args.slices(buf).collect();
        let mut start = 0;
        let commands: Vec<&[&[u8]]> = self
            .ends
            .iter()
            .map(|&end| {
                let command = &args[start..end];
                start = end;
                command
            })
            .collect();
        run(state, session, out, &commands)
    }
}

pub(crate) async fn serve_connection(
    mut socket: TcpStream,
    state: Arc<State>,
    id: u64,
    mut closing: watch::Receiver<bool>,
) {
    state.connected.fetch_add(1, Relaxed);
    let _ = socket.set_nodelay(true);
    let mut buf: Vec<u8> = Vec::with_capacity(16 << 10);
    let mut chunk = vec![0u8; 64 << 10];
    let mut session = Session::new(id);
    let mut out = Replies::default();
    let mut batch = Batch::default();
    loop {
        batch.args.clear();
        batch.ends.clear();
        let mut used = 0;
        let mut protocol_error = None;
        while batch.ends.len() < MAX_BATCH {
            match parse_command(&buf, used, &state.limits, &mut batch.args) {
                Ok(Some(end)) => {
                    used = end;
                    // An empty inline line is no command.
                    if batch.args.len() > batch.ends.last().copied().unwrap_or(0) {
                        batch.ends.push(batch.args.len());
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    protocol_error = Some(e.to_string());
                    break;
                }
            }
        }
        if buf.len() - used > state.max_query_buffer && protocol_error.is_none() {
            protocol_error = Some(format!("Protocol error: query buffer over {} bytes", state.max_query_buffer));
        }
        let full_batch = batch.ends.len() == MAX_BATCH;
        let mut quit = false;
        if !batch.ends.is_empty() {
            state.commands.fetch_add(batch.ends.len() as u64, Relaxed);
            let flow = if state.blocking_batches {
                let shared = state.clone();
                let ran = tokio::task::spawn_blocking(move || {
                    let flow = batch.run(&shared, &mut session, &mut out, &buf);
                    (batch, session, out, buf, flow)
                })
                .await;
                match ran {
                    Ok((b, s, o, data, flow)) => {
                        (batch, session, out, buf) = (b, s, o, data);
                        flow
                    }
                    Err(_) => break, // the batch panicked: a bug; drop the connection
                }
            } else {
                batch.run(&state, &mut session, &mut out, &buf)
            };
            quit = flow == Flow::Quit;
        }
        buf.drain(..used);
        if let Some(e) = &protocol_error {
            out.error(&format!("ERR {e}"));
        }
        if !out.bytes().is_empty() && socket.write_all(out.bytes()).await.is_err() {
            break;
        }
        out.truncate(0);
        if quit || protocol_error.is_some() {
            break;
        }
        if full_batch {
            continue;
        }
        tokio::select! {
            read = socket.read(&mut chunk) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            },
            _ = closing.changed() => break,
        }
    }
    let _ = socket.shutdown().await;
    state.connected.fetch_sub(1, Relaxed);
}
