//! The local API under load, over a real unix socket: 1,000 sequential ask → answer round
//! trips (a dialog opened by an integration, answered by the operator at once), and how many
//! events per second the API ingests (sequential and with 16 concurrent clients).
//!
//! Each round trip writes and fsyncs two events (the question and the answer) before it
//! completes; the numbers are the API's overhead with a human who answers instantly.

use chatsurface::auth::TokenStore;
use chatsurface::server::{serve, ApiState, Listen};
use chatsurface::store::SessionStore;
use chatsurface_model::EventBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{header, Method, Request};
use hyper_util::rt::TokioIo;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

const ROUND_TRIPS: usize = 1_000;
const INGESTED: usize = 4_000;
const CLIENTS: usize = 16;

async fn request(
    socket: &Path,
    method: Method,
    path: &str,
    token: &str,
    body: String,
) -> (u16, Bytes) {
    let stream = tokio::net::UnixStream::connect(socket)
        .await
        .expect("the server listens");
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    tokio::spawn(connection);
    let request = Request::builder()
        .method(method)
        .uri(path)
        .header(header::HOST, "chatsurface")
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body)))
        .expect("a valid request");
    let response = sender.send_request(request).await.expect("an answer");
    let status = response.status().as_u16();
    (
        status,
        response
            .into_body()
            .collect()
            .await
            .expect("a body")
            .to_bytes(),
    )
}

fn percentile(sorted: &[f64], share: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * share).round() as usize]
}

fn main() {
    let dir = std::env::temp_dir().join(format!("chatsurface-api-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let socket: PathBuf = dir.join("api.sock");
    let store = Arc::new(SessionStore::open(&dir).expect("temp dir"));
    let tokens = Arc::new(TokenStore::new(&dir));
    let operator = tokens.operator_token().expect("operator token");
    let agent = tokens.add_integration("bench", true).expect("integration");
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let (stop_sender, stop_receiver) = tokio::sync::watch::channel(false);
        let (stop_now, stop_signal) = tokio::sync::oneshot::channel::<()>();
        let state = ApiState::new(store.clone(), tokens.clone(), stop_receiver);
        let listen = Listen { socket: socket.clone(), tcp: None };
        let server = tokio::spawn(serve(state, stop_sender, listen, async {
            let _ = stop_signal.await;
        }));
        while tokio::net::UnixStream::connect(&socket).await.is_err() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }

        // The operator answers each question the moment its event is appended.
        let session = store.get_or_create("bench", "bench").expect("session");
        let mut events = session.subscribe();
        let (operator_socket, operator_token) = (socket.clone(), operator.clone());
        let answering = tokio::spawn(async move {
            while let Ok(event) = events.recv().await {
                if let EventBody::ConfirmationRequested { confirmation } = event.body {
                    let path = format!("/v1/pending/{}", confirmation.id);
                    request(&operator_socket, Method::POST, &path, &operator_token, r#"{"outcome":"accepted"}"#.into()).await;
                }
            }
        });

        let mut round_trips = Vec::with_capacity(ROUND_TRIPS);
        for _ in 0..ROUND_TRIPS {
            let started = Instant::now();
            let (status, body) =
                request(&socket, Method::POST, "/v1/integrations/bench/dialogs", &agent, r#"{"message":"Go?"}"#.into()).await;
            assert_eq!((status, &body[..]), (200, &br#"{"answer":"accepted"}"#[..]));
            round_trips.push(started.elapsed().as_secs_f64() * 1000.0);
        }
        round_trips.sort_by(f64::total_cmp);
        println!(
            "ask → answer round trip, {ROUND_TRIPS} sequential: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            percentile(&round_trips, 0.5),
            percentile(&round_trips, 0.99),
            round_trips[round_trips.len() - 1]
        );

        let started = Instant::now();
        for index in 0..INGESTED {
            let body = format!(r#"{{"role":"agent","text":"event {index}"}}"#);
            let (status, _) = request(&socket, Method::POST, "/v1/sessions/ingest/messages", &agent, body).await;
            assert_eq!(status, 200);
        }
        let sequential = INGESTED as f64 / started.elapsed().as_secs_f64();
        let started = Instant::now();
        let clients: Vec<_> = (0..CLIENTS)
            .map(|client| {
                let (socket, agent) = (socket.clone(), agent.clone());
                tokio::spawn(async move {
                    for index in 0..INGESTED / CLIENTS {
                        let body = format!(r#"{{"role":"agent","text":"client {client} event {index}"}}"#);
                        let (status, _) = request(&socket, Method::POST, "/v1/sessions/ingest/messages", &agent, body).await;
                        assert_eq!(status, 200);
                    }
                })
            })
            .collect();
        for client in clients {
            client.await.expect("client finished");
        }
        let concurrent = INGESTED as f64 / started.elapsed().as_secs_f64();
        println!("events ingested over the API (each fsynced before its answer): {sequential:.0}/s sequential, {concurrent:.0}/s with {CLIENTS} clients");

        answering.abort();
        let _ = stop_now.send(());
        let _ = server.await;
    });
    let _ = std::fs::remove_dir_all(&dir);
}
