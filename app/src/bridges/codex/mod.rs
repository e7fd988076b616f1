//! The Codex bridge: `chatsurface codex` runs Codex's app-server and is its client, so that
//! what Codex asks (a command to run, files to change, questions) is asked on the surface, in
//! the session `codex-<thread id>`, and the human's answer goes back to Codex.
//!
//! The app-server (`codex app-server`, JSON-RPC over stdio) is the protocol Codex's own rich
//! clients use (its IDE extension); the bridge starts a thread in the folder it is given and
//! sends the human's prompts as turns. [`protocol`] is the part of that protocol the bridge
//! speaks, checked against the schema the pinned Codex generates (kept in `schema/`);
//! [`questions`] translates a request to a question and an answer to the result. Neither does
//! I/O; `commands/codex/` does.

pub mod protocol;
pub mod questions;

/// The integration slug the bridge asks as, and the prefix of the sessions it asks in.
pub const SLUG: &str = "codex";
