//! What a handler receives already checked, so that who may call a route is in its signature:
//! [`Caller`] (any valid token), [`Operator`] (the operator token), [`Asker`] (the integration
//! named in the path, with dialogs enabled), and the bodies [`RawBody`] and [`JsonObject`],
//! read under [`MAX_BODY_BYTES`].
//!
//! Axum runs a handler's extractors in the order of its arguments and the body last, so a
//! refused caller is answered before a byte of the body is read. This module decides who is
//! calling and whether the body is readable; it must not touch sessions or the store.

use super::auth::{Caller, Integration};
use super::error::{ApiError, ErrorCode};
use super::ApiState;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap};
use serde_json::{Map, Value};

/// Largest request body accepted; a larger one gets 413.
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// The bearer token a request's headers carry, if any.
pub(super) fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim)
}

/// Who holds the bearer token of a request, or why there is none to hold.
fn authenticate(state: &ApiState, headers: &HeaderMap) -> Result<Caller, ApiError> {
    let token = bearer_token(headers).ok_or_else(|| {
        ApiError::new(
            ErrorCode::Unauthorized,
            "send Authorization: Bearer <token>",
        )
    })?;
    state
        .tokens
        .authenticate(token)
        .map_err(|error| ApiError::new(ErrorCode::Tokens, error.to_string()))?
        .ok_or_else(|| ApiError::new(ErrorCode::Unauthorized, "the token is not valid"))
}

impl FromRequestParts<ApiState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &ApiState) -> Result<Self, ApiError> {
        authenticate(state, &parts.headers)
    }
}

/// The caller holds the operator token: the human side, which lists and answers questions.
#[derive(Clone, Copy, Debug)]
pub struct Operator;

impl FromRequestParts<ApiState> for Operator {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &ApiState) -> Result<Self, ApiError> {
        match authenticate(state, &parts.headers)? {
            Caller::Operator => Ok(Operator),
            Caller::Integration(_) => Err(ApiError::new(
                ErrorCode::Forbidden,
                "only the operator token can do this",
            )),
        }
    }
}

/// The caller is the integration the path names (`/v1/integrations/{slug}/…`), added with
/// dialogs enabled: the only one that may ask its human a question.
#[derive(Clone, Debug)]
pub struct Asker(pub Integration);

impl FromRequestParts<ApiState> for Asker {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &ApiState) -> Result<Self, ApiError> {
        let caller = authenticate(state, &parts.headers)?;
        let Path(slug) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|error| ApiError::new(ErrorCode::NotFound, error.body_text()))?;
        let integration = match caller {
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
                format!(
                    "dialogs are not enabled for \"{slug}\" (integration add {slug} --dialogs)"
                ),
            ));
        }
        Ok(Asker(integration))
    }
}

/// A request body of at most [`MAX_BODY_BYTES`], as bytes.
#[derive(Clone, Debug)]
pub struct RawBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for RawBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, ApiError> {
        axum::body::to_bytes(request.into_body(), MAX_BODY_BYTES)
            .await
            .map(RawBody)
            .map_err(|error| {
                // Only a body over the limit is too large; one that could not be read (a
                // broken chunked encoding) is the client's broken request.
                if is_over_the_limit(&error) {
                    ApiError::new(
                        ErrorCode::TooLarge,
                        format!("the body is over {MAX_BODY_BYTES} bytes"),
                    )
                } else {
                    ApiError::new(
                        ErrorCode::BadBody,
                        format!("the body could not be read: {error}"),
                    )
                }
            })
    }
}

/// Whether reading a body failed because it passed the limit.
fn is_over_the_limit(error: &axum::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = cause {
        if current.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        cause = current.source();
    }
    false
}

/// A request body that is one JSON object (any other JSON, or none, is `bad_json`).
#[derive(Clone, Debug)]
pub struct JsonObject(pub Map<String, Value>);

impl<S: Send + Sync> FromRequest<S> for JsonObject {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let RawBody(body) = RawBody::from_request(request, state).await?;
        match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Object(map)) => Ok(JsonObject(map)),
            Ok(_) => Err(ApiError::new(
                ErrorCode::BadJson,
                "the body must be a JSON object",
            )),
            Err(error) => Err(ApiError::new(ErrorCode::BadJson, error.to_string())),
        }
    }
}
