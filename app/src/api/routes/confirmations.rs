//! Confirmations an agent asks directly in a session: `POST /v1/sessions/{sid}/confirmations`
//! opens one (in its `thread_id`, the main thread by default) and waits up to `wait` seconds
//! for the human's verdict; `hold: true` withdraws it if the client goes away first. Where
//! many agents share one integration (a bridge such as the Claude Code hook), each asks in its
//! own session, any number at a time, unlike a dialog's one slot.
//!
//! The confirmation's rules are the model's; the event that expires or withdraws it is
//! `api::questions`'s.

use super::batches::{expire_when_due, hold_flag, wait_seconds, LONGEST_TIMER, LONGEST_WAIT};
use super::mirror::append_mirrored;
use crate::api::auth::Caller;
use crate::api::error::ApiError;
use crate::api::extract::JsonObject;
use crate::api::mirror;
use crate::api::questions::WithdrawIfDropped;
use crate::api::ApiState;
use axum::extract::{Path, State};
use axum::Json;
use chatsurface_model::{
    ConfirmationId, ConfirmationSpec, ConfirmationStatus, EventBody, Snapshot,
};
use serde_json::{json, Value};
use std::time::Duration;

/// `POST …/confirmations`: opens the confirmation of the body, arms its timeout, and waits up
/// to `wait` seconds (forever when absent) for it to settle.
pub(in crate::api) async fn open(
    State(state): State<ApiState>,
    caller: Caller,
    Path(sid): Path<String>,
    JsonObject(mut body): JsonObject,
) -> Result<Json<Value>, ApiError> {
    let wait = wait_seconds(body.remove("wait").as_ref())?;
    let hold = hold_flag(body.remove("hold").as_ref())?;
    let thread = mirror::thread_of(&mut body);
    let mut confirmation: ConfirmationSpec = mirror::typed(body)?;
    confirmation.held = hold;
    let (id, timeout) = (confirmation.id.clone(), confirmation.timeout_s);
    append_mirrored(&state, (&caller, &sid), false, move |build| {
        build.add_in_thread(&thread, EventBody::ConfirmationRequested { confirmation });
        Ok(())
    })
    .await?;
    let session = state.store.get(&sid)?;
    if let Some(seconds) = timeout {
        let after = Duration::try_from_secs_f64(seconds).unwrap_or(LONGEST_TIMER);
        expire_when_due(session.clone(), id.to_string(), after);
    }
    let withdrawal = hold.then(|| WithdrawIfDropped::new(session.clone(), id.to_string()));
    let limit = wait.map_or(Duration::MAX, |seconds| {
        Duration::from_secs_f64(seconds.clamp(0.0, 86_400.0))
    });
    let outcome = session
        .wait_for(limit.min(LONGEST_WAIT), |snapshot| outcome(snapshot, &id))
        .await
        .unwrap_or_else(|| json!({"pending": true, "confirmation_id": id}));
    if let Some(withdrawal) = withdrawal {
        withdrawal.disarm();
    }
    Ok(Json(outcome))
}

/// Where a confirmation stands: `None` while it waits, else its status and the human's
/// comment, if any.
fn outcome(snapshot: &Snapshot, id: &ConfirmationId) -> Option<Value> {
    let confirmation = snapshot
        .confirmations
        .iter()
        .find(|asked| &asked.spec.id == id)?;
    let status = match confirmation.status {
        ConfirmationStatus::Pending => return None,
        ConfirmationStatus::Accepted => "accepted",
        ConfirmationStatus::Declined => "declined",
        ConfirmationStatus::Expired => "expired",
        ConfirmationStatus::Withdrawn => "withdrawn",
    };
    let mut value = json!({"confirmation_id": id, "status": status});
    if let Some(comment) = &confirmation.outcome_comment {
        value["comment"] = json!(comment);
    }
    if confirmation.accepted_always {
        value["always"] = json!(true);
    }
    Some(value)
}
