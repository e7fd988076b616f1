//! The operator's view of what waits: `GET /v1/pending` (every open batch and pending
//! confirmation of every session, oldest first) and `POST /v1/pending/{id}` (answer one).
//!
//! Only the operator token may call these. An answer names its question by id; the fold
//! checks it again under the session's lock, so a question settled meanwhile refuses it.

use crate::api::error::{ApiError, ErrorCode};
use crate::api::extract::{Operator, RawBody};
use crate::api::store::LiveSession;
use crate::api::{append, ApiState};
use axum::extract::{Path, State};
use axum::Json;
use chatsurface_model::{
    BatchStatus, ClarificationBatch, ClarificationResponse, Confirmation, ConfirmationOutcome,
    ConfirmationStatus, EventBody, Snapshot,
};
use serde_json::{json, Value};
use std::sync::Arc;

/// `GET /v1/pending`.
pub(in crate::api) async fn list(
    State(state): State<ApiState>,
    _: Operator,
) -> Result<Json<Value>, ApiError> {
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

/// The open questions of one session, each with the time it was asked, for ordering.
fn pending_entries(session_id: &str, snapshot: &Snapshot) -> Vec<(String, Value)> {
    let batches = snapshot
        .batches
        .iter()
        .filter(|batch| batch.status == BatchStatus::Open)
        .map(|batch| (batch.opened_at.clone(), batch_entry(session_id, batch)));
    let confirmations = snapshot
        .confirmations
        .iter()
        .filter(|confirmation| confirmation.status == ConfirmationStatus::Pending)
        .map(|asked| {
            (
                asked.opened_at.clone(),
                confirmation_entry(session_id, asked),
            )
        });
    batches.chain(confirmations).collect()
}

fn batch_entry(session_id: &str, batch: &ClarificationBatch) -> Value {
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
    json!({"kind": "batch", "session_id": session_id, "id": batch.spec.id, "title": batch.display_title(), "items": items})
}

fn confirmation_entry(session_id: &str, confirmation: &Confirmation) -> Value {
    let spec = &confirmation.spec;
    let title = spec.title.clone().unwrap_or_else(|| spec.message.clone());
    let mut entry = json!({"kind": "confirmation", "session_id": session_id, "id": spec.id, "title": title, "message": spec.message});
    if let Some(always) = &spec.accept_always {
        entry["accept_always"] = json!(always);
    }
    entry
}

/// What kind of question an id names.
enum Asked {
    Batch,
    Confirmation,
}

/// `POST /v1/pending/{id}`: a batch's answers (`{"answers": …, "general"?: …}`) or a
/// confirmation's outcome (`{"outcome": "accepted" | "declined", "comment"?: …}`).
pub(in crate::api) async fn answer(
    State(state): State<ApiState>,
    _: Operator,
    Path(id): Path<String>,
    RawBody(body): RawBody,
) -> Result<Json<Value>, ApiError> {
    let value: Value = serde_json::from_slice(&body)
        .map_err(|error| ApiError::new(ErrorCode::BadJson, error.to_string()))?;
    let (session, asked) = waiting_on(&state, &id)?;
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
        Asked::Confirmation => EventBody::ConfirmationResolved {
            confirmation_id: id.as_str().into(),
            outcome: match value.get("outcome").and_then(Value::as_str) {
                Some("accepted") => ConfirmationOutcome::Accepted,
                Some("declined") => ConfirmationOutcome::Declined,
                _ => {
                    return Err(ApiError::new(
                        ErrorCode::Invalid,
                        "outcome must be \"accepted\" or \"declined\"",
                    )
                    .with_field("outcome"))
                }
            },
            comment: value
                .get("comment")
                .and_then(Value::as_str)
                .map(str::to_owned),
            always: match value.get("always") {
                None => false,
                Some(Value::Bool(always)) => *always,
                Some(_) => {
                    return Err(
                        ApiError::new(ErrorCode::Invalid, "always must be a boolean")
                            .with_field("always"),
                    )
                }
            },
        },
    };
    append(&session, vec![event]).await?;
    Ok(Json(json!({"ok": true})))
}

/// The one session with an open question under `id`, and what kind of question it is.
fn waiting_on(state: &ApiState, id: &str) -> Result<(Arc<LiveSession>, Asked), ApiError> {
    let mut found = state.store.all().into_iter().filter_map(|(_, session)| {
        let asked = session.read(|snapshot| {
            let batch = snapshot
                .batch(&id.into())
                .filter(|batch| batch.status == BatchStatus::Open)
                .map(|_| Asked::Batch);
            batch.or_else(|| {
                snapshot
                    .confirmation(&id.into())
                    .filter(|confirmation| confirmation.status == ConfirmationStatus::Pending)
                    .map(|_| Asked::Confirmation)
            })
        })?;
        Some((session, asked))
    });
    match (found.next(), found.next()) {
        (Some(one), None) => Ok(one),
        (None, _) => Err(ApiError::new(
            ErrorCode::NotFound,
            format!("nothing waits under the id \"{id}\""),
        )),
        (Some(_), Some(_)) => Err(ApiError::new(
            ErrorCode::Ambiguous,
            format!("several sessions wait on \"{id}\""),
        )),
    }
}
