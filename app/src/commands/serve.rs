//! `chatsurface serve`: the local API without a window.

use crate::auth::TokenStore;
use crate::error::AppError;
use crate::paths::{data_dir, socket_path};
use crate::server::{serve, withdraw_orphaned_dialogs, ApiState, Listen};
use crate::store::SessionStore;
use std::net::SocketAddr;
use std::sync::Arc;

/// Runs the API until SIGINT or SIGTERM.
pub fn run(listen: Option<SocketAddr>) -> Result<(), AppError> {
    if let Some(address) = listen {
        if !address.ip().is_loopback() {
            return Err(AppError::Usage(format!(
                "--listen {address}: only loopback addresses (127.0.0.0/8, ::1) are allowed"
            )));
        }
    }
    let data = data_dir();
    let store =
        Arc::new(SessionStore::open(&data).map_err(|error| AppError::BadInput(error.to_string()))?);
    let tokens = Arc::new(TokenStore::new(&data));
    tokens
        .operator_token()
        .map_err(|error| AppError::CannotCreate(error.to_string()))?;
    let withdrawn =
        withdraw_orphaned_dialogs(&store).map_err(|error| AppError::BadInput(error.to_string()))?;
    if withdrawn > 0 {
        eprintln!("withdrew {withdrawn} question(s) left open by a previous server");
    }
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
        eprintln!(
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
