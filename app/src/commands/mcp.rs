//! `chatsurface mcp`: reads the configuration from the flags and the environment and runs the
//! MCP server on stdio until the client goes away. The tools themselves live in
//! [`crate::client::mcp`]; this module must not print to stdout, which belongs to the protocol.

use crate::client::mcp::{serve_stdio, McpConfig};
use crate::error::AppError;

/// Runs the MCP server on stdin/stdout for `session` (or the environment's session).
pub(super) fn run(session: Option<String>) -> Result<(), AppError> {
    let config = McpConfig::from_env(session, |name| std::env::var(name).ok());
    if config.token.is_none() {
        tracing::warn!(
            "CHATSURFACE_TOKEN is not set; the tools will refuse until it is \
             (`chatsurface integration add SLUG` prints a token)"
        );
    }
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|error| AppError::CannotCreate(format!("cannot start the runtime: {error}")))?;
    runtime
        .block_on(serve_stdio(config))
        .map_err(AppError::BadInput)
}
