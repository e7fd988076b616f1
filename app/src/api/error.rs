//! The API's error answers: `{"error": code, "message": human text, "field"?: …}` with an
//! HTTP status, the one place where a code gets its status.
//!
//! A client branches on the code (`invalid`, `not_found`, …); the message is for a person and
//! may be reworded freely. Handlers and the dialog and mirror rules build errors from an
//! [`ErrorCode`], never from a status number and a string.

use chatsurface_model::ValidationError;
use serde::Serialize;

/// What kind of refusal an error is; its name on the wire and its HTTP status follow from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The body is not JSON, or not an object.
    BadJson,
    /// The body could not be read whole (a broken chunked encoding, a connection cut).
    BadBody,
    /// A field breaks a rule (its name is in `field`).
    Invalid,
    /// No token, or a token nobody has.
    Unauthorized,
    /// A valid token that may not do this.
    Forbidden,
    /// The integration was added without `--dialogs`.
    DialogsDisabled,
    /// No such session or question.
    NotFound,
    /// The route exists, but not for this method.
    MethodNotAllowed,
    /// The integration already has a dialog waiting.
    DialogPending,
    /// A question id that more than one session holds.
    Ambiguous,
    /// The body is over the size limit.
    TooLarge,
    /// Every connection is taken; only the operator is served on the ones kept for them.
    Busy,
    /// The token store cannot be read.
    Tokens,
    /// The session's log cannot be written or made durable.
    Storage,
    /// A bug or a state that should not happen.
    Internal,
}

impl ErrorCode {
    /// The HTTP status of an error of this kind.
    pub fn status(self) -> u16 {
        match self {
            ErrorCode::BadJson | ErrorCode::BadBody | ErrorCode::Invalid => 400,
            ErrorCode::Unauthorized => 401,
            ErrorCode::Forbidden | ErrorCode::DialogsDisabled => 403,
            ErrorCode::NotFound => 404,
            ErrorCode::MethodNotAllowed => 405,
            ErrorCode::DialogPending | ErrorCode::Ambiguous => 409,
            ErrorCode::TooLarge => 413,
            ErrorCode::Busy => 503,
            ErrorCode::Tokens | ErrorCode::Storage | ErrorCode::Internal => 500,
        }
    }
}

/// An error answer of the API.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ApiError {
    /// What kind of refusal it is (serialised as `error`).
    #[serde(rename = "error")]
    pub code: ErrorCode,
    /// What went wrong, for a human.
    pub message: String,
    /// The request field at fault, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl ApiError {
    /// An error of a kind, with a message, naming no field.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            field: None,
        }
    }

    /// The same error, naming the request field at fault.
    pub fn with_field(self, field: &str) -> Self {
        Self {
            field: Some(field.to_owned()),
            ..self
        }
    }

    /// An `invalid` error from a broken model rule; the field is kept and the message names it.
    pub fn invalid(error: ValidationError) -> Self {
        Self::new(
            ErrorCode::Invalid,
            format!("{}: {}", error.field, error.rule),
        )
        .with_field(&error.field)
    }

    /// The HTTP status to answer with.
    pub fn status(&self) -> u16 {
        self.code.status()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn errors_serialize_their_code_without_the_status() {
        let error = ApiError::new(ErrorCode::DialogPending, "one dialog at a time");
        assert_eq!(error.status(), 409);
        assert_eq!(
            serde_json::to_value(&error).unwrap(),
            json!({"error": "dialog_pending", "message": "one dialog at a time"})
        );
        let error = ApiError::invalid(ValidationError {
            field: "options".into(),
            rule: "must hold at most 9 options (has 10)".into(),
        });
        assert_eq!(error.status(), 400);
        assert_eq!(
            serde_json::to_value(&error).unwrap(),
            json!({
                "error": "invalid",
                "message": "options: must hold at most 9 options (has 10)",
                "field": "options"
            })
        );
        assert_eq!(
            ApiError::new(ErrorCode::Forbidden, "no")
                .with_field("slug")
                .field
                .as_deref(),
            Some("slug")
        );
    }
}
