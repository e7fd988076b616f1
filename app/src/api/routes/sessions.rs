//! Reading a session: `GET /v1/sessions/{sid}/snapshot` (the folded state, fsynced) and
//! `GET /v1/sessions/{sid}/events` (its events as they are appended, as server-sent events).
//!
//! The operator reads every session, an integration its own (`api::access`). This module
//! must not write to a session.

use crate::api::access;
use crate::api::auth::Caller;
use crate::api::error::{ApiError, ErrorCode};
use crate::api::ApiState;
use axum::extract::{Path, State};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use tokio::sync::broadcast::error::RecvError;

/// `GET …/snapshot`: the session as folded, once all of it is on disk.
pub(in crate::api) async fn snapshot(
    State(state): State<ApiState>,
    caller: Caller,
    Path(sid): Path<String>,
) -> Result<Response, ApiError> {
    let session = access::session_for(&state, &caller, &sid)?;
    // Held until the response is built: a snapshot's JSON is as large as its session.
    let _turn = state
        .snapshots
        .acquire()
        .await
        .map_err(|error| ApiError::new(ErrorCode::Internal, error.to_string()))?;
    session
        .read_durable(serde_json::to_vec)
        .await
        .map(|bytes| {
            (
                [(axum::http::header::CONTENT_TYPE, "application/json")],
                bytes,
            )
                .into_response()
        })
        .map_err(|error| ApiError::new(ErrorCode::Internal, error.to_string()))
}

/// `GET …/events`: every event appended from now on, one SSE `event` each; a reader too slow
/// to keep up gets a `lagged` event with the number it missed.
pub(in crate::api) async fn events(
    State(state): State<ApiState>,
    caller: Caller,
    Path(sid): Path<String>,
) -> Result<Response, ApiError> {
    let session = access::session_for(&state, &caller, &sid)?;
    let receiver = session.subscribe();
    let stream = futures_util::stream::unfold(receiver, |mut receiver| async move {
        let sse = match receiver.recv().await {
            Ok(event) => SseEvent::default()
                .event("event")
                .id(event.seq.to_string())
                .data(event.to_line()),
            Err(RecvError::Lagged(missed)) => {
                SseEvent::default().event("lagged").data(missed.to_string())
            }
            Err(RecvError::Closed) => return None,
        };
        Some((Ok::<_, std::convert::Infallible>(sse), receiver))
    });
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response())
}
