//! Accepting connections under limits, so that no number of clients, however slow or idle,
//! takes the server down.
//!
//! Three rules. At most [`MAX_CONNECTIONS`] connections are served at once: one more is
//! closed as soon as it is accepted, so it costs a file handle for a moment, never for good.
//! A request's head must arrive whole within [`HEADER_TIMEOUT`] of the connection opening or
//! of the last response on it, so a connection that sends nothing, or a byte a minute, is
//! closed (hyper's header timeout, which needs the timer set here). And an accept that fails
//! because the process is out of file handles waits a moment and tries again, instead of
//! ending the server. What a request may ask once it is read (its body, how long it waits) is
//! the routes' business; this module only decides which connections are served.

use axum::Router;
use hyper::server::conn::http1::Builder;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{watch, Semaphore};

/// The most connections served at once, on each listener.
pub(super) const MAX_CONNECTIONS: usize = 512;

/// How long a client has to send a request's head, on a new connection or between requests
/// on a kept-alive one.
pub(super) const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long connections still open at shutdown are given to finish.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// How long to wait before accepting again after running out of file handles.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Serves `app` on the connections `accept` yields until `stop` turns true, under the limits
/// above.
pub(super) async fn serve_connections<S, A, F>(
    mut accept: A,
    app: Router,
    mut stop: watch::Receiver<bool>,
) -> io::Result<()>
where
    A: FnMut() -> F,
    F: Future<Output = io::Result<S>>,
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let mut builder = Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT)
        .keep_alive(true);
    let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let graceful = GracefulShutdown::new();
    let mut refused_since_warning = 0usize;
    loop {
        let accepted = tokio::select! {
            accepted = accept() => accepted,
            _ = stop.wait_for(|stopping| *stopping) => break,
        };
        let stream = match accepted {
            Ok(stream) => stream,
            Err(error) if is_transient(&error) => {
                tracing::warn!("cannot accept a connection now ({error}); trying again");
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
            Err(error) => return Err(error),
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            // Dropping the stream closes it at once.
            refused_since_warning += 1;
            if refused_since_warning == 1 || refused_since_warning.is_multiple_of(1000) {
                tracing::warn!(
                    "{MAX_CONNECTIONS} connections are open; refused {refused_since_warning} more"
                );
            }
            continue;
        };
        refused_since_warning = 0;
        let service = TowerToHyperService::new(app.clone());
        let connection = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!("connection ended: {error}");
            }
            drop(permit);
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
