//! What the API benchmarks share: HTTP/1.1 over the API's unix socket, the server started in
//! the bench's own process, and percentiles.
#![allow(
    dead_code,
    reason = "each benchmark is its own crate and uses a part of this module"
)]

use chatsurface::api::auth::TokenStore;
use chatsurface::api::store::SessionStore;
use chatsurface::api::{serve, ApiState, Listen};
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::client::conn::http1::SendRequest;
use hyper::{header, Method, Request, Response};
use hyper_util::rt::TokioIo;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// One HTTP/1.1 connection over the socket.
pub(crate) async fn connect(socket: &Path) -> SendRequest<Full<Bytes>> {
    let stream = tokio::net::UnixStream::connect(socket)
        .await
        .expect("the server listens");
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    tokio::spawn(connection);
    sender
}

/// Sends one request on a connection and returns the response, its body not read yet.
pub(crate) async fn send(
    sender: &mut SendRequest<Full<Bytes>>,
    method: Method,
    path: &str,
    token: &str,
    body: String,
) -> Response<Incoming> {
    sender.ready().await.expect("the connection is open");
    let request = Request::builder()
        .method(method)
        .uri(path)
        .header(header::HOST, "chatsurface")
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body)))
        .expect("a valid request");
    sender.send_request(request).await.expect("an answer")
}

/// Sends one request on a connection and reads the whole answer.
pub(crate) async fn exchange(
    sender: &mut SendRequest<Full<Bytes>>,
    method: Method,
    path: &str,
    token: &str,
    body: String,
) -> (u16, Bytes) {
    let response = send(sender, method, path, token, body).await;
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.expect("a body");
    (status, body.to_bytes())
}

/// The value below which `share` of the sorted samples lie.
fn percentile(sorted: &[f64], share: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * share).round() as usize]
}

/// Prints `label: p50 …, p99 …, max …` of `samples`, in milliseconds.
#[allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]
pub(crate) fn report_ms(label: &str, mut samples: Vec<f64>) {
    samples.sort_by(f64::total_cmp);
    println!(
        "{label}: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(&samples, 0.5),
        percentile(&samples, 0.99),
        samples[samples.len() - 1]
    );
}

/// The API served in this process, as `chatsurface serve` serves it.
pub(crate) struct InProcessServer {
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl InProcessServer {
    /// Serves `store` on `socket` and returns once the socket takes connections.
    pub(crate) async fn start(
        store: Arc<SessionStore>,
        socket: &Path,
        tokens: Arc<TokenStore>,
    ) -> InProcessServer {
        let (stop, stop_signal) = tokio::sync::oneshot::channel::<()>();
        let (stop_sender, stop_receiver) = tokio::sync::watch::channel(false);
        let state = ApiState::new(store, tokens, stop_receiver);
        let listen = Listen {
            socket: socket.to_path_buf(),
            tcp: None,
        };
        let task = tokio::spawn(serve(state, stop_sender, listen, async {
            let _ = stop_signal.await;
        }));
        while tokio::net::UnixStream::connect(socket).await.is_err() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        InProcessServer { stop, task }
    }

    /// Stops serving and waits for the server to finish.
    pub(crate) async fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.task.await;
    }
}

/// A session's event stream (`GET /v1/sessions/{sid}/events`), read one event at a time.
pub(crate) struct EventStream {
    /// Kept so that the connection stays open while the body is read.
    _connection: SendRequest<Full<Bytes>>,
    body: Incoming,
    pending: String,
    parsed: std::collections::VecDeque<serde_json::Value>,
}

impl EventStream {
    /// Opens the stream of `session` as `token`.
    pub(crate) async fn open(socket: &Path, session: &str, token: &str) -> EventStream {
        let mut connection = connect(socket).await;
        let path = format!("/v1/sessions/{session}/events");
        let response = send(&mut connection, Method::GET, &path, token, String::new()).await;
        assert_eq!(response.status(), 200, "the event stream opens");
        EventStream {
            _connection: connection,
            body: response.into_body(),
            pending: String::new(),
            parsed: std::collections::VecDeque::new(),
        }
    }

    /// The next event on the stream, or none once it ends.
    pub(crate) async fn next(&mut self) -> Option<serde_json::Value> {
        loop {
            if let Some(event) = self.parsed.pop_front() {
                return Some(event);
            }
            let frame = self.body.frame().await?.ok()?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            self.pending.push_str(&String::from_utf8_lossy(&data));
            while let Some(end) = self.pending.find("\n\n") {
                let message: String = self.pending.drain(..end + 2).collect();
                self.parsed.extend(
                    message
                        .lines()
                        .filter_map(|line| line.strip_prefix("data: "))
                        .filter_map(|data| serde_json::from_str(data).ok()),
                );
            }
        }
    }

    /// The next event of type `kind`, skipping others.
    pub(crate) async fn next_of(&mut self, kind: &str) -> Option<serde_json::Value> {
        loop {
            let event = self.next().await?;
            if event["type"] == kind {
                return Some(event);
            }
        }
    }
}
