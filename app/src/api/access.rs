//! Which sessions a caller may read and write.
//!
//! The operator may touch every session. An integration may touch the sessions it created
//! (the server writes its slug as the session's `created_by`) and those granted to it with
//! `integration add SLUG --session ID`; a session that does not exist yet it may create,
//! unless its id is another integration's slug (that id is where the other's dialogs go).
//! Every other session is answered as if it did not exist, so an integration cannot even
//! learn which sessions others have. Decides only; must not read or write a log.

use crate::api::auth::{Caller, Integration};
use crate::api::error::{ApiError, ErrorCode};
use crate::api::store::{LiveSession, StoreError};
use crate::api::ApiState;
use std::sync::Arc;

/// The existing session `sid`, if `caller` may read or write it.
pub(in crate::api) fn session_for(
    state: &ApiState,
    caller: &Caller,
    sid: &str,
) -> Result<Arc<LiveSession>, ApiError> {
    let session = state.store.get(sid).map_err(|error| match error {
        StoreError::NoSession(_) => hidden(sid),
        error => error.into(),
    })?;
    may_touch(caller, sid, &session)?;
    Ok(session)
}

/// The session `sid` for `caller` to write, created (as the caller's) when missing.
pub(in crate::api) fn session_to_write(
    state: &ApiState,
    caller: &Caller,
    sid: &str,
) -> Result<Arc<LiveSession>, ApiError> {
    match state.store.get(sid) {
        Err(StoreError::NoSession(_)) => may_create(state, caller, sid)?,
        Err(error) => return Err(error.into()),
        Ok(_) => {}
    }
    let created_by = match caller {
        Caller::Integration(integration) => Some(integration.slug.as_str()),
        Caller::Operator => None,
    };
    // Another request may have created it since: the check below is on whoever did.
    let session = state.store.get_or_create(sid, sid, created_by)?;
    may_touch(caller, sid, &session)?;
    Ok(session)
}

/// What a caller who may not touch session `sid` is told: the same as for no session.
fn hidden(sid: &str) -> ApiError {
    ApiError::new(ErrorCode::NotFound, format!("no session \"{sid}\""))
}

fn granted(integration: &Integration, sid: &str, session: &LiveSession) -> bool {
    session.created_by().as_deref() == Some(integration.slug.as_str())
        || integration.sessions.iter().any(|granted| granted == sid)
}

/// Checks that `caller` may read or write the existing session `sid`.
fn may_touch(caller: &Caller, sid: &str, session: &LiveSession) -> Result<(), ApiError> {
    match caller {
        Caller::Operator => Ok(()),
        Caller::Integration(integration) if granted(integration, sid, session) => Ok(()),
        Caller::Integration(_) => Err(hidden(sid)),
    }
}

/// Checks that `caller` may create the session `sid`, which does not exist yet.
fn may_create(state: &ApiState, caller: &Caller, sid: &str) -> Result<(), ApiError> {
    let Caller::Integration(integration) = caller else {
        return Ok(());
    };
    let others = state
        .tokens
        .list()
        .map_err(|error| ApiError::new(ErrorCode::Tokens, error.to_string()))?;
    if integration.slug != sid && others.iter().any(|other| other.slug == sid) {
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            format!("session \"{sid}\" is integration \"{sid}\"'s own"),
        ));
    }
    Ok(())
}
