//! `chatsurface serve`: the local API without a window.

use crate::api::auth::TokenStore;
use crate::api::store::SessionStore;
use crate::api::{serve, withdraw_orphaned_questions, ApiState, Listen};
use crate::error::AppError;
use crate::paths::{data_dir, socket_path};
use std::net::SocketAddr;
use std::sync::Arc;

/// Opens the store and the token store, makes the operator token if missing and withdraws
/// questions left open by a server that died: what a server does before it listens.
fn open_store() -> Result<(Arc<SessionStore>, Arc<TokenStore>), AppError> {
    let data = data_dir();
    warn_if_others_can_read(&data);
    raise_open_files_limit();
    let store =
        Arc::new(SessionStore::open(&data).map_err(|error| AppError::BadInput(error.to_string()))?);
    let tokens = Arc::new(TokenStore::new(&data));
    tokens
        .operator_token()
        .map_err(|error| AppError::CannotCreate(error.to_string()))?;
    let withdrawn = withdraw_orphaned_questions(&store)
        .map_err(|error| AppError::BadInput(error.to_string()))?;
    if withdrawn > 0 {
        tracing::info!("withdrew {withdrawn} question(s) left open by a previous server");
    }
    Ok((store, tokens))
}

/// Every session's log stays open while the server runs, one file each, so the usual soft
/// limit of 1,024 open files would cap how many sessions a server can start with: the soft
/// limit is raised to the hard one, which is the administrator's to set.
fn raise_open_files_limit() {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let limit = getrlimit(Resource::Nofile);
    if let (Some(soft), Some(hard)) = (limit.current, limit.maximum) {
        if soft < hard {
            let raised = Rlimit {
                current: Some(hard),
                maximum: Some(hard),
            };
            if let Err(error) = setrlimit(Resource::Nofile, raised) {
                tracing::debug!("the open-files limit stays at {soft}: {error}");
            }
        }
    }
}

/// A data directory made before chatsurface made it private (or loosened since) lets other
/// users read every session: said at start, left as it is, since the directory is the
/// user's to decide about.
fn warn_if_others_can_read(data: &std::path::Path) {
    use std::os::unix::fs::MetadataExt;
    if let Ok(metadata) = std::fs::metadata(data) {
        let mode = metadata.mode() & 0o7777;
        if mode & 0o077 != 0 {
            tracing::warn!(
                "{}: mode {mode:04o} lets other users read the sessions in it; chmod 700 it",
                data.display()
            );
        }
    }
}

/// The API served in-process beside the window; dropping it shuts the server down (waiting
/// questions are withdrawn, as when `serve` stops).
#[derive(Debug)]
pub(super) struct InProcessServer {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl InProcessServer {
    /// Keeps serving until SIGINT or SIGTERM, then shuts down as a dropped server does.
    pub(super) fn serve_until_signal(self) {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        runtime.block_on(async {
            let Ok(mut terminate) =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            else {
                return;
            };
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminate.recv() => {}
            }
        });
    }
}

impl Drop for InProcessServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Starts the API on its socket in a background thread, unless another server already
/// listens there (then `Ok(None)`: agents reach that one, and the window follows the log).
pub(super) fn start_in_process() -> Result<Option<InProcessServer>, AppError> {
    let socket = socket_path();
    if std::os::unix::net::UnixStream::connect(&socket).is_ok() {
        tracing::info!(
            "the API is already served on {} (chatsurface serve); the window follows its logs",
            socket.display()
        );
        return Ok(None);
    }
    let (store, tokens) = open_store()?;
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|error| AppError::CannotCreate(format!("cannot start the runtime: {error}")))?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("chatsurface-api".to_owned())
        .spawn(move || {
            runtime.block_on(async move {
                let (stop_sender, stop_receiver) = tokio::sync::watch::channel(false);
                let state = ApiState::new(store, tokens, stop_receiver);
                let listen = Listen {
                    socket: socket.clone(),
                    tcp: None,
                };
                let stop = async {
                    let _ = stopped.await;
                };
                if let Err(error) = serve(state, stop_sender, listen, stop).await {
                    tracing::error!("the API cannot serve on {}: {error}", socket.display());
                }
            });
        })
        .map_err(|error| AppError::CannotCreate(format!("cannot start the API thread: {error}")))?;
    Ok(Some(InProcessServer {
        stop: Some(stop),
        thread: Some(thread),
    }))
}

/// Runs the API until SIGINT or SIGTERM.
pub(super) fn run(listen: Option<SocketAddr>) -> Result<(), AppError> {
    if let Some(address) = listen {
        if !address.ip().is_loopback() {
            return Err(AppError::Usage(format!(
                "--listen {address}: only loopback addresses (127.0.0.0/8, ::1) are allowed"
            )));
        }
    }
    let (store, tokens) = open_store()?;
    let socket = socket_path();
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|error| AppError::CannotCreate(format!("cannot start the runtime: {error}")))?;
    runtime.block_on(async move {
        let (stop_sender, stop_receiver) = tokio::sync::watch::channel(false);
        let state = ApiState::new(store, tokens, stop_receiver);
        let stop = async {
            let mut terminate =
                match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                    Ok(signal) => signal,
                    Err(_) => return,
                };
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminate.recv() => {}
            }
        };
        tracing::info!(
            "chatsurface API on {}{}",
            socket.display(),
            listen
                .map(|address| format!(" and http://{address}"))
                .unwrap_or_default()
        );
        serve(
            state,
            stop_sender,
            Listen {
                socket: socket.clone(),
                tcp: listen,
            },
            stop,
        )
        .await
        .map_err(|error| AppError::CannotCreate(format!("{}: {error}", socket.display())))
    })
}
