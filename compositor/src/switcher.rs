//! The session switcher as Layout must draw it: what the operator typed to filter, and the
//! sessions that match it, one row each.
//!
//! The window owns the list (every session on the machine, from every agent), filters it and
//! moves the selection; it hands the pipeline a [`SwitcherView`] inside the intent, and Layout
//! draws it over the frame and reports each row as a `HitTarget::SwitcherRow`. This module
//! only describes; it never reads a file nor decides what matches.

/// One session in the switcher.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwitcherRow {
    /// Who wrote it: `chatsurface`, `claude-code`, `codex`, `gemini`.
    pub agent: String,
    /// The session's title (untrusted: an agent's words).
    pub title: String,
    /// The folder the agent worked in, when known (untrusted).
    pub project: Option<String>,
    /// When it was last written, as the window words it ("2026-12-04 01:12").
    pub last_activity: String,
    /// How many messages it holds.
    pub messages: usize,
    /// Open questions and pending confirmations in it.
    pub waiting: usize,
    /// Whether it is the session shown now.
    pub shown: bool,
}

/// The switcher, open over the frame.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SwitcherView {
    /// What the operator typed to filter the list.
    pub query: String,
    /// The sessions that match, best first; Layout draws as many as fit from the top, always
    /// including the selected one.
    pub rows: Vec<SwitcherRow>,
    /// The row Enter opens, an index into `rows`.
    pub selected: usize,
    /// How many sessions there are before filtering.
    pub total: usize,
    /// Whether the list is still being read for the first time.
    pub scanning: bool,
}
