//! Every session on the machine, from every agent: the native store's logs and the agents'
//! transcripts in their default folders (see `paths.rs`), newest first, with what awaits in
//! each. `chatsurface sessions` prints it; `chatsurface` alone opens its newest entry when the
//! store has no session yet.
//!
//! A file that cannot be read or is of no known format is left out with a warning; listing
//! must not fail because one session is broken.

use super::{load, Format};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// One session found.
#[derive(Clone, Debug, Serialize)]
pub struct Entry {
    /// `chatsurface` or the agent's name (`claude-code`, `codex`, `gemini`).
    pub agent: &'static str,
    /// The session's title.
    pub title: String,
    /// The folder the agent worked in, when its transcript says.
    pub project: Option<String>,
    /// When the file was last written (RFC 3339).
    pub last_activity: String,
    /// Messages in the session.
    pub messages: usize,
    /// Open questions and pending confirmations.
    pub open_questions: usize,
    /// The file.
    pub path: PathBuf,
    #[serde(skip)]
    modified: SystemTime,
}

/// Where to look.
#[derive(Clone, Debug, Default)]
pub struct Folders {
    /// The native store's `sessions/` folder.
    pub native: Option<PathBuf>,
    /// Claude Code's `projects/` folder.
    pub claude_code: Option<PathBuf>,
    /// Codex CLI's `sessions/` folder.
    pub codex: Option<PathBuf>,
    /// Gemini CLI's `tmp/` folder.
    pub gemini: Option<PathBuf>,
}

impl Folders {
    /// The folders this machine uses (`paths.rs`).
    pub fn of_this_machine() -> Folders {
        Folders {
            native: Some(crate::paths::data_dir().join("sessions")),
            claude_code: crate::paths::claude_projects_dir(),
            codex: crate::paths::codex_sessions_dir(),
            gemini: crate::paths::gemini_tmp_dir(),
        }
    }
}

/// The `.jsonl` files directly in `dir`.
fn jsonl_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_file() && path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect()
}

/// Every session in `folders`, newest first.
pub fn list(folders: &Folders) -> Vec<Entry> {
    let mut found: Vec<(PathBuf, Format)> = Vec::new();
    if let Some(native) = &folders.native {
        found.extend(
            jsonl_in(native)
                .into_iter()
                .map(|path| (path, Format::Chatsurface)),
        );
    }
    if let Some(claude) = &folders.claude_code {
        let projects = std::fs::read_dir(claude)
            .into_iter()
            .flatten()
            .filter_map(Result::ok);
        for project in projects.filter(|entry| entry.path().is_dir()) {
            found.extend(
                jsonl_in(&project.path())
                    .into_iter()
                    .map(|path| (path, Format::ClaudeCode)),
            );
        }
    }
    if let Some(codex) = &folders.codex {
        // YYYY/MM/DD/rollout-*.jsonl
        let mut days = vec![codex.clone()];
        for _ in 0..3 {
            days = days
                .iter()
                .flat_map(|dir| {
                    std::fs::read_dir(dir)
                        .into_iter()
                        .flatten()
                        .filter_map(Result::ok)
                })
                .map(|entry| entry.path())
                .filter(|path| path.is_dir())
                .collect();
        }
        for day in days {
            found.extend(jsonl_in(&day).into_iter().map(|path| (path, Format::Codex)));
        }
    }
    if let Some(gemini) = &folders.gemini {
        let projects = std::fs::read_dir(gemini)
            .into_iter()
            .flatten()
            .filter_map(Result::ok);
        for project in projects {
            let chats = project.path().join("chats");
            found.extend(
                jsonl_in(&chats)
                    .into_iter()
                    .map(|path| (path, Format::Gemini)),
            );
        }
    }
    let mut entries: Vec<Entry> = found
        .into_iter()
        .filter_map(|(path, format)| match entry(&path, format) {
            Ok(entry) => Some(entry),
            Err(error) => {
                tracing::warn!("{error}; left out of the list");
                None
            }
        })
        .collect();
    entries.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| a.path.cmp(&b.path))
    });
    entries
}

fn entry(path: &Path, format: Format) -> Result<Entry, crate::error::AppError> {
    let modified = std::fs::metadata(path)
        .and_then(|meta| meta.modified())
        .unwrap_or(SystemTime::UNIX_EPOCH);
    // Each folder holds one agent's sessions, but a stray file there is no session of it.
    if super::detect_file(path)? != Some(format) {
        return Err(super::unknown_format(path));
    }
    let loaded = load(path, Some(format))?;
    let snapshot = &loaded.snapshot;
    Ok(Entry {
        agent: format.name(),
        title: snapshot.title().to_owned(),
        project: match format {
            Format::ClaudeCode => super::claude_code::project_of(path),
            Format::Codex => super::codex::project_of(path),
            Format::Gemini => super::gemini::project_of(path),
            Format::Chatsurface => None,
        },
        last_activity: humantime::format_rfc3339_seconds(modified).to_string(),
        messages: snapshot.messages.len(),
        open_questions: snapshot.open_questions() + snapshot.pending_confirmations(),
        path: path.to_owned(),
        modified,
    })
}
