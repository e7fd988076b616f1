//! One HTTP/1.1 exchange with the local API over its unix socket, for the API's own clients
//! (`chatsurface ask` and the MCP server).
//!
//! This module owns the transport only: connect, send one request with the bearer token, read
//! the whole reply. What a status or body means belongs to each client; it must not touch the
//! store or the server.

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{header, Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use std::io;
use std::path::Path;
use tokio::net::UnixStream;

/// Why an exchange gave no reply.
#[derive(Debug)]
pub enum ExchangeError {
    /// The request could not be built (a path that is not a valid URI).
    Request(hyper::http::Error),
    /// Nothing could be reached at the socket.
    Connect(io::Error),
    /// The connection broke before the whole reply arrived (the surface closed).
    Closed(hyper::Error),
    /// The socket, its directory or the process listening belongs to another user: nothing
    /// was sent.
    Untrusted(crate::private_dir::UnsafePlace),
}

/// Connects to the socket once it and its directory are known to be this user's, and only
/// to a server that runs as this user: the token is never sent to anyone else.
async fn connect(socket: &Path) -> Result<UnixStream, ExchangeError> {
    use crate::private_dir::{check_peer, check_socket, current_uid, Problem};
    match check_socket(socket) {
        Ok(()) => {}
        Err(place) if matches!(place.problem, Problem::Missing) => {
            return Err(ExchangeError::Connect(io::Error::new(
                io::ErrorKind::NotFound,
                place.to_string(),
            )));
        }
        Err(place) => return Err(ExchangeError::Untrusted(place)),
    }
    let stream = UnixStream::connect(socket)
        .await
        .map_err(ExchangeError::Connect)?;
    let peer = stream.peer_cred().map_err(ExchangeError::Connect)?;
    check_peer(socket, peer.uid(), current_uid()).map_err(ExchangeError::Untrusted)?;
    Ok(stream)
}

/// Sends `method path` with `Authorization: Bearer token` and an optional JSON body, and
/// returns the status and the whole body. There is no client-side time limit: a question
/// waits as long as the surface holds it, and the caller drops the future to give up.
pub async fn exchange(
    socket: &Path,
    method: Method,
    path: &str,
    token: &str,
    json_body: Option<String>,
) -> Result<(StatusCode, Bytes), ExchangeError> {
    let builder = Request::builder()
        .method(method)
        .uri(path)
        .header(header::HOST, "chatsurface")
        .header(header::AUTHORIZATION, format!("Bearer {token}"));
    let request = match json_body {
        Some(body) => builder
            .header(header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body))),
        None => builder.body(Full::new(Bytes::new())),
    }
    .map_err(ExchangeError::Request)?;
    let stream = connect(socket).await?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(ExchangeError::Closed)?;
    tokio::spawn(connection);
    let response = sender
        .send_request(request)
        .await
        .map_err(ExchangeError::Closed)?;
    let status = response.status();
    let bytes = response
        .into_body()
        .collect()
        .await
        .map_err(ExchangeError::Closed)?
        .to_bytes();
    Ok((status, bytes))
}
