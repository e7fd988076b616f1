//! The local API under load, over a real unix socket: 1,000 sequential ask → answer round
//! trips (a dialog opened by an integration on a new connection, as `chatsurface ask` does,
//! answered by the operator the moment it shows on the session's event stream), and how many
//! events per second the API ingests.
//!
//! Every event is fsynced before the request that wrote it is answered, so the numbers are
//! the API's overhead with a human who answers instantly and a disk that really syncs.
//! Ingestion is measured four ways: one request per event from one client and from 16
//! concurrent clients, each with a new connection per request (as `chatsurface ask` and a
//! shell `curl` do) and over kept-alive connections (as an agent's HTTP client does), and in
//! batches of 100 events per request (`POST /v1/sessions/{sid}/events`).
//!
//! By default the server runs in this process. With `CHATSURFACE_BENCH_WINDOW=1` and a
//! display, the bench starts the real window (`chatsurface open --size 1920x1080` on a fresh
//! data dir, which serves the API in-process) on the session it writes to, so every number is
//! taken while that window follows and renders the growing session.
#![allow(
    clippy::unwrap_used,
    reason = "a benchmark stops at the first surprise"
)]
#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

mod common;

use chatsurface::api::auth::TokenStore;
use chatsurface::api::store::SessionStore;
use chatsurface_model::{EventBody, ThreadKind, ThreadSpec};
use common::{connect, exchange, report_ms, EventStream, InProcessServer};
use hyper::Method;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::Arc;
use std::time::{Duration, Instant};

const ROUND_TRIPS: usize = 1_000;
const INGESTED: usize = 8_000;
const CLIENTS: usize = 16;
const PER_BATCH: usize = 100;
/// The session the bench writes to: the integration's own, where its dialogs appear.
const SESSION: &str = "bench";

/// How the clients of one ingestion run reach the server.
#[derive(Clone, Copy)]
enum Connections {
    /// A new connection for every request.
    PerRequest,
    /// One connection per client, kept alive.
    KeptAlive,
}

/// Posts `events` messages, split over `clients` concurrent clients, `per_request` to a
/// request; returns the events per second.
async fn ingest(
    socket: &Path,
    token: &str,
    clients: usize,
    connections: Connections,
    per_request: usize,
) -> f64 {
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|client| {
            let (socket, token) = (socket.to_path_buf(), token.to_owned());
            tokio::spawn(async move {
                let mut sender = connect(&socket).await;
                for request in 0..INGESTED / clients / per_request {
                    if matches!(connections, Connections::PerRequest) && request > 0 {
                        sender = connect(&socket).await;
                    }
                    let (path, body) = if per_request == 1 {
                        let body = format!(r#"{{"role":"agent","text":"client {client} event {request}"}}"#);
                        (format!("/v1/sessions/{SESSION}/messages"), body)
                    } else {
                        let events: Vec<String> = (0..per_request)
                            .map(|index| format!(r#"{{"type":"message","role":"agent","text":"client {client} request {request} event {index}"}}"#))
                            .collect();
                        (format!("/v1/sessions/{SESSION}/events"), format!(r#"{{"events":[{}]}}"#, events.join(",")))
                    };
                    let (status, answer) = exchange(&mut sender, Method::POST, &path, &token, body).await;
                    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("client finished");
    }
    (INGESTED / clients / per_request * clients * per_request) as f64
        / started.elapsed().as_secs_f64()
}

/// Answers every confirmation that shows on the session's event stream, accepting it.
async fn answer_confirmations(socket: PathBuf, operator: String) {
    let mut stream = EventStream::open(&socket, SESSION, &operator).await;
    let mut answers = connect(&socket).await;
    while let Some(event) = stream.next_of("confirmation_requested").await {
        let id = event["confirmation"]["id"].as_str().expect("an id");
        let path = format!("/v1/pending/{id}");
        let body = r#"{"outcome":"accepted"}"#.to_owned();
        let (status, _) = exchange(&mut answers, Method::POST, &path, &operator, body).await;
        assert_eq!(status, 200);
    }
}

/// The server under load: in this process, or the window's own (see the module docs).
enum Server {
    InProcess(InProcessServer),
    Window(Child),
}

impl Server {
    async fn start(dir: &Path, socket: &Path, tokens: Arc<TokenStore>) -> Server {
        // The session exists before the server starts, so the window opens on it.
        let store = Arc::new(SessionStore::open(dir).expect("temp dir"));
        let opening = EventBody::ThreadOpened {
            thread: ThreadSpec {
                id: "main".into(),
                parent: None,
                title: SESSION.to_owned(),
                kind: ThreadKind::Topic,
            },
        };
        let session = store
            .get_or_create(SESSION, SESSION, Some(SESSION))
            .expect("session");
        session.append(opening).expect("the first event");
        if std::env::var_os("CHATSURFACE_BENCH_WINDOW").is_some() {
            drop(session);
            drop(store);
            let window = Command::new(env!("CARGO_BIN_EXE_chatsurface"))
                .args(["open", "--size", "1920x1080"])
                .env("CHATSURFACE_DATA_DIR", dir)
                .env("CHATSURFACE_SOCKET", socket)
                .spawn()
                .expect("the window starts");
            while tokio::net::UnixStream::connect(socket).await.is_err() {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            Server::Window(window)
        } else {
            Server::InProcess(InProcessServer::start(store, socket, tokens).await)
        }
    }

    /// CPU time the window's process has used so far, all its threads (its server, its
    /// event loop, the driver's), from `/proc/<pid>/stat` (user and system time, in the
    /// kernel's fixed 100 ticks a second); none for the server in this process.
    fn window_cpu(&self) -> Option<Duration> {
        let Server::Window(window) = self else {
            return None;
        };
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", window.id())).ok()?;
        // The command name may hold spaces; the fields after it do not.
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        let ticks: u64 =
            fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        Some(Duration::from_millis(ticks * 10))
    }

    async fn stop(self) {
        match self {
            Server::InProcess(server) => server.stop().await,
            Server::Window(mut window) => {
                let _ = window.kill();
                let _ = window.wait();
            }
        }
    }
}

fn main() {
    let dir = std::env::temp_dir().join(format!("chatsurface-api-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let socket: PathBuf = dir.join("api.sock");
    let tokens = Arc::new(TokenStore::new(&dir));
    let operator = tokens.operator_token().expect("operator token");
    let agent = tokens
        .add_integration(SESSION, true, &[])
        .expect("integration");
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let server = Server::start(&dir, &socket, tokens.clone()).await;
        let where_ = match server {
            Server::InProcess(_) => "server in this process",
            Server::Window(_) => "server in the window, which renders the session",
        };
        println!("{where_}");

        let answering = tokio::spawn(answer_confirmations(socket.clone(), operator.clone()));
        let mut round_trips = Vec::with_capacity(ROUND_TRIPS);
        for _ in 0..ROUND_TRIPS {
            let started = Instant::now();
            // A new connection for every question, as `chatsurface ask` makes.
            let mut agent_connection = connect(&socket).await;
            let path = format!("/v1/integrations/{SESSION}/dialogs");
            let body = r#"{"message":"Go?"}"#.to_owned();
            let (status, answer) =
                exchange(&mut agent_connection, Method::POST, &path, &agent, body).await;
            assert_eq!(
                (status, &answer[..]),
                (200, &br#"{"answer":"accepted"}"#[..])
            );
            round_trips.push(started.elapsed().as_secs_f64() * 1000.0);
        }
        report_ms(
            &format!("ask → answer round trip, {ROUND_TRIPS} sequential"),
            round_trips,
        );
        answering.abort();

        println!("events ingested per second, each fsynced before its request is answered:");
        for (label, clients, connections, per_request) in [
            (
                "1 client, new connection per request",
                1,
                Connections::PerRequest,
                1,
            ),
            (
                "16 clients, new connection per request",
                CLIENTS,
                Connections::PerRequest,
                1,
            ),
            (
                "1 client, kept-alive connection",
                1,
                Connections::KeptAlive,
                1,
            ),
            (
                "16 clients, kept-alive connections",
                CLIENTS,
                Connections::KeptAlive,
                1,
            ),
            (
                "1 client, 100 events per request",
                1,
                Connections::KeptAlive,
                PER_BATCH,
            ),
        ] {
            let (cpu_before, started) = (server.window_cpu(), Instant::now());
            let rate = ingest(&socket, &agent, clients, connections, per_request).await;
            match (cpu_before, server.window_cpu()) {
                (Some(before), Some(after)) => println!(
                    "  {label}: {rate:.0}/s (the window's process used {:.0}% of a core)",
                    100.0 * (after - before).as_secs_f64() / started.elapsed().as_secs_f64()
                ),
                _ => println!("  {label}: {rate:.0}/s"),
            }
        }
        server.stop().await;
    });
    let _ = std::fs::remove_dir_all(&dir);
}
