//! The Claude Code bridge: its `PermissionRequest` hook.
//!
//! Claude Code runs a `PermissionRequest` hook beside the prompt it shows in its terminal
//! (seen with 2.1.328: the terminal's prompt is up while the hook runs). So the surface and
//! the terminal ask together, whichever the human answers first wins, and a hook that leaves
//! takes its question off the surface (the API's `hold`). A `PreToolUse` hook would hold the terminal's prompt back until it returns,
//! which is why the bridge uses `PermissionRequest`, for every tool: `AskUserQuestion`
//! (a clarification batch), `ExitPlanMode` (a confirmation with the plan) and any other tool
//! (a confirmation naming what it will do).
//!
//! That first claim needs [`terminal_answer`]: Claude Code does not stop the hook when its
//! own prompt is answered, so the hook learns it from the transcript.
//!
//! [`permission`] translates one hook event to a question and an answer to the decision;
//! [`settings`] merges the hook into Claude Code's settings file; [`terminal_answer`] reads
//! the transcript for the terminal's answer; [`plan`] finds the plan file an `ExitPlanMode`
//! asks about. None does I/O.

pub mod permission;
pub mod plan;
pub mod settings;
pub mod terminal_answer;

/// The integration slug the hook asks as, and the prefix of the sessions it asks in.
pub const SLUG: &str = "claude-code";
