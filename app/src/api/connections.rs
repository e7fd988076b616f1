//! Accepting connections under limits, so that no number of clients, however slow or idle,
//! takes the server down or locks the operator out.
//!
//! Five rules. At most [`MAX_CONNECTIONS`] connections are served at once, and one peer (a
//! process on the socket, known by `SO_PEERCRED`) holds at most [`MAX_PER_PEER`] of them; a
//! connection over either is closed as soon as it is accepted, so it costs a file handle for a
//! moment, never for good. When all are taken, [`OPERATOR_RESERVE`] more are kept for the
//! operator: a request on one of them is served only if it carries the operator token, any
//! other is answered 503 `busy` and its connection closed, so a flood of agents cannot keep the
//! human from answering. A request's head must arrive whole within [`HEADER_TIMEOUT`] of the
//! connection opening or of the last response on it, so a connection that sends nothing, or a
//! byte a minute, is closed (hyper's header timeout, which needs the timer set here). And an
//! accept that fails because the process is out of file handles waits a moment and tries
//! again, instead of ending the server. What a request may ask once it is read (its body, how
//! long it waits) is the routes' business; this module only decides which connections are
//! served.

use super::error::{ApiError, ErrorCode};
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Router;
use hyper::server::conn::http1::Builder;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{watch, Semaphore};
use tower::ServiceExt;

/// The most connections served at once, on each listener, besides the operator's reserve.
pub(super) const MAX_CONNECTIONS: usize = 512;

/// Connections kept for the operator's requests once [`MAX_CONNECTIONS`] are taken.
pub(super) const OPERATOR_RESERVE: usize = 32;

/// The most connections one peer (one process) may hold at once.
pub(super) const MAX_PER_PEER: usize = 64;

/// How long a client has to send a request's head, on a new connection or between requests
/// on a kept-alive one.
pub(super) const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long connections still open at shutdown are given to finish.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// How long to wait before accepting again after running out of file handles.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Who is at the other end of a connection, as far as the limits care: the peer's process id
/// on the unix socket; `None` where it cannot be known (loopback TCP), which only the total
/// limit then counts.
pub(super) type Peer = Option<i32>;

/// Tells whether a request's headers carry the operator's token.
pub(super) type IsOperator = Arc<dyn Fn(&HeaderMap) -> bool + Send + Sync>;

/// How many connections each peer holds; a [`PeerSlot`] gives its one back when dropped.
#[derive(Clone, Default)]
struct PeerCounts(Arc<Mutex<HashMap<i32, usize>>>);

/// One connection counted against its peer.
struct PeerSlot {
    counts: PeerCounts,
    peer: i32,
}

impl PeerCounts {
    /// Counts one more connection of `peer`, unless it already holds [`MAX_PER_PEER`].
    fn take(&self, peer: i32) -> Option<PeerSlot> {
        let mut counts = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let held = counts.entry(peer).or_insert(0);
        if *held >= MAX_PER_PEER {
            return None;
        }
        *held += 1;
        Some(PeerSlot {
            counts: self.clone(),
            peer,
        })
    }
}

impl Drop for PeerSlot {
    fn drop(&mut self) {
        let mut counts = self.counts.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(held) = counts.get_mut(&self.peer) {
            *held -= 1;
            if *held == 0 {
                counts.remove(&self.peer);
            }
        }
    }
}

/// Why a connection was closed unserved, for the warning that counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refusal {
    /// Every connection, the operator's reserve included, is taken.
    Full,
    /// Its peer holds as many as one may.
    PeerFull,
}

/// Counts refused connections and warns at the first and every thousandth, so a flood is
/// seen without a line per connection.
#[derive(Default)]
struct RefusalWarnings {
    since_warning: usize,
}

impl RefusalWarnings {
    fn refused(&mut self, why: Refusal) {
        self.since_warning += 1;
        if self.since_warning == 1 || self.since_warning.is_multiple_of(1000) {
            let count = self.since_warning;
            match why {
                Refusal::Full => tracing::warn!(
                    "{MAX_CONNECTIONS} connections and the operator's {OPERATOR_RESERVE} are \
                     open; refused {count} more"
                ),
                Refusal::PeerFull => tracing::warn!(
                    "a process holds {MAX_PER_PEER} connections, as many as one may; refused \
                     {count} more"
                ),
            }
        }
    }

    fn served(&mut self) {
        self.since_warning = 0;
    }
}

/// The 503 a request without the operator's token gets on a reserved connection; the
/// connection is closed after it.
fn busy() -> Response {
    let mut response = ApiError::new(
        ErrorCode::Busy,
        format!(
            "all {MAX_CONNECTIONS} connections are taken; try again in a moment (the \
             operator's token is still served)"
        ),
    )
    .into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Serves `app` on the connections `accept` yields (each with its [`Peer`]) until `stop`
/// turns true, under the limits above; `is_operator` picks the requests the reserve serves.
pub(super) async fn serve_connections<S, A, F>(
    mut accept: A,
    app: Router,
    is_operator: IsOperator,
    mut stop: watch::Receiver<bool>,
) -> io::Result<()>
where
    A: FnMut() -> F,
    F: Future<Output = io::Result<(S, Peer)>>,
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let mut builder = Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT)
        .keep_alive(true);
    let anyone = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let reserve = Arc::new(Semaphore::new(OPERATOR_RESERVE));
    let peers = PeerCounts::default();
    let graceful = GracefulShutdown::new();
    let mut warnings = RefusalWarnings::default();
    loop {
        let accepted = tokio::select! {
            accepted = accept() => accepted,
            _ = stop.wait_for(|stopping| *stopping) => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) if is_transient(&error) => {
                tracing::warn!("cannot accept a connection now ({error}); trying again");
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
            Err(error) => return Err(error),
        };
        // Dropping the stream closes it at once.
        let slot = match peer {
            Some(peer) => match peers.take(peer) {
                Some(slot) => Some(slot),
                None => {
                    warnings.refused(Refusal::PeerFull);
                    continue;
                }
            },
            None => None,
        };
        // A permit of the reserve serves only the operator on its connection.
        let (permit, operator_only) = match anyone.clone().try_acquire_owned() {
            Ok(permit) => (permit, false),
            Err(_) => match reserve.clone().try_acquire_owned() {
                Ok(permit) => (permit, true),
                Err(_) => {
                    warnings.refused(Refusal::Full);
                    continue;
                }
            },
        };
        warnings.served();
        let app = app.clone();
        let is_operator = is_operator.clone();
        let service = tower::service_fn(move |request: Request<hyper::body::Incoming>| {
            let app = app.clone();
            let refused = operator_only && !is_operator(request.headers());
            async move {
                if refused {
                    return Ok::<_, Infallible>(busy());
                }
                app.oneshot(request.map(axum::body::Body::new)).await
            }
        });
        let connection = graceful.watch(
            builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service)),
        );
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!("connection ended: {error}");
            }
            drop((permit, slot));
        });
    }
    if tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::debug!("connections still open after {SHUTDOWN_GRACE:?} were dropped");
    }
    Ok(())
}

/// Whether an accept error passes: out of file handles or memory, or a connection that went
/// away before it was accepted.
fn is_transient(error: &io::Error) -> bool {
    use rustix::io::Errno;
    let passing = [Errno::MFILE, Errno::NFILE, Errno::NOBUFS, Errno::NOMEM];
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
            | io::ErrorKind::OutOfMemory
    ) || error
        .raw_os_error()
        .is_some_and(|code| passing.iter().any(|errno| errno.raw_os_error() == code))
}
