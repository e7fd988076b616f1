//! Sessions written by the agents themselves, read into the canonical model: one folder per
//! agent with its transcript reader (`claude_code/`), and here what they share: which format a
//! file is in (from its content, never its name), folding a reader's events into a snapshot,
//! and following a transcript as the agent writes it ([`AgentTranscript`]).
//!
//! An agent's file is the truth for its session: this module reads it and never writes it.
//! A reader turns a whole file into v1 event bodies, so everything downstream (overview,
//! transcript, render, snapshot, window) works unchanged. Readers only append events as a
//! file grows (a tool's result is a chunk of its call's message), so following one folds
//! just the new events into the same snapshot; when the file changed in another way (a
//! rewind made another path the active one) the snapshot is folded anew.

pub mod catalog;
mod claude_code;
mod codex;
mod events;
mod gemini;
mod lines;
mod questions;

use crate::error::AppError;
use chatsurface_model::{
    fold_log_bytes, CheckpointUse, Event, EventBody, LoadedLog, Snapshot, EVENT_LOG_VERSION,
};
use std::path::{Path, PathBuf};

/// The formats a session file can be in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// chatsurface's own v1 event log.
    Chatsurface,
    /// A Claude Code transcript (`~/.claude/projects/<dir>/<session>.jsonl`).
    ClaudeCode,
    /// A Codex CLI rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
    Codex,
    /// A Gemini CLI session (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, or the older
    /// `session-*.json`).
    Gemini,
}

impl Format {
    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Chatsurface => "chatsurface",
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::Gemini => "gemini",
        }
    }
}

/// The formats tried, for the error about a file of none of them.
const TRIED: &str = "chatsurface v1, claude-code, codex, gemini";

/// How many of a file's first lines detection looks at (an agent may start with records
/// that do not name it, such as Claude Code's `mode`).
const DETECT_LINES: usize = 8;

/// The format of a file, from its first lines; `None` when it is none this build reads.
pub fn detect(bytes: &[u8]) -> Option<Format> {
    // Lines broken by CR alone are still told apart, so that the reader of their format can
    // say what is wrong with them.
    let mut lines = lines::without_bom(bytes)
        .split(|&byte| byte == b'\n' || byte == b'\r')
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
        .take(DETECT_LINES)
        .peekable();
    // An empty file is a native log nothing was written to yet; a first line that starts as
    // a v1 event is left to the v1 reader, broken or not, whose error names the line. Any
    // other broken first line (an agent's, torn mid-write) is no format: guessing v1 there
    // could let the window append to an agent's file.
    let Some(first) = lines.peek() else {
        return Some(Format::Chatsurface);
    };
    if first.starts_with(b"{\"v\":") {
        return Some(Format::Chatsurface);
    }
    if gemini::looks_like_whole_file(bytes) {
        return Some(Format::Gemini);
    }
    let records: Vec<serde_json::Value> = lines
        .filter_map(|line| serde_json::from_slice(line).ok())
        .collect();
    if records
        .first()
        .is_some_and(|record| record.get("v").is_some() && record.get("seq").is_some())
    {
        Some(Format::Chatsurface)
    } else if records.iter().any(gemini::looks_like) {
        Some(Format::Gemini)
    } else if records.iter().any(codex::looks_like) {
        Some(Format::Codex)
    } else if records.iter().any(claude_code::looks_like) {
        Some(Format::ClaudeCode)
    } else {
        None
    }
}

/// The format of the file at `path`, from its first lines (read alone, so a large
/// transcript is not read twice); `None` when it is none this build reads.
pub fn detect_file(path: &Path) -> Result<Option<Format>, AppError> {
    use std::io::{BufRead, Read};
    regular_file(path)?;
    let file = std::fs::File::open(path).map_err(|error| read_error(path, &error))?;
    let mut head = Vec::new();
    let mut reader = std::io::BufReader::new(file).take(64 << 20);
    for _ in 0..DETECT_LINES {
        let read = reader
            .read_until(b'\n', &mut head)
            .map_err(|error| read_error(path, &error))?;
        if read == 0 {
            break;
        }
    }
    Ok(detect(&head))
}

/// What a reader made of a whole transcript.
#[derive(Debug, Default)]
pub(crate) struct ReadTranscript {
    /// The events, each with the time it happened (RFC 3339).
    pub(crate) events: Vec<(String, EventBody)>,
    /// One line per record skipped (`file:line: why`).
    pub(crate) warnings: Vec<String>,
    /// Other files the session's events came from (a Codex sub-agent's rollout), watched
    /// with the transcript while it is followed.
    pub(crate) read_beside: Vec<PathBuf>,
    /// The file was caught being rewritten (Gemini CLI's older sessions are rewritten whole):
    /// no events were read, and it is to be read again.
    pub(crate) unfinished: bool,
}

/// Reads a session file in `format` (detected when `None`) into a snapshot.
pub fn load(path: &Path, format: Option<Format>) -> Result<LoadedLog, AppError> {
    load_reporting(path, format).map(|(loaded, _)| loaded)
}

/// [`load`], saying what became of the checkpoint of a long v1 log
/// ([`crate::checkpoints`]); `None` for a file that has none.
pub fn load_reporting(
    path: &Path,
    format: Option<Format>,
) -> Result<(LoadedLog, Option<CheckpointUse>), AppError> {
    let format = match format {
        Some(format) => format,
        None => detect_file(path)?.ok_or_else(|| unknown_format(path))?,
    };
    if format == Format::Chatsurface {
        regular_file(path)?;
        return Ok(crate::checkpoints::read_log_checkpointed(
            path,
            &crate::paths::data_dir(),
        )?);
    }
    let (read, len) = read_file(format, path)?;
    Ok((agent_log(path, &read, len)?, None))
}

/// Reads the bytes of the session file at `path` in `format` (detected when `None`) into a
/// snapshot, as [`load`] does the file (a reader may read files beside it).
pub fn load_bytes(
    path: &Path,
    bytes: &[u8],
    format: Option<Format>,
) -> Result<LoadedLog, AppError> {
    match format.or_else(|| detect(bytes)) {
        Some(Format::Chatsurface) => Ok(fold_log_bytes(path, bytes)?),
        Some(agent) => agent_log(path, &read_agent(agent, path, bytes), bytes.len() as u64),
        None => Err(unknown_format(path)),
    }
}

/// A reader's events folded, its warnings first; `len` is how much of the file it read.
fn agent_log(path: &Path, read: &ReadTranscript, len: u64) -> Result<LoadedLog, AppError> {
    let (snapshot, mut warnings) = fold(path, &read.events, Snapshot::default(), 0)?;
    warnings.splice(0..0, read.warnings.iter().cloned());
    if read.unfinished {
        warnings.push(format!(
            "{}: the agent was rewriting the file; nothing of it is shown (open it again)",
            path.display()
        ));
    }
    Ok(LoadedLog {
        snapshot,
        warnings,
        intact_len: len,
    })
}

/// Reads an agent's transcript from its file, with the file's length when it was opened.
/// Claude Code's is read one line at a time (its transcripts grow to hundreds of megabytes,
/// mostly tool outputs, and are never held whole); the others are read whole.
fn read_file(format: Format, path: &Path) -> Result<(ReadTranscript, u64), AppError> {
    use std::io::Read;
    regular_file(path)?;
    let mut file = std::fs::File::open(path).map_err(|error| read_error(path, &error))?;
    let len = file
        .metadata()
        .map_err(|error| read_error(path, &error))?
        .len();
    if format == Format::ClaudeCode {
        let reader = std::io::BufReader::with_capacity(1 << 18, file);
        return Ok((claude_code::read(path, reader), len));
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|error| read_error(path, &error))?;
    Ok((read_agent(format, path, &bytes), len))
}

/// Refuses what is not a regular file before it is opened: `/dev/zero` never ends and a FIFO
/// with no writer never answers, so reading either would hang (exit 66, one line).
fn regular_file(path: &Path) -> Result<(), AppError> {
    match std::fs::metadata(path) {
        Ok(metadata) if !metadata.is_file() => Err(AppError::NoInput(format!(
            "{}: cannot read the file: it is {}; a session is a regular file",
            path.display(),
            crate::fsutil::kind_of(&metadata.file_type())
        ))),
        Ok(_) => Ok(()),
        Err(error) => Err(read_error(path, &error)),
    }
}

/// A file that cannot be read: one line naming it and why (exit 66).
pub(crate) fn read_error(path: &Path, error: &std::io::Error) -> AppError {
    AppError::NoInput(format!(
        "{}: cannot read the file: {}",
        path.display(),
        chatsurface_model::io_reason(error)
    ))
}

/// The error for a file of no format this build reads (exit 65), naming those tried.
pub fn unknown_format(path: &Path) -> AppError {
    AppError::BadInput(format!(
        "{}: not a session in any known format (tried {TRIED}; --format picks one)",
        path.display()
    ))
}

fn read_agent(format: Format, path: &Path, bytes: &[u8]) -> ReadTranscript {
    match format {
        Format::ClaudeCode => claude_code::read(path, bytes),
        Format::Codex => codex::read(path, bytes),
        Format::Gemini => gemini::read(path, bytes),
        Format::Chatsurface => ReadTranscript::default(),
    }
}

/// Folds events `from..` into `snapshot`. An event the fold refuses (a reader's mistake, or a
/// transcript that breaks a rule the reader did not foresee) is skipped with a warning, so
/// the rest of the session still shows.
fn fold(
    path: &Path,
    events: &[(String, EventBody)],
    mut snapshot: Snapshot,
    from: usize,
) -> Result<(Snapshot, Vec<String>), AppError> {
    let mut warnings = Vec::new();
    for (index, (at, body)) in events.iter().enumerate().skip(from) {
        let event = Event {
            v: EVENT_LOG_VERSION,
            seq: index as u64 + 1,
            at: at.clone(),
            body: body.clone(),
        };
        if let Err(error) = snapshot.apply(event) {
            // The refused event's seq follows every one before it (they are numbered here),
            // so counting it as skipped cannot fail.
            let _ = snapshot.skip_unknown(index as u64 + 1);
            warnings.push(format!(
                "{}: event {}: {error}; skipped",
                path.display(),
                index + 1
            ));
        }
    }
    Ok((snapshot, warnings))
}

/// An agent's transcript the window shows and follows as the agent writes it.
#[derive(Debug)]
pub struct AgentTranscript {
    path: PathBuf,
    format: Format,
    snapshot: Snapshot,
    /// The events the snapshot was folded from.
    events: Vec<(String, EventBody)>,
    /// What the file and its sub-agents' folder looked like at the last read.
    seen: Option<Seen>,
    /// The other files the last read took events from.
    read_beside: Vec<PathBuf>,
}

/// A cheap look at a transcript, to tell whether it changed.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seen {
    len: u64,
    modified: Option<std::time::SystemTime>,
    beside: Option<std::time::SystemTime>,
    /// The length and modification time of each file read beside it.
    read_beside: Vec<(u64, Option<std::time::SystemTime>)>,
}

impl AgentTranscript {
    /// Opens a transcript in an agent's format; warnings go to the log.
    pub fn open(path: &Path, format: Format) -> Result<AgentTranscript, AppError> {
        let mut transcript = AgentTranscript {
            path: path.to_owned(),
            format,
            snapshot: Snapshot::default(),
            events: Vec::new(),
            seen: None,
            read_beside: Vec::new(),
        };
        transcript.follow()?;
        Ok(transcript)
    }

    /// The folded session.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The transcript's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn look(&self) -> Seen {
        let stamp = |path: &Path| {
            let meta = std::fs::metadata(path).ok();
            (
                meta.as_ref().map_or(0, std::fs::Metadata::len),
                meta.and_then(|meta| meta.modified().ok()),
            )
        };
        let (len, modified) = stamp(&self.path);
        let beside = std::fs::metadata(self.path.with_extension("").join("subagents"))
            .and_then(|meta| meta.modified())
            .ok();
        Seen {
            len,
            modified,
            beside,
            read_beside: self.read_beside.iter().map(|path| stamp(path)).collect(),
        }
    }

    /// Reads the transcript again if it changed; returns whether the session did. New events
    /// that extend the old ones are folded into the same snapshot (its caches stay good);
    /// otherwise it is folded anew.
    pub fn follow(&mut self) -> Result<bool, AppError> {
        let seen = self.look();
        if self.seen.as_ref() == Some(&seen) {
            return Ok(false);
        }
        let (read, _) = read_file(self.format, &self.path)?;
        if read.unfinished {
            // What the window shows stands until the file is whole again.
            return Ok(false);
        }
        self.seen = Some(seen);
        if read.read_beside != self.read_beside {
            // Stamped at the next look, which then reads once more: a file just found may
            // already have grown since it was read.
            self.read_beside = read.read_beside;
            self.seen = None;
        }
        if read.events == self.events {
            return Ok(false);
        }
        let extends = read.events.starts_with(&self.events) && !self.events.is_empty();
        let (base, from) = if extends {
            (std::mem::take(&mut self.snapshot), self.events.len())
        } else {
            for warning in &read.warnings {
                tracing::warn!("{warning}");
            }
            (Snapshot::default(), 0)
        };
        let (snapshot, warnings) = fold(&self.path, &read.events, base, from)?;
        for warning in warnings {
            tracing::warn!("{warning}");
        }
        self.snapshot = snapshot;
        self.events = read.events;
        Ok(true)
    }
}

/// The JSON objects of a file's whole lines, as [`lines::for_each_json_object`] reads them.
pub(crate) fn json_lines(
    path: &Path,
    bytes: &[u8],
    what: &str,
    warnings: &mut Vec<String>,
) -> Vec<serde_json::Value> {
    let mut values = Vec::new();
    lines::for_each_json_object(path, bytes, what, warnings, |_, value| values.push(value));
    values
}

/// The JSON objects of a file's whole lines as [`json_lines`] reads them, in two lists:
/// those of lines that start before byte `at` of the file, and the rest.
pub(crate) fn json_lines_split_at(
    path: &Path,
    bytes: &[u8],
    at: u64,
    what: &str,
    warnings: &mut Vec<String>,
) -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
    let (mut before, mut after) = (Vec::new(), Vec::new());
    lines::for_each_json_object(path, bytes, what, warnings, |line, value| {
        if line.start < at {
            before.push(value);
        } else {
            after.push(value);
        }
    });
    (before, after)
}

/// Where the readers' tests find the transcripts the real agents wrote:
/// `$CHATSURFACE_AGENT_FIXTURES` (CI points it at transcripts it just had the pinned agents
/// write), else the committed `tests/fixtures/agents/`.
#[cfg(test)]
fn fixtures_dir() -> std::path::PathBuf {
    std::env::var_os("CHATSURFACE_AGENT_FIXTURES")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/agents")
        })
}

/// The transcript of a scenario the real agent wrote: the `.jsonl` (or `.json`) file in
/// `<fixtures>/<agent>/<scenario>/`, or where the agent wrote several (a Codex sub-agent
/// writes a rollout of its own) the first by name that is no sub-agent's.
#[cfg(test)]
pub(crate) fn fixture_file(agent: &str, scenario: &str) -> PathBuf {
    let dir = fixtures_dir().join(agent).join(scenario);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "jsonl" || extension == "json")
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .find(|path| !codex::is_subagent(path))
        .unwrap_or_else(|| panic!("{}: no transcript", dir.display()))
}

/// The sub-agent's thread of a folded fixture: its one exploration thread.
#[cfg(test)]
fn exploration_thread(snapshot: &Snapshot) -> &chatsurface_model::ThreadNode {
    snapshot
        .threads
        .iter()
        .find(|thread| thread.spec.kind == chatsurface_model::ThreadKind::Exploration)
        .expect("the sub-agent's thread")
}

/// The role and text of each message of `thread`, in order.
#[cfg(test)]
fn in_thread(snapshot: &Snapshot, thread: &str) -> Vec<(chatsurface_model::Role, String)> {
    snapshot
        .messages
        .iter()
        .filter(|message| message.spec.thread_id.as_str() == thread)
        .map(|message| (message.spec.role, message.spec.text.clone()))
        .collect()
}

/// Each branch thread's id, title and status, in order.
#[cfg(test)]
fn branch_threads(snapshot: &Snapshot) -> Vec<(&str, &str, chatsurface_model::ThreadStatus)> {
    snapshot
        .threads
        .iter()
        .filter(|thread| thread.spec.kind == chatsurface_model::ThreadKind::Branch)
        .map(|thread| {
            (
                thread.spec.id.as_str(),
                thread.spec.title.as_str(),
                thread.status,
            )
        })
        .collect()
}

/// A scenario's transcript folded, after checking that its format is detected from its
/// content and that it folds without a warning.
#[cfg(test)]
fn load_fixture(agent: &str, scenario: &str, format: Format) -> Snapshot {
    let path = fixture_file(agent, scenario);
    let bytes = std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    assert_eq!(detect(&bytes), Some(format), "detected from the content");
    let loaded = load(&path, None).unwrap_or_else(|error| panic!("{error}"));
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    loaded.snapshot
}

/// The longest part of a tool's output kept in its message, in characters.
pub(crate) const TOOL_OUTPUT_CHARS: usize = 2_000;

/// A tool's output as it follows the call in the tool message: a code block of at most
/// [`TOOL_OUTPUT_CHARS`] (fenced with `~~~~` when the output holds ```` ``` ````), or
/// "(no output)".
pub(crate) fn output_block(output: &str) -> String {
    let shown = cut(output.trim(), TOOL_OUTPUT_CHARS);
    if shown.is_empty() {
        return "\n\n(no output)".to_owned();
    }
    format!("\n\n{}", code_block(&shown))
}

/// Text as a markdown code block, shown as it is (fenced with `~~~~` when it holds
/// ```` ``` ````), so that an agent's `-` or `*` is never read as markdown.
pub(crate) fn code_block(text: &str) -> String {
    let fence = if text.contains("```") { "~~~~" } else { "```" };
    format!("{fence}\n{text}\n{fence}")
}

/// Cuts text to at most `max` characters, ending in "…" when it was longer.
pub(crate) fn cut(text: &str, max: usize) -> String {
    if text.char_indices().nth(max).is_none() {
        return text.to_owned();
    }
    let end = text
        .char_indices()
        .nth(max.saturating_sub(1))
        .map_or(0, |(end, _)| end);
    format!("{}…", &text[..end])
}

/// A thread or session title from any text: its first line, cut to the title limit, never
/// empty.
pub(crate) fn title_of(text: &str) -> String {
    let line = text
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("")
        .trim();
    let line = line.trim_start_matches('#').trim();
    if line.is_empty() {
        return "(untitled)".to_owned();
    }
    cut(line, chatsurface_model::limits::TITLE_CHARS)
}

#[cfg(test)]
mod tests {
    use super::cut;

    #[test]
    fn cut_keeps_at_most_max_characters_with_the_ellipsis_among_them() {
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abcd", 3), "ab…");
        assert_eq!(cut("жёлтый", 4), "жёл…");
        assert_eq!(cut("😀😀😀", 2), "😀…");
        assert_eq!(cut("a", 0), "…");
        assert_eq!(cut("", 0), "");
    }
}
