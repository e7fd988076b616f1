//! The table of endpoints: which path and method go to which handler. One file per group of
//! routes below; each handler says who may call it by the extractors it takes
//! (`api::extract`).

mod batches;
mod confirmations;
mod dialogs;
mod mirror;
mod pending;
mod sessions;

pub(super) use batches::expire_batches_when_due;
pub use dialogs::withdraw_orphaned_questions;

use super::error::{ApiError, ErrorCode};
use super::mirror::Mirrored;
use super::ApiState;
use axum::routing::{get, post};
use axum::Router;

/// Builds the router over `state`.
pub fn router(state: ApiState) -> Router {
    Router::new()
        .route(
            "/v1/integrations/{slug}/dialogs",
            post(dialogs::open_dialog),
        )
        .route("/v1/sessions/{sid}/snapshot", get(sessions::snapshot))
        .route(
            "/v1/sessions/{sid}/events",
            get(sessions::events).post(mirror::post_events),
        )
        .route("/v1/sessions/{sid}/clarifications", post(batches::open))
        .route(
            "/v1/sessions/{sid}/confirmations",
            post(confirmations::open),
        )
        .route(
            "/v1/sessions/{sid}/clarifications/{bid}",
            get(batches::poll),
        )
        .route(
            "/v1/sessions/{sid}/messages",
            post(|state, caller, sid, body| {
                mirror::post_one(state, caller, sid, body, Mirrored::Message)
            }),
        )
        .route(
            "/v1/sessions/{sid}/messages/{mid}/chunks",
            post(mirror::post_chunk),
        )
        .route(
            "/v1/sessions/{sid}/threads",
            post(|state, caller, sid, body| {
                mirror::post_one(state, caller, sid, body, Mirrored::Thread)
            }),
        )
        .route(
            "/v1/sessions/{sid}/decisions",
            post(|state, caller, sid, body| {
                mirror::post_one(state, caller, sid, body, Mirrored::Decision)
            }),
        )
        .route("/v1/pending", get(pending::list))
        .route("/v1/pending/{id}", post(pending::answer))
        .fallback(|| async { ApiError::new(ErrorCode::NotFound, "no such endpoint") })
        .method_not_allowed_fallback(|| async {
            ApiError::new(
                ErrorCode::MethodNotAllowed,
                "this endpoint does not take that method",
            )
        })
        .with_state(state)
}
