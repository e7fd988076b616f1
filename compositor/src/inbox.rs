//! The questions inbox as Layout must draw it: every question waiting for the human, from
//! every session the window follows, oldest first.
//!
//! The window gathers the questions (it follows the sessions), orders them and moves the
//! selection; it hands the pipeline an [`InboxView`] inside the intent, and Layout draws it over
//! the frame and reports each row as a `HitTarget::OverlayRow`. This module only describes; it
//! never reads a log nor decides what waits.

use std::time::Duration;

/// What kind of question a row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitingKind {
    /// A clarification batch.
    Batch,
    /// A confirmation of a dangerous action.
    Confirmation,
}

/// One waiting question in the inbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InboxRow {
    /// A batch or a confirmation.
    pub kind: WaitingKind,
    /// Who asks: the session's agent (`claude-code`, `codex`, …) or integration.
    pub agent: String,
    /// The session's title (untrusted: an agent's words).
    pub session: String,
    /// The thread it was asked in, from its topic down ("Release › Rollback"; untrusted).
    pub thread: String,
    /// What it asks: its title, or its first prompt or message (untrusted).
    pub asks: String,
    /// How long it has waited, when its time is known.
    pub waited: Option<Duration>,
    /// Whether it is in the session shown now.
    pub here: bool,
}

/// The inbox, open over the frame.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InboxView {
    /// The waiting questions, oldest first; Layout draws as many as fit from the top, always
    /// including the selected one.
    pub rows: Vec<InboxRow>,
    /// The row Enter answers, an index into `rows`.
    pub selected: usize,
    /// How many sessions the rows come from.
    pub sessions: usize,
}
