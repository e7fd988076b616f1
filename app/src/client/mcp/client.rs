//! The MCP server's way to the surface: one HTTP/1.1 request over the API's unix socket.
//!
//! This module owns the request (method, path, bearer token, JSON body), percent-encoding of
//! path segments, and turning a reply into JSON or an [`SurfaceCallError`] in words a model can act
//! on. It knows nothing of tools or of what the JSON means, and it must not touch the store
//! or the server.

use crate::client::http::{exchange, ExchangeError};
use hyper::Method;
use serde_json::Value;
use std::fmt;
use std::io;
use std::path::Path;

/// Why a request to the surface gave no JSON answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum SurfaceCallError {
    /// Nothing answered at the socket, or the connection broke.
    Unreachable(String),
    /// The surface refused the request with a 4xx or 5xx and its JSON error body.
    Refused {
        /// The HTTP status.
        status: u16,
        /// The machine-readable code (`error`).
        code: String,
        /// The human text (`message`).
        message: String,
        /// The offending field, when the surface names one.
        field: Option<String>,
    },
    /// The surface answered something that is not JSON.
    Protocol(String),
}

impl fmt::Display for SurfaceCallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SurfaceCallError::Unreachable(message) | SurfaceCallError::Protocol(message) => {
                f.write_str(message)
            }
            SurfaceCallError::Refused {
                status,
                code,
                message,
                field,
            } => {
                write!(f, "the surface refused the request ({status} {code}): ")?;
                match field {
                    Some(field) if !message.contains(field.as_str()) => {
                        write!(f, "{field}: {message}")
                    }
                    _ => f.write_str(message),
                }
            }
        }
    }
}

/// Sends one request and returns the JSON body of a 2xx reply.
///
/// `path` must already have its variable segments encoded with [`segment`]. There is no
/// client-side time limit: a blocking question waits as long as the surface holds it, and the
/// caller drops the future to give up.
pub(super) async fn call(
    socket: &Path,
    method: Method,
    path: &str,
    token: &str,
    body: Option<&Value>,
) -> Result<Value, SurfaceCallError> {
    let (status, bytes) = exchange(socket, method, path, token, body.map(Value::to_string))
        .await
        .map_err(|error| match error {
            ExchangeError::Request(error) => {
                SurfaceCallError::Protocol(format!("cannot build the request: {error}"))
            }
            ExchangeError::Connect(error) => connect_error(socket, &error),
            ExchangeError::Closed(error) => {
                SurfaceCallError::Unreachable(format!("the surface closed the connection: {error}"))
            }
            ExchangeError::Untrusted(place) => SurfaceCallError::Unreachable(place.to_string()),
        })?;
    reply(status.as_u16(), &bytes)
}

/// The JSON of a reply, or the error its status and body describe.
pub(super) fn reply(status: u16, body: &[u8]) -> Result<Value, SurfaceCallError> {
    let json: Option<Value> = serde_json::from_slice(body).ok();
    match json {
        Some(json) if (200..300).contains(&status) => Ok(json),
        None if (200..300).contains(&status) => Err(SurfaceCallError::Protocol(format!(
            "the surface answered something that is not JSON: {}",
            String::from_utf8_lossy(body)
        ))),
        json => {
            let text = |name: &str| {
                json.as_ref()
                    .and_then(|json| json.get(name))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            };
            Err(SurfaceCallError::Refused {
                status,
                code: text("error").unwrap_or_else(|| "error".to_owned()),
                message: text("message")
                    .unwrap_or_else(|| String::from_utf8_lossy(body).trim().to_owned()),
                field: text("field"),
            })
        }
    }
}

/// One path segment, percent-encoded so that any id (a slash, a space, Cyrillic) stays one
/// segment.
pub(super) fn segment(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

/// Why connecting to the socket failed, in words a user can act on.
fn connect_error(socket: &Path, error: &io::Error) -> SurfaceCallError {
    let socket = socket.display();
    match error.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused => {
            SurfaceCallError::Unreachable(format!(
                "no chatsurface is listening at {socket} (start `chatsurface serve`, \
                 or set CHATSURFACE_SOCKET)"
            ))
        }
        _ => SurfaceCallError::Unreachable(format!("cannot connect to {socket}: {error}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn segments_keep_unreserved_bytes_and_encode_the_rest() {
        assert_eq!(segment("ask-1_a.b~c"), "ask-1_a.b~c");
        assert_eq!(segment("a/b c?d#e%"), "a%2Fb%20c%3Fd%23e%25");
        assert_eq!(segment("да"), "%D0%B4%D0%B0");
    }

    #[test]
    fn replies_give_json_or_a_refusal_naming_field_and_status() {
        assert_eq!(reply(200, br#"{"id":"m1"}"#), Ok(json!({"id": "m1"})));
        assert!(matches!(
            reply(200, b"<html>"),
            Err(SurfaceCallError::Protocol(_))
        ));
        let refused = reply(
            400,
            br#"{"error":"invalid","message":"must not be empty","field":"items[0].prompt"}"#,
        )
        .unwrap_err();
        assert_eq!(
            refused.to_string(),
            "the surface refused the request (400 invalid): items[0].prompt: must not be empty"
        );
        let plain = reply(502, b"bad gateway\n").unwrap_err();
        assert_eq!(
            plain.to_string(),
            "the surface refused the request (502 error): bad gateway"
        );
    }

    #[tokio::test]
    async fn a_missing_socket_says_how_to_start_the_surface() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("run");
        crate::private_dir::ensure_dir(&dir).unwrap();
        let socket = dir.join("api.sock");
        let error = call(&socket, Method::GET, "/v1/pending", "t", None)
            .await
            .unwrap_err();
        assert!(
            matches!(&error, SurfaceCallError::Unreachable(message) if message.contains("chatsurface serve")),
            "{error:?}"
        );
    }
}
