//! Every session on the machine, from every agent: the native store's logs and the agents'
//! transcripts in their default folders (see `paths.rs`), newest first, with what awaits in
//! each. `chatsurface sessions` prints it; `chatsurface` alone opens its newest entry when the
//! store has no session yet.
//!
//! A file that cannot be read or is of no known format is left out with a warning; listing
//! must not fail because one session is broken.

use super::{load, Format};
use serde::Serialize;
use std::collections::HashMap;
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
    files_in(dir, |path| {
        path.extension().is_some_and(|ext| ext == "jsonl")
    })
}

/// Gemini CLI's sessions in a project's `chats/`: `session-*.jsonl`, and the older
/// `session-*.json`.
fn gemini_sessions_in(chats: &Path) -> Vec<PathBuf> {
    let mut sessions = jsonl_in(chats);
    sessions.extend(files_in(chats, |path| {
        path.extension().is_some_and(|ext| ext == "json")
            && path
                .file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with("session-"))
    }));
    sessions
}

/// The files directly in `dir` that `wanted` picks.
fn files_in(dir: &Path, wanted: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_file() && wanted(path))
        .collect()
}

/// Every session in `folders`, newest first.
pub fn list(folders: &Folders) -> Vec<Entry> {
    Catalog::default().scan(folders)
}

/// The sessions found by earlier scans, so that scanning again reads only files that changed:
/// the window's switcher rescans every few seconds while it is open.
#[derive(Debug, Default)]
pub struct Catalog {
    /// Each file's entry (none for a file its parent's session shows), with the length and
    /// modification time it was read at.
    known: HashMap<PathBuf, (u64, SystemTime, Option<Entry>)>,
}

impl Catalog {
    /// Every session in `folders`, newest first; a file unchanged since the last scan is not
    /// read again.
    pub fn scan(&mut self, folders: &Folders) -> Vec<Entry> {
        let found = session_files(folders);
        let mut known = HashMap::with_capacity(found.len());
        for (path, format) in found {
            let Ok(metadata) = std::fs::metadata(&path) else {
                continue;
            };
            let stamp = (
                metadata.len(),
                metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            );
            if let Some(seen) = self.known.remove(&path) {
                if (seen.0, seen.1) == stamp {
                    known.insert(path, seen);
                    continue;
                }
            }
            match entry(&path, format) {
                Ok(entry) => {
                    known.insert(path, (stamp.0, stamp.1, entry));
                }
                Err(error) => tracing::warn!("{error}; left out of the list"),
            }
        }
        self.known = known;
        let mut entries: Vec<Entry> = self
            .known
            .values()
            .filter_map(|(_, _, entry)| entry.clone())
            .collect();
        entries.sort_by(|a, b| {
            b.modified
                .cmp(&a.modified)
                .then_with(|| a.path.cmp(&b.path))
        });
        entries
    }
}

/// Every file in `folders` that should hold a session, with the format its folder implies.
pub(crate) fn session_files(folders: &Folders) -> Vec<(PathBuf, Format)> {
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
            // A reverted thread goes on in a new rollout beside the old; its session is
            // listed once.
            let newest = super::codex::newest_rollouts(jsonl_in(&day));
            found.extend(newest.into_iter().map(|path| (path, Format::Codex)));
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
                gemini_sessions_in(&chats)
                    .into_iter()
                    .map(|path| (path, Format::Gemini)),
            );
        }
    }
    found
}

/// The entry of a session file; `None` for a Codex sub-agent's rollout, which its parent's
/// session shows.
fn entry(path: &Path, format: Format) -> Result<Option<Entry>, crate::error::AppError> {
    let modified = std::fs::metadata(path)
        .and_then(|meta| meta.modified())
        .unwrap_or(SystemTime::UNIX_EPOCH);
    // Each folder holds one agent's sessions, but a stray file there is no session of it.
    if super::detect_file(path)? != Some(format) {
        return Err(super::unknown_format(path));
    }
    if format == Format::Codex && super::codex::is_subagent(path) {
        return Ok(None);
    }
    let loaded = load(path, Some(format))?;
    let snapshot = &loaded.snapshot;
    Ok(Some(Entry {
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
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chatsurface_model::{EventBody, LogWriter};

    fn body(value: serde_json::Value) -> EventBody {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_rescan_sees_what_grew_appeared_and_went_and_keeps_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(format!("{name}.jsonl"));
        let start = |name: &str| {
            std::fs::write(path(name), "").unwrap();
            let mut writer = LogWriter::open(&path(name)).unwrap();
            writer
                .append_all([
                    body(serde_json::json!({"type":"session_started","session":{"id":name,"title":format!("Session {name}")}})),
                    body(serde_json::json!({"type":"thread_opened","thread":{"id":"main","parent":null,"title":"Main","kind":"topic"}})),
                ])
                .unwrap();
            writer
        };
        let folders = Folders {
            native: Some(dir.path().to_owned()),
            ..Folders::default()
        };
        let mut catalog = Catalog::default();
        let mut growing = start("growing");
        let _steady = start("steady");
        let messages = |entries: &[Entry], name: &str| {
            entries
                .iter()
                .find(|entry| entry.path == path(name))
                .map(|entry| entry.messages)
        };
        let first = catalog.scan(&folders);
        assert_eq!(messages(&first, "growing"), Some(0));
        assert_eq!(messages(&first, "steady"), Some(0));

        growing
            .append(body(serde_json::json!({"type":"message_appended","message":{"id":"m","thread_id":"main","role":"agent","text":"Hello."}})))
            .unwrap();
        let _late = start("late");
        std::fs::remove_file(path("steady")).unwrap();
        let second = catalog.scan(&folders);
        assert_eq!(
            messages(&second, "growing"),
            Some(1),
            "a grown file is read again"
        );
        assert_eq!(messages(&second, "late"), Some(0), "a new file is listed");
        assert_eq!(messages(&second, "steady"), None, "a removed file is gone");
        assert_eq!(second.len(), 2);
    }
}
