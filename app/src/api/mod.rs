//! The local API: HTTP/1.1 on a unix socket (and loopback TCP when asked), served by axum.
//!
//! Agents open dialogs and mirror their sessions; the operator lists and answers what waits.
//! Every request that changes something is answered only after its event is fsynced (the
//! store sees to that), a request that is refused writes nothing, and what a response shows
//! of a session (a snapshot, what is pending, an answer) is read with
//! `LiveSession::read_durable` or `wait_for`, so it too is fsynced. A dialog holds its
//! connection until the question is settled: answered, expired at its timeout, or withdrawn
//! when the client goes away, the server shuts down or the integration is removed. This module
//! owns the server's state and its start and stop; the endpoints are in `routes/` (one file per
//! group), who may call them in `extract.rs`, the dialog contract in `dialog.rs`, the events
//! that end a question unanswered in `questions.rs`, the wire types clients share in
//! `protocol.rs`, tokens in `auth.rs`, files in `store.rs`.

mod access;
pub mod auth;
mod connections;
pub mod dialog;
pub mod error;
pub mod extract;
pub mod mirror;
pub mod protocol;
pub mod questions;
mod routes;
pub mod store;

pub use routes::{router, withdraw_orphaned_questions};

use auth::TokenStore;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use chatsurface_model::EventBody;
use error::{ApiError, ErrorCode};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use store::{LiveSession, SessionStore, StoreError};
use tokio::sync::watch;

/// The thread of a session that holds its integration's dialogs.
pub const DIALOG_THREAD: &str = "dialogs";

/// How often the server folds what other writers appended to its logs.
const FOLLOW_INTERVAL: std::time::Duration = std::time::Duration::from_millis(200);

/// What every handler shares.
#[derive(Debug, Clone)]
pub struct ApiState {
    store: Arc<SessionStore>,
    tokens: Arc<TokenStore>,
    /// Integrations with a dialog waiting (at most one each).
    waiting: Arc<Mutex<HashSet<String>>>,
    /// Flips to true when the server shuts down, so waiting dialogs are withdrawn.
    shutdown: watch::Receiver<bool>,
    /// Snapshots being turned into JSON at once: each can be as large as its session, so
    /// their number, not the number of requests, bounds the memory they take.
    snapshots: Arc<tokio::sync::Semaphore>,
}

/// How many snapshot responses are built at once; the others wait their turn.
const SNAPSHOTS_AT_ONCE: usize = 2;

impl ApiState {
    /// State over a store and a token store; `shutdown` turns true when the server stops.
    pub fn new(
        store: Arc<SessionStore>,
        tokens: Arc<TokenStore>,
        shutdown: watch::Receiver<bool>,
    ) -> ApiState {
        ApiState {
            store,
            tokens,
            waiting: Arc::new(Mutex::new(HashSet::new())),
            shutdown,
            snapshots: Arc::new(tokio::sync::Semaphore::new(SNAPSHOTS_AT_ONCE)),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status()).unwrap_or(StatusCode::BAD_REQUEST);
        (status, Json(self)).into_response()
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> ApiError {
        match error {
            StoreError::NoSession(id) => {
                ApiError::new(ErrorCode::NotFound, format!("no session \"{id}\""))
            }
            StoreError::BadSessionId(_) => {
                ApiError::new(ErrorCode::Invalid, error.to_string()).with_field("session")
            }
            // An event the fold refused: the request broke a rule, nothing was written.
            StoreError::Log(log) if log.kind == chatsurface_model::LogErrorKind::Fold => {
                ApiError::new(ErrorCode::Invalid, log.message)
            }
            other => ApiError::new(ErrorCode::Storage, other.to_string()),
        }
    }
}

/// Appends events, mapping a refusal to 400.
async fn append(session: &Arc<LiveSession>, bodies: Vec<EventBody>) -> Result<(), ApiError> {
    session
        .append_with(|_| Ok::<_, ApiError>((bodies, ())))
        .await
        .map(|_| ())
}

/// Where the API listens.
#[derive(Clone, Debug)]
pub struct Listen {
    /// The unix socket (created with mode 0600, in a directory of mode 0700 owned by us).
    pub socket: PathBuf,
    /// Loopback TCP, only when asked.
    pub tcp: Option<std::net::SocketAddr>,
}

/// Serves until `stop` resolves; then waiting dialogs are withdrawn and the socket removed.
pub async fn serve(
    state: ApiState,
    stop_sender: watch::Sender<bool>,
    listen: Listen,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    // Another user who made the directory first could listen in it or swap the socket: it
    // must be ours and private, or nothing is served (see `private_dir.rs`).
    crate::private_dir::ensure_dir(crate::private_dir::socket_dir(&listen.socket))
        .map_err(|place| std::io::Error::new(std::io::ErrorKind::PermissionDenied, place))?;
    if std::fs::symlink_metadata(&listen.socket).is_ok() {
        if std::os::unix::net::UnixStream::connect(&listen.socket).is_ok() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AddrInUse,
                format!("{}: another server is listening", listen.socket.display()),
            ));
        }
        std::fs::remove_file(&listen.socket)?;
    }
    let unix = tokio::net::UnixListener::bind(&listen.socket)?;
    std::fs::set_permissions(&listen.socket, std::fs::Permissions::from_mode(0o600))?;
    let following = state.store.clone();
    routes::expire_batches_when_due(&state.store);
    let tokens = state.tokens.clone();
    let is_operator: connections::IsOperator = Arc::new(move |headers| {
        extract::bearer_token(headers).is_some_and(|token| {
            matches!(tokens.authenticate(token), Ok(Some(auth::Caller::Operator)))
        })
    });
    let app = router(state);
    let stopping = stop_sender.subscribe();
    // Other writers (the window, a second process) may append to the same logs: fold what
    // they wrote a few times a second, so questions they answer are settled here too.
    let mut follow_until = stop_sender.subscribe();
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(FOLLOW_INTERVAL);
        loop {
            tokio::select! {
                _ = ticks.tick() => {
                    let store = following.clone();
                    let _ = tokio::task::spawn_blocking(move || store.follow_all()).await;
                }
                changed = follow_until.changed() => {
                    if changed.is_err() || *follow_until.borrow() {
                        return;
                    }
                }
            }
        }
    });

    tokio::spawn(async move {
        stop.await;
        let _ = stop_sender.send(true);
    });
    let unix_server = connections::serve_connections(
        || async {
            let (stream, _) = unix.accept().await?;
            let peer = stream
                .peer_cred()
                .ok()
                .and_then(|credentials| credentials.pid());
            Ok((stream, peer))
        },
        app.clone(),
        is_operator.clone(),
        stopping.clone(),
    );
    let result = match listen.tcp {
        Some(address) => {
            let tcp = tokio::net::TcpListener::bind(address).await?;
            let tcp_server = connections::serve_connections(
                || async { tcp.accept().await.map(|(stream, _)| (stream, None)) },
                app,
                is_operator,
                stopping,
            );
            tokio::try_join!(unix_server, tcp_server).map(|_| ())
        }
        None => unix_server.await,
    };
    let _ = std::fs::remove_file(&listen.socket);
    result
}
