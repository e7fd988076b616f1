//! The clients of the local API: `chatsurface ask` and the MCP server, and the one HTTP
//! exchange over the socket they share. They reach the server only over the socket; what
//! they share with it is the wire types (`api::protocol::DialogAnswer`) and the socket's path.

pub mod ask;
pub mod http;
pub mod mcp;
