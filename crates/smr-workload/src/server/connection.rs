//! One client connection: read what arrives, parse every complete command, run them as one
//! batch on a blocking thread (the store may wait for its device), write the replies, repeat.
//! Pipelined commands therefore cost one store hand-off per batch, not per command.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::watch;

use super::commands::{execute, Flow};
use super::State;
use crate::resp::{encode, parse_command};

/// Commands run per batch at most, so one client's deep pipeline cannot hold a thread long.
const MAX_BATCH: usize = 1024;

pub(crate) async fn serve_connection(mut socket: TcpStream, state: Arc<State>, mut closing: watch::Receiver<bool>) {
    state.connected.fetch_add(1, Relaxed);
    let _ = socket.set_nodelay(true);
    let mut buf: Vec<u8> = Vec::with_capacity(16 << 10);
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let mut batch = Vec::new();
        let mut used = 0;
        let mut protocol_error = None;
        while batch.len() < MAX_BATCH {
            match parse_command(&buf[used..], &state.limits) {
                Ok(Some((args, n))) => {
                    used += n;
                    if !args.is_empty() {
                        batch.push(args);
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    protocol_error = Some(e.to_string());
                    break;
                }
            }
        }
        buf.drain(..used);
        if buf.len() > state.max_query_buffer && protocol_error.is_none() {
            protocol_error = Some(format!("Protocol error: query buffer over {} bytes", state.max_query_buffer));
        }
        let full_batch = batch.len() == MAX_BATCH;
        let mut out = Vec::new();
        let mut quit = false;
        if !batch.is_empty() {
            let shared = state.clone();
            let ran = tokio::task::spawn_blocking(move || {
                let mut out = Vec::new();
                let mut quit = false;
                for args in &batch {
                    if execute(&shared, args, &mut out) == Flow::Quit {
                        quit = true;
                        break;
                    }
                }
                (out, quit)
            })
            .await;
            match ran {
                Ok(r) => (out, quit) = r,
                Err(_) => break, // the batch panicked: a bug; drop the connection
            }
        }
        if let Some(e) = &protocol_error {
            encode::error(&mut out, &format!("ERR {e}"));
        }
        if !out.is_empty() && socket.write_all(&out).await.is_err() {
            break;
        }
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
