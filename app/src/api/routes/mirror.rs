//! Mirroring a session from an agent: `POST /v1/sessions/{sid}/messages`, `…/threads`,
//! `…/decisions` (one thing each), `…/messages/{mid}/chunks` (more text for a streamed
//! message) and `…/events` (many things in one request).
//!
//! What each body means is `api::mirror`'s; this module takes the request apart and appends
//! what the mirror rules built, all of it or nothing, with one fsync.

use crate::api::access;
use crate::api::auth::Caller;
use crate::api::error::{ApiError, ErrorCode};
use crate::api::extract::JsonObject;
use crate::api::mirror::{MirrorBuild, Mirrored};
use crate::api::ApiState;
use axum::extract::{Path, State};
use axum::Json;
use chatsurface_model::{EventBody, Role};
use serde_json::{json, Map, Value};

/// Appends what an agent mirrors to session `sid` (created on first use unless it must
/// exist already), all of it or nothing, with one fsync; returns the ids `add` chose.
/// An integration may not speak as the human: a `user` message is the operator's to post.
pub(super) async fn append_mirrored<T>(
    state: &ApiState,
    (caller, sid): (&Caller, &str),
    must_exist: bool,
    add: impl FnOnce(&mut MirrorBuild) -> Result<T, ApiError>,
) -> Result<T, ApiError> {
    let session = if must_exist {
        access::session_for(state, caller, sid)
    } else {
        access::session_to_write(state, caller, sid)
    }?;
    let appended = session
        .append_with(|snapshot| {
            let mut build = MirrorBuild::new(snapshot, sid);
            let ids = add(&mut build)?;
            let bodies = build.finish();
            if let Caller::Integration(integration) = caller {
                refuse_the_humans_voice(&integration.slug, &bodies)?;
            }
            Ok::<_, ApiError>((bodies, ids))
        })
        .await;
    match appended {
        Ok((_, ids)) => Ok(ids),
        Err(error) => {
            state.store.forget_if_unwritten(sid, session);
            Err(error)
        }
    }
}

/// The human's words come from the window or the operator token only: an integration that
/// posts a `user` message could put an instruction in the human's mouth.
fn refuse_the_humans_voice(slug: &str, bodies: &[EventBody]) -> Result<(), ApiError> {
    let speaks_as_the_human = bodies.iter().any(
        |body| matches!(body, EventBody::MessageAppended { message } if message.role == Role::User),
    );
    if speaks_as_the_human {
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            format!(
                "integration \"{slug}\" may not post as the human: role \"user\" is the operator's"
            ),
        )
        .with_field("role"));
    }
    Ok(())
}

/// Appends one mirrored thing (the body of a single-event endpoint); answers its id.
async fn append_one(
    state: &ApiState,
    (caller, sid): (&Caller, &str),
    must_exist: bool,
    mirrored: Mirrored,
) -> Result<Json<Value>, ApiError> {
    let id = append_mirrored(state, (caller, sid), must_exist, move |build| {
        build.add(mirrored)
    })
    .await?;
    Ok(Json(json!({ "id": id })))
}

/// `POST …/messages`, `…/threads`, `…/decisions`: one mirrored thing, `kind` of the body.
pub(in crate::api) async fn post_one(
    State(state): State<ApiState>,
    caller: Caller,
    Path(sid): Path<String>,
    JsonObject(body): JsonObject,
    kind: fn(Map<String, Value>) -> Mirrored,
) -> Result<Json<Value>, ApiError> {
    append_one(&state, (&caller, &sid), false, kind(body)).await
}

/// `POST …/messages/{mid}/chunks`: more text for a message of a session that exists.
pub(in crate::api) async fn post_chunk(
    State(state): State<ApiState>,
    caller: Caller,
    Path((sid, mid)): Path<(String, String)>,
    JsonObject(body): JsonObject,
) -> Result<Json<Value>, ApiError> {
    let chunk = Mirrored::chunk(&mid, body)?;
    append_one(&state, (&caller, &sid), true, chunk).await
}

/// `POST …/events`: many mirrored things in one request, written together with one fsync
/// (all or none), for agents that stream faster than a request per event allows.
pub(in crate::api) async fn post_events(
    State(state): State<ApiState>,
    caller: Caller,
    Path(sid): Path<String>,
    JsonObject(body): JsonObject,
) -> Result<Json<Value>, ApiError> {
    let entries = Mirrored::list(body)?;
    let ids = append_mirrored(&state, (&caller, &sid), false, move |build| {
        build.add_entries(entries)
    })
    .await?;
    Ok(Json(json!({ "ids": ids })))
}
