//! How `chatsurface codex` reaches an app-server: one it starts, over the child's stdio, or
//! one already running, over its unix control socket.
//!
//! Either way the bridge sees the same thing, a [`Link`]: JSON-RPC messages out and in as
//! one line of text each. Over stdio a message is a line; the control socket
//! (`codex app-server --listen unix://PATH`) speaks WebSocket, one message per text frame,
//! so attaching does the WebSocket handshake on the unix stream. What the messages mean is
//! the caller's; this module only carries them.

use crate::error::AppError;
use futures_util::{SinkExt, StreamExt};
use std::path::Path;
use std::process::Stdio;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

/// A connection to one app-server, as messages of text.
pub(super) struct Link {
    /// Messages to the app-server; dropping every sender closes the connection.
    pub outgoing: mpsc::UnboundedSender<String>,
    /// Messages from the app-server; it ends when the app-server is gone.
    pub incoming: mpsc::UnboundedReceiver<String>,
    /// The app-server this bridge started, waited for at the end; `None` when attached.
    pub child: Option<tokio::process::Child>,
}

/// Starts `codex app-server` in `cwd` and links to it over its stdio.
pub(super) fn start(codex_bin: &Path, cwd: &str) -> Result<Link, AppError> {
    let mut child = tokio::process::Command::new(codex_bin)
        .arg("app-server")
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|error| {
            AppError::Unavailable(format!(
                "{}: cannot start it ({error}); --codex-bin names Codex's binary",
                codex_bin.display()
            ))
        })?;
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(AppError::Internal(
            "the app-server's pipes were not made".into(),
        ));
    };
    let (outgoing, mut to_codex) = mpsc::unbounded_channel::<String>();
    let (from_codex, incoming) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        while let Some(line) = to_codex.recv().await {
            let written = stdin.write_all(format!("{line}\n").as_bytes()).await;
            if written.is_err() || stdin.flush().await.is_err() {
                break;
            }
        }
        // Its stdin closed here, the app-server ends.
    });
    tokio::spawn(async move {
        let mut lines = BufReader::new(stdout).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if from_codex.send(line).is_err() {
                break;
            }
        }
    });
    Ok(Link {
        outgoing,
        incoming,
        child: Some(child),
    })
}

/// Links to the app-server listening on the unix socket `socket`.
pub(super) async fn attach(socket: &Path) -> Result<Link, AppError> {
    let not_there = |why: String| {
        AppError::Unavailable(format!(
            "{}: no app-server answers there ({why}); start one with \
             `codex app-server --listen unix://{}`",
            socket.display(),
            socket.display()
        ))
    };
    let stream = tokio::net::UnixStream::connect(socket)
        .await
        .map_err(|error| not_there(error.to_string()))?;
    // The host in the address is only what the handshake's Host header carries; the stream
    // is already connected.
    let (websocket, _) = tokio_tungstenite::client_async("ws://localhost/", stream)
        .await
        .map_err(|error| not_there(format!("the WebSocket handshake failed: {error}")))?;
    let (mut sink, mut frames) = websocket.split();
    let (outgoing, mut to_codex) = mpsc::unbounded_channel::<String>();
    let (from_codex, incoming) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        while let Some(line) = to_codex.recv().await {
            if sink.send(Message::text(line)).await.is_err() {
                return;
            }
        }
        // The bridge is done: a clean close, so the app-server drops this client only.
        let _ = sink.close().await;
    });
    tokio::spawn(async move {
        while let Some(Ok(frame)) = frames.next().await {
            let text = match frame {
                Message::Text(text) => text.as_str().to_owned(),
                Message::Binary(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Message::Close(_) => break,
                Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => continue,
            };
            if from_codex.send(text).is_err() {
                break;
            }
        }
    });
    Ok(Link {
        outgoing,
        incoming,
        child: None,
    })
}
