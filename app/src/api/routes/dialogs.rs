//! `POST /v1/integrations/{slug}/dialogs`: an integration asks its human one question and
//! holds the connection until it is settled.
//!
//! A dialog goes through five steps, one function each: the caller is authorised (the
//! [`Asker`] extractor), the integration's one dialog slot is reserved ([`DialogSlot`]), the
//! question is appended, the answer is waited for, and a question that ends unanswered is
//! settled (expired or withdrawn). Dropping the slot, which is also what happens when the client
//! disconnects mid-wait, frees it and withdraws the question if it is still open. The body's
//! rules are `dialog.rs`'s; this module must not parse the body itself.

use crate::api::dialog::{answer_of_batch, answer_of_confirmation, parse_dialog, DialogQuestion};
use crate::api::error::{ApiError, ErrorCode};
use crate::api::extract::{Asker, RawBody};
use crate::api::protocol::DialogAnswer;
use crate::api::questions::{self, Unanswered};
use crate::api::store::{LiveSession, SessionStore, StoreError};
use crate::api::{append, ApiState, DIALOG_THREAD};
use axum::body::Bytes;
use axum::extract::State;
use axum::Json;
use chatsurface_model::{EventBody, NodeRef, Snapshot, ThreadKind, ThreadSpec};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// How often a waiting dialog checks that its integration still exists.
const REMOVAL_CHECK: Duration = Duration::from_millis(500);

/// The handler: authorise, reserve, append, wait, settle.
pub(in crate::api) async fn open_dialog(
    State(state): State<ApiState>,
    Asker(integration): Asker,
    RawBody(body): RawBody,
) -> Result<Json<Value>, ApiError> {
    let slug = integration.slug;
    let mut slot = DialogSlot::reserve(&state, &slug)?;
    // The session named after the slug is the integration's own (others may not create it).
    let session = state.store.get_or_create(&slug, &slug, Some(&slug))?;
    let (node, timeout) = match ask(&session, &slug, body).await {
        Ok(asked) => asked,
        Err(error) => {
            state.store.forget_if_unwritten(&slug, session);
            return Err(error);
        }
    };
    slot.asked = Some((session.clone(), node));
    let answer = match wait(&state, &session, &slug, node, timeout).await {
        Some(DialogAnswer::Withdrawn) => settle(&session, node, Unanswered::Withdrawn).await?,
        None => settle(&session, node, Unanswered::Expired).await?,
        Some(answer) => answer,
    };
    slot.asked = None;
    Ok(Json(answer.to_json()))
}

/// An integration's one dialog slot, held while its dialog waits; dropping it frees the slot
/// and withdraws the question it asked, if that is still open.
struct DialogSlot {
    state: ApiState,
    slug: String,
    /// The question asked, once it is written and until it is settled.
    asked: Option<(Arc<LiveSession>, NodeRef)>,
}

impl DialogSlot {
    /// Takes the slot of `slug`, or says that it already has a question waiting.
    fn reserve(state: &ApiState, slug: &str) -> Result<DialogSlot, ApiError> {
        let mut waiting = state
            .waiting
            .lock()
            .map_err(|_| ApiError::new(ErrorCode::Internal, "lock poisoned"))?;
        if !waiting.insert(slug.to_owned()) {
            return Err(ApiError::new(
                ErrorCode::DialogPending,
                format!("\"{slug}\" already has a question waiting"),
            ));
        }
        Ok(DialogSlot {
            state: state.clone(),
            slug: slug.to_owned(),
            asked: None,
        })
    }
}

impl Drop for DialogSlot {
    fn drop(&mut self) {
        if let Ok(mut waiting) = self.state.waiting.lock() {
            waiting.remove(&self.slug);
        }
        if let Some((session, node)) = self.asked.take() {
            let withdraw =
                session.read(|snapshot| questions::close(snapshot, node, Unanswered::Withdrawn));
            if let (Some(body), Ok(runtime)) = (withdraw, tokio::runtime::Handle::try_current()) {
                runtime.spawn_blocking(move || session.append(body));
            }
        }
    }
}

/// Appends the question `body` asks (and the dialogs thread, the first time), choosing its id
/// under the session's lock; returns where it is and how long it may wait.
async fn ask(
    session: &Arc<LiveSession>,
    slug: &str,
    body: Bytes,
) -> Result<(NodeRef, Duration), ApiError> {
    let (_, (id, timeout)) = session
        .append_with(|snapshot| {
            let asked = snapshot.batches.len() + snapshot.confirmations.len();
            let id = format!("{slug}-{}", asked + 1);
            let request = parse_dialog(slug, &body, &id, DIALOG_THREAD)?;
            let mut events = Vec::new();
            if snapshot.thread(&DIALOG_THREAD.into()).is_none() {
                let thread = ThreadSpec {
                    id: DIALOG_THREAD.into(),
                    parent: None,
                    title: format!("Questions from {slug}"),
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
        .await?;
    // Found by id after the append: another writer to this session cannot shift it.
    let node = session
        .read(|snapshot| questions::find(snapshot, &id))
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::Internal,
                format!("the question \"{id}\" was written but cannot be found"),
            )
        })?;
    Ok((node, timeout))
}

/// The answer once the human gives one; `Withdrawn` when the server stops or the integration
/// is removed first; `None` when `timeout` passes.
async fn wait(
    state: &ApiState,
    session: &Arc<LiveSession>,
    slug: &str,
    node: NodeRef,
    timeout: Duration,
) -> Option<DialogAnswer> {
    let mut shutdown = state.shutdown.clone();
    tokio::select! {
        found = session.wait_for(timeout, |snapshot| settled(snapshot, node)) => found,
        _ = shutdown.wait_for(|stopping| *stopping) => Some(DialogAnswer::Withdrawn),
        _ = until_removed(state, slug) => Some(DialogAnswer::Withdrawn),
    }
}

/// Ends a question that was not answered, unless an answer landed meanwhile (it wins), and
/// returns what the question came to.
async fn settle(
    session: &Arc<LiveSession>,
    node: NodeRef,
    why: Unanswered,
) -> Result<DialogAnswer, ApiError> {
    if let Some(close) = session.read(|snapshot| questions::close(snapshot, node, why)) {
        append(session, vec![close]).await?;
    }
    Ok(session
        .read_durable(|snapshot| settled(snapshot, node))
        .await
        .unwrap_or(DialogAnswer::Withdrawn))
}

/// The dialog answer a question has come to, or `None` while it waits.
fn settled(snapshot: &Snapshot, node: NodeRef) -> Option<DialogAnswer> {
    match node {
        NodeRef::Batch(index) => answer_of_batch(&snapshot.batches[index]),
        NodeRef::Confirmation(index) => answer_of_confirmation(&snapshot.confirmations[index]),
        _ => None,
    }
}

/// Resolves when the integration `slug` is removed, so a dialog waiting for it is withdrawn.
async fn until_removed(state: &ApiState, slug: &str) {
    loop {
        tokio::time::sleep(REMOVAL_CHECK).await;
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

/// Withdraws the questions a server that died left waiting for clients that are gone: its
/// dialogs, and the questions asked with `hold` (a bridge's hook).
pub fn withdraw_orphaned_questions(store: &SessionStore) -> Result<usize, StoreError> {
    let mut withdrawn = 0;
    for (_, session) in store.all() {
        let orphans: Vec<EventBody> = session.read(|snapshot| {
            let orphaned = |thread: &chatsurface_model::ThreadId, held: bool| {
                held || thread.as_str() == DIALOG_THREAD
            };
            let batches = (0..snapshot.batches.len())
                .filter(|&index| {
                    let spec = &snapshot.batches[index].spec;
                    orphaned(&spec.thread_id, spec.held)
                })
                .map(NodeRef::Batch);
            let confirmations = (0..snapshot.confirmations.len())
                .filter(|&index| {
                    let spec = &snapshot.confirmations[index].spec;
                    orphaned(&spec.thread_id, spec.held)
                })
                .map(NodeRef::Confirmation);
            batches
                .chain(confirmations)
                .filter_map(|node| questions::close(snapshot, node, Unanswered::Withdrawn))
                .collect()
        });
        withdrawn += orphans.len();
        if !orphans.is_empty() {
            session.append_all(orphans)?;
        }
    }
    Ok(withdrawn)
}
