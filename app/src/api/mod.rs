//! The local API: HTTP/1.1 on a unix socket (and loopback TCP when asked), served by axum.
//!
//! Agents open dialogs and mirror their sessions; the operator lists and answers what waits.
//! Every request that changes something is answered only after its event is fsynced (the
//! store sees to that), a request that is refused writes nothing, and what a response shows
//! of a session (a snapshot, what is pending, an answer) is read with
//! `LiveSession::read_durable` or `wait_for`, so it too is fsynced. A dialog holds its
//! connection until the question is settled: answered, expired at its timeout, or withdrawn
//! when the client goes away, the server shuts down or the integration is removed. This module
//! owns routing, authentication and waiting; the rules of the dialog contract are in
//! `dialog.rs`, tokens in `auth.rs`, files in `store.rs`.

pub mod auth;
pub mod dialog;
pub mod error;
pub mod mirror;
pub mod store;

use auth::{Caller, TokenStore};
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use chatsurface_model::{
    BatchCloseReason, BatchStatus, ClarificationResponse, ConfirmationOutcome, ConfirmationStatus,
    EventBody, NodeRef, Snapshot, ThreadKind, ThreadSpec,
};
use dialog::{answer_of_batch, answer_of_confirmation, parse_dialog, DialogAnswer, DialogQuestion};
use error::{ApiError, ErrorCode};
use mirror::{MirrorBuild, Mirrored};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::future::IntoFuture;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use store::{LiveSession, SessionStore, StoreError};
use tokio::sync::watch;

/// Largest request body accepted; a larger one gets 413.
pub const MAX_BODY_BYTES: usize = 1 << 20;
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
}

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
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status()).unwrap_or(StatusCode::BAD_REQUEST);
        (status, Json(self)).into_response()
    }
}

fn store_error(error: StoreError) -> ApiError {
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

/// Appends events, mapping a refusal to 400.
async fn append(session: &Arc<LiveSession>, bodies: Vec<EventBody>) -> Result<(), ApiError> {
    session
        .append_with(|_| Ok::<_, ApiError>((bodies, ())))
        .await
        .map(|_| ())
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> ApiError {
        store_error(error)
    }
}

fn caller(state: &ApiState, headers: &HeaderMap) -> Result<Caller, ApiError> {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::Unauthorized,
                "send Authorization: Bearer <token>",
            )
        })?;
    state
        .tokens
        .authenticate(token.trim())
        .map_err(|error| ApiError::new(ErrorCode::Tokens, error.to_string()))?
        .ok_or_else(|| ApiError::new(ErrorCode::Unauthorized, "the token is not valid"))
}

fn operator(state: &ApiState, headers: &HeaderMap) -> Result<(), ApiError> {
    match caller(state, headers)? {
        Caller::Operator => Ok(()),
        Caller::Integration(_) => Err(ApiError::new(
            ErrorCode::Forbidden,
            "only the operator token can do this",
        )),
    }
}

async fn body_bytes(request: Request) -> Result<Bytes, ApiError> {
    axum::body::to_bytes(request.into_body(), MAX_BODY_BYTES)
        .await
        .map_err(|_| {
            ApiError::new(
                ErrorCode::TooLarge,
                format!("the body is over {MAX_BODY_BYTES} bytes"),
            )
        })
}

/// Builds the router.
pub fn router(state: ApiState) -> Router {
    Router::new()
        .route("/v1/integrations/{slug}/dialogs", post(open_dialog))
        .route("/v1/sessions/{sid}/snapshot", get(session_snapshot))
        .route(
            "/v1/sessions/{sid}/events",
            get(session_events).post(post_events),
        )
        .route("/v1/sessions/{sid}/clarifications", post(open_batch))
        .route("/v1/sessions/{sid}/clarifications/{bid}", get(poll_batch))
        .route(
            "/v1/sessions/{sid}/messages",
            post(|state, sid, headers, request| {
                post_mirrored(state, sid, headers, request, Mirrored::Message)
            }),
        )
        .route("/v1/sessions/{sid}/messages/{mid}/chunks", post(post_chunk))
        .route(
            "/v1/sessions/{sid}/threads",
            post(|state, sid, headers, request| {
                post_mirrored(state, sid, headers, request, Mirrored::Thread)
            }),
        )
        .route(
            "/v1/sessions/{sid}/decisions",
            post(|state, sid, headers, request| {
                post_mirrored(state, sid, headers, request, Mirrored::Decision)
            }),
        )
        .route("/v1/pending", get(list_pending))
        .route("/v1/pending/{id}", post(answer_pending))
        .fallback(|| async { ApiError::new(ErrorCode::NotFound, "no such endpoint") })
        .method_not_allowed_fallback(|| async {
            ApiError::new(
                ErrorCode::MethodNotAllowed,
                "this endpoint does not take that method",
            )
        })
        .with_state(state)
}

/// Marks an integration's dialog slot busy; frees it (and withdraws an unsettled question)
/// when dropped, which is also what happens when the client disconnects mid-wait.
struct DialogGuard {
    state: ApiState,
    slug: String,
    session: Option<Arc<LiveSession>>,
    node: Option<NodeRef>,
}

impl Drop for DialogGuard {
    fn drop(&mut self) {
        if let Ok(mut waiting) = self.state.waiting.lock() {
            waiting.remove(&self.slug);
        }
        if let (Some(session), Some(node)) = (self.session.take(), self.node.take()) {
            let withdraw = withdrawal(&session, node);
            if let (Some(body), Ok(runtime)) = (withdraw, tokio::runtime::Handle::try_current()) {
                runtime.spawn_blocking(move || session.append(body));
            }
        }
    }
}

/// The event that withdraws a question, if it is still open.
fn withdrawal(session: &LiveSession, node: NodeRef) -> Option<EventBody> {
    session.read(|snapshot| match node {
        NodeRef::Batch(index) => (snapshot.batches[index].status == BatchStatus::Open).then(|| {
            EventBody::ClarificationBatchClosed {
                batch_id: snapshot.batches[index].spec.id.clone(),
                reason: BatchCloseReason::Withdrawn,
            }
        }),
        NodeRef::Confirmation(index) => (snapshot.confirmations[index].status
            == ConfirmationStatus::Pending)
            .then(|| EventBody::ConfirmationResolved {
                confirmation_id: snapshot.confirmations[index].spec.id.clone(),
                outcome: ConfirmationOutcome::Withdrawn,
                comment: None,
            }),
        _ => None,
    })
}

fn settled(snapshot: &Snapshot, node: NodeRef) -> Option<DialogAnswer> {
    match node {
        NodeRef::Batch(index) => answer_of_batch(&snapshot.batches[index]),
        NodeRef::Confirmation(index) => answer_of_confirmation(&snapshot.confirmations[index]),
        _ => None,
    }
}

async fn open_dialog(
    State(state): State<ApiState>,
    UrlPath(slug): UrlPath<String>,
    headers: HeaderMap,
    request: Request,
) -> Result<Json<Value>, ApiError> {
    let integration = match caller(&state, &headers)? {
        Caller::Integration(integration) if integration.slug == slug => integration,
        Caller::Integration(_) => {
            return Err(ApiError::new(
                ErrorCode::Forbidden,
                format!("this token does not belong to \"{slug}\""),
            ))
        }
        Caller::Operator => {
            return Err(ApiError::new(
                ErrorCode::Forbidden,
                "dialogs are opened by integrations, not the operator",
            ))
        }
    };
    if !integration.dialogs {
        return Err(ApiError::new(
            ErrorCode::DialogsDisabled,
            format!("dialogs are not enabled for \"{slug}\" (integration add {slug} --dialogs)"),
        ));
    }
    let body = body_bytes(request).await?;
    {
        let mut waiting = state
            .waiting
            .lock()
            .map_err(|_| ApiError::new(ErrorCode::Internal, "lock poisoned"))?;
        if !waiting.insert(slug.clone()) {
            return Err(ApiError::new(
                ErrorCode::DialogPending,
                format!("\"{slug}\" already has a question waiting"),
            ));
        }
    }
    let mut guard = DialogGuard {
        state: state.clone(),
        slug: slug.clone(),
        session: None,
        node: None,
    };
    let session = state
        .store
        .get_or_create(&slug, &slug)
        .map_err(store_error)?;
    // The id, the thread and the question are chosen and written under the session's lock.
    let asking = slug.clone();
    let (id, timeout) = session
        .append_with(|snapshot| {
            let id = format!(
                "{asking}-{}",
                snapshot.batches.len() + snapshot.confirmations.len() + 1
            );
            let request = parse_dialog(&asking, &body, &id, DIALOG_THREAD)?;
            let mut events = Vec::new();
            if snapshot.thread(&DIALOG_THREAD.into()).is_none() {
                let thread = ThreadSpec {
                    id: DIALOG_THREAD.into(),
                    parent: None,
                    title: format!("Questions from {asking}"),
                    kind: ThreadKind::Topic,
                };
                events.push(EventBody::ThreadOpened { thread });
            }
            events.push(match request.question {
                DialogQuestion::Choice(batch) => EventBody::ClarificationBatchOpened { batch },
                DialogQuestion::Confirmation(confirmation) => {
                    EventBody::ConfirmationRequested { confirmation }
                }
            });
            Ok::<_, ApiError>((events, (id, request.timeout)))
        })
        .await?
        .1;
    // Found by id after the append: another writer to this session cannot shift it.
    let node = session
        .read(|snapshot| {
            let batch = snapshot
                .batches
                .iter()
                .position(|batch| batch.spec.id.as_str() == id)
                .map(NodeRef::Batch);
            batch.or_else(|| {
                let confirmations = &snapshot.confirmations;
                confirmations
                    .iter()
                    .position(|asked| asked.spec.id.as_str() == id)
                    .map(NodeRef::Confirmation)
            })
        })
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::Internal,
                format!("the question \"{id}\" was written but cannot be found"),
            )
        })?;
    guard.session = Some(session.clone());
    guard.node = Some(node);

    let mut shutdown = state.shutdown.clone();
    let answer = tokio::select! {
        found = session.wait_for(timeout, |snapshot| settled(snapshot, node)) => found,
        _ = shutdown.wait_for(|stopping| *stopping) => Some(DialogAnswer::Withdrawn),
        _ = until_removed(&state, &slug) => Some(DialogAnswer::Withdrawn),
    };
    let answer = match answer {
        Some(DialogAnswer::Withdrawn) | None => {
            let expired = answer.is_none();
            let close = session.read(|snapshot| match node {
                NodeRef::Batch(index) if snapshot.batches[index].status == BatchStatus::Open => {
                    Some(EventBody::ClarificationBatchClosed {
                        batch_id: snapshot.batches[index].spec.id.clone(),
                        reason: if expired {
                            BatchCloseReason::Expired
                        } else {
                            BatchCloseReason::Withdrawn
                        },
                    })
                }
                NodeRef::Confirmation(index)
                    if snapshot.confirmations[index].status == ConfirmationStatus::Pending =>
                {
                    Some(EventBody::ConfirmationResolved {
                        confirmation_id: snapshot.confirmations[index].spec.id.clone(),
                        outcome: if expired {
                            ConfirmationOutcome::Expired
                        } else {
                            ConfirmationOutcome::Withdrawn
                        },
                        comment: None,
                    })
                }
                _ => None,
            });
            if let Some(close) = close {
                append(&session, vec![close]).await?;
            }
            session
                .read_durable(|snapshot| settled(snapshot, node))
                .await
                .unwrap_or(DialogAnswer::Withdrawn)
        }
        Some(answer) => answer,
    };
    guard.node = None;
    Ok(Json(answer.to_json()))
}

async fn session_snapshot(
    State(state): State<ApiState>,
    UrlPath(sid): UrlPath<String>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    caller(&state, &headers)?;
    let session = state.store.get(&sid).map_err(store_error)?;
    session
        .read_durable(|snapshot| serde_json::to_value(snapshot))
        .await
        .map(Json)
        .map_err(|error| ApiError::new(ErrorCode::Internal, error.to_string()))
}

/// One open question in `GET /v1/pending`, with the time it was asked for ordering.
fn pending_entries(session_id: &str, snapshot: &Snapshot) -> Vec<(String, Value)> {
    let mut entries = Vec::new();
    for batch in snapshot
        .batches
        .iter()
        .filter(|batch| batch.status == BatchStatus::Open)
    {
        let items: Vec<Value> = batch
            .spec
            .items
            .iter()
            .map(|item| {
                let options: Vec<Value> = item
                    .options
                    .iter()
                    .map(|option| json!({"id": option.id, "label": option.label}))
                    .collect();
                json!({"id": item.id, "prompt": item.prompt, "kind": item.kind, "options": options})
            })
            .collect();
        let entry = json!({"kind": "batch", "session_id": session_id, "id": batch.spec.id, "title": batch.display_title(), "items": items});
        entries.push((batch.opened_at.clone(), entry));
    }
    for confirmation in snapshot
        .confirmations
        .iter()
        .filter(|confirmation| confirmation.status == ConfirmationStatus::Pending)
    {
        let spec = &confirmation.spec;
        let title = spec.title.clone().unwrap_or_else(|| spec.message.clone());
        let entry = json!({"kind": "confirmation", "session_id": session_id, "id": spec.id, "title": title, "message": spec.message});
        entries.push((confirmation.opened_at.clone(), entry));
    }
    entries
}

async fn list_pending(
    State(state): State<ApiState>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    operator(&state, &headers)?;
    let mut entries: Vec<(String, Value)> = Vec::new();
    for (id, session) in state.store.all() {
        entries.extend(
            session
                .read_durable(|snapshot| pending_entries(&id, snapshot))
                .await,
        );
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Json(
        json!({"pending": entries.into_iter().map(|(_, entry)| entry).collect::<Vec<_>>()}),
    ))
}

/// Resolves when the integration `slug` is removed (checked twice a second), so a dialog
/// waiting for it is withdrawn.
async fn until_removed(state: &ApiState, slug: &str) {
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        if let Ok(integrations) = state.tokens.list() {
            if !integrations
                .iter()
                .any(|integration| integration.slug == slug)
            {
                return;
            }
        }
    }
}

/// What kind of question an id names.
enum Asked {
    Batch,
    Confirmation,
}

async fn answer_pending(
    State(state): State<ApiState>,
    UrlPath(id): UrlPath<String>,
    headers: HeaderMap,
    request: Request,
) -> Result<Json<Value>, ApiError> {
    operator(&state, &headers)?;
    let body = body_bytes(request).await?;
    let value: Value = serde_json::from_slice(&body)
        .map_err(|error| ApiError::new(ErrorCode::BadJson, error.to_string()))?;
    let found: Vec<(Arc<LiveSession>, Asked)> = state
        .store
        .all()
        .into_iter()
        .filter_map(|(_, session)| {
            let node = session.read(|snapshot| {
                snapshot
                    .batch(&id.as_str().into())
                    .filter(|batch| batch.status == BatchStatus::Open)
                    .map(|_| Asked::Batch)
                    .or_else(|| {
                        snapshot
                            .confirmation(&id.as_str().into())
                            .filter(|confirmation| {
                                confirmation.status == ConfirmationStatus::Pending
                            })
                            .map(|_| Asked::Confirmation)
                    })
            })?;
            Some((session, node))
        })
        .collect();
    let (session, asked) = match found.len() {
        0 => {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("nothing waits under the id \"{id}\""),
            ))
        }
        1 => found.into_iter().next().expect("one element"),
        _ => {
            return Err(ApiError::new(
                ErrorCode::Ambiguous,
                format!("several sessions wait on \"{id}\""),
            ))
        }
    };
    let event = match asked {
        Asked::Batch => {
            let response: ClarificationResponse = serde_json::from_value(value)
                .map_err(|error| ApiError::new(ErrorCode::Invalid, error.to_string()))?;
            EventBody::ClarificationAnswerSubmitted {
                batch_id: id.as_str().into(),
                answers: response.answers,
                general: response.general,
            }
        }
        Asked::Confirmation => {
            let outcome = match value.get("outcome").and_then(Value::as_str) {
                Some("accepted") => ConfirmationOutcome::Accepted,
                Some("declined") => ConfirmationOutcome::Declined,
                _ => {
                    return Err(ApiError::new(
                        ErrorCode::Invalid,
                        "outcome must be \"accepted\" or \"declined\"",
                    )
                    .with_field("outcome"))
                }
            };
            let comment = value
                .get("comment")
                .and_then(Value::as_str)
                .map(str::to_owned);
            EventBody::ConfirmationResolved {
                confirmation_id: id.as_str().into(),
                outcome,
                comment,
            }
        }
    };
    append(&session, vec![event]).await?;
    Ok(Json(json!({"ok": true})))
}

/// Withdraws dialogs left open by a server that died: their clients are gone.
pub fn withdraw_orphaned_dialogs(store: &SessionStore) -> Result<usize, StoreError> {
    let mut withdrawn = 0;
    for (_, session) in store.all() {
        let orphans: Vec<EventBody> = session
            .read(|snapshot| {
                let in_dialogs =
                    |thread: &chatsurface_model::ThreadId| thread.as_str() == DIALOG_THREAD;
                let batches = (0..snapshot.batches.len())
                    .filter(|&index| in_dialogs(&snapshot.batches[index].spec.thread_id))
                    .map(NodeRef::Batch);
                let confirmations = (0..snapshot.confirmations.len())
                    .filter(|&index| in_dialogs(&snapshot.confirmations[index].spec.thread_id))
                    .map(NodeRef::Confirmation);
                batches.chain(confirmations).collect::<Vec<_>>()
            })
            .into_iter()
            .filter_map(|node| withdrawal(&session, node))
            .collect();
        withdrawn += orphans.len();
        if !orphans.is_empty() {
            session.append_all(orphans)?;
        }
    }
    Ok(withdrawn)
}

/// The longest a batch's expiry timer is set for; a later timeout is not armed (no server
/// runs that long, and the next start arms it again).
const LONGEST_TIMER: std::time::Duration = std::time::Duration::from_secs(366 * 86_400);

/// Closes batch `id` as expired once `after` has passed, unless it was settled by then.
fn expire_when_due(
    session: Arc<LiveSession>,
    id: chatsurface_model::BatchId,
    after: std::time::Duration,
) {
    if after > LONGEST_TIMER {
        return;
    }
    tokio::spawn(async move {
        tokio::time::sleep(after).await;
        // Decided under the session's lock, so an answer landing meanwhile wins.
        let _ = session
            .append_with(|snapshot| {
                let open = snapshot
                    .batch(&id)
                    .is_some_and(|batch| batch.status == BatchStatus::Open);
                let close = open.then(|| EventBody::ClarificationBatchClosed {
                    batch_id: id.clone(),
                    reason: BatchCloseReason::Expired,
                });
                Ok::<_, StoreError>((close.into_iter().collect(), ()))
            })
            .await;
    });
}

/// Arms the expiry of every open batch that has a timeout, counted from when it was asked:
/// what a server does when it starts, so a batch outlives a restart with its deadline (one
/// that passed while no server ran expires at once). Dialogs are not batches of this kind:
/// their question dies with their connection (see [`withdraw_orphaned_dialogs`]).
fn expire_batches_when_due(store: &SessionStore) {
    let now = std::time::SystemTime::now();
    for (_, session) in store.all() {
        let due: Vec<_> = session.read(|snapshot| {
            snapshot
                .batches
                .iter()
                .filter(|batch| {
                    batch.status == BatchStatus::Open
                        && batch.spec.thread_id.as_str() != DIALOG_THREAD
                })
                .filter_map(|batch| Some((batch.spec.id.clone(), batch.time_left(now)?)))
                .collect()
        });
        for (id, after) in due {
            expire_when_due(session.clone(), id, after);
        }
    }
}

/// Where the API listens.
#[derive(Clone, Debug)]
pub struct Listen {
    /// The unix socket (created with mode 0600).
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
    // A directory made here is private; one that exists already (say /tmp) is left as it is.
    if let Some(parent) = listen.socket.parent().filter(|parent| !parent.exists()) {
        std::fs::create_dir_all(parent)?;
        std::fs::set_permissions(parent, std::fs::Permissions::from_mode(0o700))?;
    }
    if listen.socket.exists() {
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
    expire_batches_when_due(&state.store);
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

    let until_stopped = |mut receiver: watch::Receiver<bool>| async move {
        let _ = receiver.wait_for(|stopping| *stopping).await;
    };
    tokio::spawn(async move {
        stop.await;
        let _ = stop_sender.send(true);
    });
    let unix_server =
        axum::serve(unix, app.clone()).with_graceful_shutdown(until_stopped(stopping.clone()));
    let result = match listen.tcp {
        Some(address) => {
            let tcp = tokio::net::TcpListener::bind(address).await?;
            let tcp_server = axum::serve(tcp, app).with_graceful_shutdown(until_stopped(stopping));
            tokio::try_join!(unix_server.into_future(), tcp_server.into_future()).map(|_| ())
        }
        None => unix_server.await,
    };
    let _ = std::fs::remove_file(&listen.socket);
    result
}

fn json_body(body: &[u8]) -> Result<serde_json::Map<String, Value>, ApiError> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ApiError::new(
            ErrorCode::BadJson,
            "the body must be a JSON object",
        )),
        Err(error) => Err(ApiError::new(ErrorCode::BadJson, error.to_string())),
    }
}

/// Appends what an agent mirrors to session `sid` (created on first use unless it must
/// exist already), all of it or nothing, with one fsync; returns the ids `add` chose.
async fn append_mirrored<T>(
    state: &ApiState,
    sid: &str,
    must_exist: bool,
    add: impl FnOnce(&mut MirrorBuild) -> Result<T, ApiError>,
) -> Result<T, ApiError> {
    let session = if must_exist {
        state.store.get(sid)
    } else {
        state.store.get_or_create(sid, sid)
    }
    .map_err(store_error)?;
    let (_, ids) = session
        .append_with(|snapshot| {
            let mut build = MirrorBuild::new(snapshot, sid);
            let ids = add(&mut build)?;
            Ok::<_, ApiError>((build.finish(), ids))
        })
        .await?;
    Ok(ids)
}

/// Appends one mirrored thing (the body of a single-event endpoint); answers its id.
async fn append_one(
    state: &ApiState,
    sid: &str,
    must_exist: bool,
    mirrored: Mirrored,
) -> Result<Json<Value>, ApiError> {
    let id = append_mirrored(state, sid, must_exist, move |build| build.add(mirrored)).await?;
    Ok(Json(json!({ "id": id })))
}

/// `POST …/messages`, `…/threads`, `…/decisions`: one mirrored thing, `kind` of the body.
async fn post_mirrored(
    State(state): State<ApiState>,
    UrlPath(sid): UrlPath<String>,
    headers: HeaderMap,
    request: Request,
    kind: fn(serde_json::Map<String, Value>) -> Mirrored,
) -> Result<Json<Value>, ApiError> {
    caller(&state, &headers)?;
    let map = json_body(&body_bytes(request).await?)?;
    append_one(&state, &sid, false, kind(map)).await
}

async fn post_chunk(
    State(state): State<ApiState>,
    UrlPath((sid, mid)): UrlPath<(String, String)>,
    headers: HeaderMap,
    request: Request,
) -> Result<Json<Value>, ApiError> {
    caller(&state, &headers)?;
    let chunk = Mirrored::chunk(&mid, json_body(&body_bytes(request).await?)?)?;
    append_one(&state, &sid, true, chunk).await
}

/// `POST …/events`: many mirrored things in one request, written together with one fsync
/// (all or none), for agents that stream faster than a request per event allows.
async fn post_events(
    State(state): State<ApiState>,
    UrlPath(sid): UrlPath<String>,
    headers: HeaderMap,
    request: Request,
) -> Result<Json<Value>, ApiError> {
    caller(&state, &headers)?;
    let entries = Mirrored::list(json_body(&body_bytes(request).await?)?)?;
    let ids = append_mirrored(&state, &sid, false, move |build| build.add_entries(entries)).await?;
    Ok(Json(json!({ "ids": ids })))
}

/// Where a batch stands, as the clarification endpoints report it; `None` while open.
fn batch_outcome(snapshot: &Snapshot, batch_id: &chatsurface_model::BatchId) -> Option<Value> {
    let batch = snapshot.batch(batch_id)?;
    match batch.status {
        BatchStatus::Open => None,
        BatchStatus::Answered => {
            Some(json!({"batch_id": batch_id, "status": "answered", "response": batch.response}))
        }
        status => Some(json!({"batch_id": batch_id, "status": status.as_str()})),
    }
}

/// Waits up to `wait` (forever when `None`) for a batch to settle.
async fn await_batch(
    session: &Arc<LiveSession>,
    batch_id: chatsurface_model::BatchId,
    wait: Option<f64>,
) -> Value {
    let limit = wait.map_or(std::time::Duration::MAX, |seconds| {
        std::time::Duration::from_secs_f64(seconds.clamp(0.0, 86_400.0))
    });
    let limit = limit.min(std::time::Duration::from_secs(86_400 * 365));
    session
        .wait_for(limit, |snapshot| batch_outcome(snapshot, &batch_id))
        .await
        .unwrap_or_else(|| json!({"pending": true, "batch_id": batch_id}))
}

fn wait_seconds(value: Option<&Value>) -> Result<Option<f64>, ApiError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(value) => match value.as_f64() {
            Some(seconds) if seconds.is_finite() && seconds >= 0.0 => Ok(Some(seconds)),
            _ => Err(
                ApiError::new(ErrorCode::Invalid, "wait: a number of seconds, 0 or more")
                    .with_field("wait"),
            ),
        },
    }
}

async fn open_batch(
    State(state): State<ApiState>,
    UrlPath(sid): UrlPath<String>,
    headers: HeaderMap,
    request: Request,
) -> Result<Json<Value>, ApiError> {
    caller(&state, &headers)?;
    let mut map = json_body(&body_bytes(request).await?)?;
    let wait = wait_seconds(map.remove("wait").as_ref())?;
    let thread = mirror::thread_of(&mut map);
    let batch: chatsurface_model::BatchSpec = mirror::typed(map)?;
    let (id, timeout) = (batch.id.clone(), batch.timeout_s);
    append_mirrored(&state, &sid, false, move |build| {
        build.add_in_thread(&thread, EventBody::ClarificationBatchOpened { batch });
        Ok(())
    })
    .await?;
    let session = state.store.get(&sid).map_err(store_error)?;
    if let Some(seconds) = timeout {
        let after = std::time::Duration::try_from_secs_f64(seconds).unwrap_or(LONGEST_TIMER);
        expire_when_due(session.clone(), id.clone(), after);
    }
    Ok(Json(await_batch(&session, id, wait).await))
}

async fn poll_batch(
    State(state): State<ApiState>,
    UrlPath((sid, bid)): UrlPath<(String, String)>,
    axum::extract::Query(query): axum::extract::Query<std::collections::HashMap<String, String>>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    caller(&state, &headers)?;
    let wait = match query.get("wait") {
        None => Some(0.0),
        Some(text) => Some(
            text.parse::<f64>()
                .ok()
                .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
                .ok_or_else(|| {
                    ApiError::new(ErrorCode::Invalid, "wait: a number of seconds, 0 or more")
                        .with_field("wait")
                })?,
        ),
    };
    let session = state.store.get(&sid).map_err(store_error)?;
    let id: chatsurface_model::BatchId = bid.as_str().into();
    if session.read(|snapshot| snapshot.batch(&id).is_none()) {
        return Err(ApiError::new(
            ErrorCode::NotFound,
            format!("session \"{sid}\" has no batch \"{bid}\""),
        ));
    }
    Ok(Json(await_batch(&session, id, wait).await))
}

async fn session_events(
    State(state): State<ApiState>,
    UrlPath(sid): UrlPath<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
    caller(&state, &headers)?;
    let session = state.store.get(&sid).map_err(store_error)?;
    let receiver = session.subscribe();
    let stream = futures_util::stream::unfold(receiver, |mut receiver| async move {
        let sse = match receiver.recv().await {
            Ok(event) => SseEvent::default()
                .event("event")
                .id(event.seq.to_string())
                .data(event.to_line()),
            Err(tokio::sync::broadcast::error::RecvError::Lagged(missed)) => {
                SseEvent::default().event("lagged").data(missed.to_string())
            }
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
        };
        Some((Ok::<_, std::convert::Infallible>(sse), receiver))
    });
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response())
}
