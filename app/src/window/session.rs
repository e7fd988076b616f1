//! The session the window shows: one event log, followed as it grows and appended to, or an
//! agent's transcript, followed and never written.
//!
//! The log is the canonical store. Agents (or `chatsurface serve`) may append to it while the
//! window is open, so the window looks for new whole lines a few times a second and folds
//! them; every append (drafts, answers) folds what others wrote first, under the log's file
//! lock, so its sequence numbers follow theirs. Every append is fsynced before the window
//! treats it as done. This module owns the file; it knows nothing of drawing or keys.

use crate::agents::{self, AgentTranscript, Format};
use crate::error::AppError;
use chatsurface_model::{EventBody, LogWriter, Snapshot};
use std::path::{Path, PathBuf};

/// The bundled demo session, shown to a new user who has no session yet.
const DEMO_SESSION: &str = include_str!("../../../examples/sessions/design-record-ru.jsonl");

/// The session id of the bundled demo: a sample, whose questions wait for nobody.
const DEMO_SESSION_ID: &str = "s-2026-11-30-adr0031";

/// Whether a snapshot is the bundled demo's (its questions are examples, not an agent's).
pub(super) fn is_demo(snapshot: &Snapshot) -> bool {
    snapshot
        .session
        .as_ref()
        .is_some_and(|session| session.id.as_str() == DEMO_SESSION_ID)
}

/// An open session: chatsurface's own log, or an agent's transcript.
#[derive(Debug)]
pub(super) enum SessionLog {
    /// A v1 log, which the window appends the human's answers to.
    Native(LogWriter),
    /// An agent's transcript, read only.
    Agent(AgentTranscript),
}

impl SessionLog {
    /// Opens a session file, its format detected from its content; warnings (a torn last
    /// line, a record skipped) go to the log.
    pub(super) fn open(path: &Path) -> Result<SessionLog, AppError> {
        SessionLog::open_as(path, None)
    }

    /// Opens a session file in `format` (detected when `None`).
    pub(super) fn open_as(path: &Path, format: Option<Format>) -> Result<SessionLog, AppError> {
        if let Err(error) = std::fs::metadata(path) {
            return Err(agents::read_error(path, &error));
        }
        let format = match format {
            Some(format) => Some(format),
            None => agents::detect_file(path)?,
        };
        match format {
            Some(Format::Chatsurface) => SessionLog::native(path),
            Some(format) => AgentTranscript::open(path, format).map(SessionLog::Agent),
            None => Err(agents::unknown_format(path)),
        }
    }

    fn native(path: &Path) -> Result<SessionLog, AppError> {
        let writer = LogWriter::open(path)?;
        for warning in writer.open_warnings() {
            tracing::warn!("{warning}");
        }
        Ok(SessionLog::Native(writer))
    }

    /// The folded session.
    pub(super) fn snapshot(&self) -> &Snapshot {
        match self {
            SessionLog::Native(writer) => writer.snapshot(),
            SessionLog::Agent(transcript) => transcript.snapshot(),
        }
    }

    /// The log's path.
    pub(super) fn path(&self) -> &Path {
        match self {
            SessionLog::Native(writer) => writer.path(),
            SessionLog::Agent(transcript) => transcript.path(),
        }
    }

    /// Closes the log's file until it is next written or grows, for a log the window follows
    /// but does not show, so a store of thousands of sessions costs no file handle each. An
    /// agent's transcript is never held open between looks anyway.
    pub(super) fn release_file(&mut self) {
        if let SessionLog::Native(writer) = self {
            writer.release_file();
        }
    }

    /// Folds what others appended since the last look; returns whether anything was new.
    pub(super) fn follow(&mut self) -> Result<bool, String> {
        match self {
            SessionLog::Native(writer) => writer
                .catch_up()
                .map(|events| !events.is_empty())
                .map_err(|error| error.to_string()),
            SessionLog::Agent(transcript) => transcript.follow().map_err(|error| error.to_string()),
        }
    }

    /// Appends the human's events, fsynced. The writer folds what others wrote first, under
    /// the log's file lock, so the window's sequence numbers follow theirs. An agent's
    /// transcript is never written: that refuses, saying so.
    pub(super) fn append(&mut self, bodies: Vec<EventBody>) -> Result<(), String> {
        match self {
            SessionLog::Native(writer) => writer
                .append_all(bodies)
                .map(drop)
                .map_err(|error| error.to_string()),
            SessionLog::Agent(transcript) => Err(format!(
                "{} is the agent's own transcript: chatsurface reads it and never writes to it",
                transcript.path().display()
            )),
        }
    }
}

/// The store's most recently written session log, if any.
pub(super) fn newest_session(data_dir: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(data_dir.join("sessions")).ok()?;
    entries
        .filter_map(Result::ok)
        .filter(|entry| {
            entry
                .path()
                .extension()
                .is_some_and(|extension| extension == "jsonl")
        })
        .filter_map(|entry| Some((entry.metadata().ok()?.modified().ok()?, entry.path())))
        .max()
        .map(|(_, path)| path)
}

/// The log `chatsurface` opens with no arguments: the store's most recently written session;
/// when there is none yet, the newest session an agent wrote (Claude Code's); when there is
/// none either, the bundled demo written into the store as `demo`.
pub fn default_session(data_dir: &Path) -> Result<PathBuf, AppError> {
    if let Some(path) = newest_session(data_dir) {
        return Ok(path);
    }
    let agents = agents::catalog::Folders {
        native: None,
        claude_code: crate::paths::claude_projects_dir(),
        codex: crate::paths::codex_sessions_dir(),
        gemini: crate::paths::gemini_tmp_dir(),
    };
    if let Some(newest) = agents::catalog::list(&agents).into_iter().next() {
        return Ok(newest.path);
    }
    let sessions = data_dir.join("sessions");
    crate::fsutil::create_private_dir(&sessions)
        .map_err(|error| AppError::CannotCreate(format!("{}: {error}", sessions.display())))?;
    let demo = sessions.join("demo.jsonl");
    crate::fsutil::write_atomically(&demo, DEMO_SESSION.as_bytes(), 0o600)
        .map_err(|error| AppError::CannotCreate(error.to_string()))?;
    Ok(demo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_is_known_by_its_session_id() {
        let loaded = chatsurface_model::fold_log_bytes(Path::new("demo"), DEMO_SESSION.as_bytes())
            .expect("the bundled demo folds");
        assert!(is_demo(&loaded.snapshot));
        assert!(!is_demo(&Snapshot::default()));
    }
}
