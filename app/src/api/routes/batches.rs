//! Clarification batches an agent opens directly in a session: `POST
//! /v1/sessions/{sid}/clarifications` (open, and wait up to `wait` seconds for the answer) and
//! `GET …/clarifications/{bid}?wait=` (where it stands), and the timers that expire a batch
//! at its timeout, armed again when the server starts.
//!
//! The batch's rules are the model's; the event that expires it is `api::questions`'s.

use super::mirror::append_mirrored;
use crate::api::auth::Caller;
use crate::api::error::{ApiError, ErrorCode};
use crate::api::extract::JsonObject;
use crate::api::mirror;
use crate::api::questions::{self, Unanswered, WithdrawIfDropped};
use crate::api::store::{LiveSession, SessionStore, StoreError};
use crate::api::{ApiState, DIALOG_THREAD};
use axum::extract::{Path, Query, State};
use axum::Json;
use chatsurface_model::{BatchId, BatchSpec, BatchStatus, EventBody, Snapshot};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// The longest a batch's expiry timer is set for; a later timeout is not armed (no server
/// runs that long, and the next start arms it again).
pub(super) const LONGEST_TIMER: Duration = Duration::from_secs(366 * 86_400);

/// The longest a request may wait for an answer.
pub(super) const LONGEST_WAIT: Duration = Duration::from_secs(86_400 * 365);

/// `POST …/clarifications`: opens the batch of the body (in its `thread_id`, the main thread
/// by default), arms its timeout, and waits up to `wait` seconds (forever when absent).
pub(in crate::api) async fn open(
    State(state): State<ApiState>,
    caller: Caller,
    Path(sid): Path<String>,
    JsonObject(mut body): JsonObject,
) -> Result<Json<Value>, ApiError> {
    let wait = wait_seconds(body.remove("wait").as_ref())?;
    let hold = hold_flag(body.remove("hold").as_ref())?;
    let thread = mirror::thread_of(&mut body);
    let mut batch: BatchSpec = mirror::typed(body)?;
    batch.held = hold;
    chatsurface_model::validate_batch_size(&batch).map_err(ApiError::invalid)?;
    let (id, timeout) = (batch.id.clone(), batch.timeout_s);
    append_mirrored(&state, (&caller, &sid), false, move |build| {
        build.add_in_thread(&thread, EventBody::ClarificationBatchOpened { batch });
        Ok(())
    })
    .await?;
    let session = state.store.get(&sid)?;
    if let Some(seconds) = timeout {
        let after = Duration::try_from_secs_f64(seconds).unwrap_or(LONGEST_TIMER);
        expire_when_due(session.clone(), id.to_string(), after);
    }
    let withdrawal = hold.then(|| WithdrawIfDropped::new(session.clone(), id.to_string()));
    let outcome = await_batch(&session, id, wait).await;
    if let Some(withdrawal) = withdrawal {
        withdrawal.disarm();
    }
    Ok(Json(outcome))
}

/// The `hold` field of a body: whether the question is withdrawn when the client goes away
/// before it settles (false when absent).
pub(super) fn hold_flag(value: Option<&Value>) -> Result<bool, ApiError> {
    match value {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(hold)) => Ok(*hold),
        Some(_) => Err(ApiError::new(ErrorCode::Invalid, "hold: true or false").with_field("hold")),
    }
}

/// `GET …/clarifications/{bid}?wait=`: where the batch stands, waiting up to `wait` seconds
/// (not at all when absent) for it to settle.
pub(in crate::api) async fn poll(
    State(state): State<ApiState>,
    caller: Caller,
    Path((sid, bid)): Path<(String, String)>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    let wait = match query.get("wait") {
        None => Some(0.0),
        Some(text) => Some(
            text.parse::<f64>()
                .ok()
                .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
                .ok_or_else(bad_wait)?,
        ),
    };
    let session = crate::api::access::session_for(&state, &caller, &sid)?;
    let id: BatchId = bid.as_str().into();
    if session.read(|snapshot| snapshot.batch(&id).is_none()) {
        return Err(ApiError::new(
            ErrorCode::NotFound,
            format!("session \"{sid}\" has no batch \"{bid}\""),
        ));
    }
    Ok(Json(await_batch(&session, id, wait).await))
}

pub(super) fn bad_wait() -> ApiError {
    ApiError::new(ErrorCode::Invalid, "wait: a number of seconds, 0 or more").with_field("wait")
}

/// The `wait` field of a body: absent or null for "forever", else seconds, 0 or more.
pub(super) fn wait_seconds(value: Option<&Value>) -> Result<Option<f64>, ApiError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(value) => match value.as_f64() {
            Some(seconds) if seconds.is_finite() && seconds >= 0.0 => Ok(Some(seconds)),
            _ => Err(bad_wait()),
        },
    }
}

/// Where a batch stands, as the clarification endpoints report it; `None` while open.
fn batch_outcome(snapshot: &Snapshot, batch_id: &BatchId) -> Option<Value> {
    let batch = snapshot.batch(batch_id)?;
    match batch.status {
        BatchStatus::Open => None,
        BatchStatus::Answered => {
            Some(json!({"batch_id": batch_id, "status": "answered", "response": batch.response}))
        }
        status => Some(json!({"batch_id": batch_id, "status": status.as_str()})),
    }
}

/// Waits up to `wait` seconds (forever when `None`) for a batch to settle.
async fn await_batch(session: &Arc<LiveSession>, batch_id: BatchId, wait: Option<f64>) -> Value {
    let limit = wait.map_or(Duration::MAX, |seconds| {
        Duration::from_secs_f64(seconds.clamp(0.0, 86_400.0))
    });
    session
        .wait_for(limit.min(LONGEST_WAIT), |snapshot| {
            batch_outcome(snapshot, &batch_id)
        })
        .await
        .unwrap_or_else(|| json!({"pending": true, "batch_id": batch_id}))
}

/// Closes question `id` (a batch or a confirmation) as expired once `after` has passed, unless it was settled by then.
pub(super) fn expire_when_due(session: Arc<LiveSession>, id: String, after: Duration) {
    if after > LONGEST_TIMER {
        return;
    }
    tokio::spawn(async move {
        tokio::time::sleep(after).await;
        // Decided under the session's lock, so an answer landing meanwhile wins.
        let _ = session
            .append_with(|snapshot| {
                let close = questions::find(snapshot, id.as_str())
                    .and_then(|node| questions::close(snapshot, node, Unanswered::Expired));
                Ok::<_, StoreError>((close.into_iter().collect(), ()))
            })
            .await;
    });
}

/// Arms the expiry of every open batch that has a timeout, counted from when it was asked:
/// what a server does when it starts, so a batch outlives a restart with its deadline (one
/// that passed while no server ran expires at once). Dialogs are not batches of this kind:
/// their question dies with their connection (see `withdraw_orphaned_questions`).
pub(in crate::api) fn expire_batches_when_due(store: &SessionStore) {
    let now = SystemTime::now();
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
            expire_when_due(session.clone(), id.to_string(), after);
        }
    }
}
