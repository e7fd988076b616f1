//! A Codex thread reverted (Esc Esc in its terminal, `thread/revert` in its app-server) goes
//! on in a new rollout, `rollout-<time>-<thread>_<segment>.jsonl`, whose `session_meta`
//! names in `history_base` the file it continues (by segment id; the thread's id for its
//! first rollout) and the byte where the kept part of that file ends. What that file holds
//! after the byte is the reverted part.
//!
//! This module finds a thread's newest rollout from any of its files and walks those
//! links back to the first, splitting each older file at its byte; the reader shows the kept
//! parts as one conversation and each reverted part as a parked branch. It reads; it must
//! not write to the agent's files.

use super::{kind_of, meta_of};
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The most rollouts one thread's links are followed through.
const MAX_PARTS: usize = 256;

/// One older rollout of the thread, split where the next one took over.
pub(super) struct Part {
    /// The lines the thread kept.
    pub(super) kept: Vec<Value>,
    /// The lines after the point the conversation was reverted to.
    pub(super) reverted: Vec<Value>,
}

/// A thread's rollouts read: its older ones, oldest first, and the newest's lines.
pub(super) struct Lineage {
    /// The older rollouts, oldest first.
    pub(super) older: Vec<Part>,
    /// The newest rollout's lines, all kept.
    pub(super) newest: Vec<Value>,
    /// The files read besides the one opened, and the folder where a later rollout would
    /// appear.
    pub(super) read_beside: Vec<PathBuf>,
}

/// The `history_base` a rollout's lines name: the segment it continues and the byte where
/// the part it keeps ends.
fn history_base(lines: &[Value]) -> Option<(String, u64)> {
    let meta = lines
        .iter()
        .find(|line| kind_of(line) == Some("session_meta"))?
        .get("payload")?;
    base_of(meta)
}

fn base_of(meta: &Value) -> Option<(String, u64)> {
    let base = meta.get("history_base")?;
    Some((
        base.get("thread_id")?.as_str()?.to_owned(),
        base.get("end_byte_offset")?.as_u64()?,
    ))
}

/// A rollout's segment id, from its name: what follows `<thread>_`, or the thread id itself
/// for the thread's first rollout.
fn segment_of(path: &Path, thread: &str) -> Option<String> {
    let stem = path.file_stem()?.to_string_lossy().into_owned();
    if stem.ends_with(&format!("-{thread}")) {
        return Some(thread.to_owned());
    }
    let (_, segment) = stem.split_once(&format!("-{thread}_"))?;
    Some(segment.to_owned())
}

/// The thread's rollouts in `dir`, each with its segment id.
fn rollouts_of(dir: &Path, thread: &str) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "jsonl")
        })
        .filter_map(|path| Some((segment_of(&path, thread)?, path)))
        .collect();
    found.sort_by(|a, b| a.1.cmp(&b.1));
    found
}

/// The rollouts among `paths` that no later rollout of their thread in the same folder
/// continues: the files the catalog lists, one a thread. A rollout's thread is told from
/// its name (`rollout-<time>-<thread>[_<segment>].jsonl`), so listing reads no file.
pub(crate) fn newest_rollouts(mut paths: Vec<PathBuf>) -> Vec<PathBuf> {
    /// A UUID's length, which Codex's thread ids have.
    const ID_LEN: usize = 36;
    let thread_of = |path: &Path| -> Option<(PathBuf, String)> {
        let stem = path.file_stem()?.to_string_lossy().into_owned();
        let thread = stem.split('_').next()?;
        let id = thread.get(thread.len().checked_sub(ID_LEN)?..)?;
        Some((path.parent()?.to_owned(), id.to_owned()))
    };
    paths.sort();
    let mut newest: std::collections::HashMap<(PathBuf, String), usize> = Default::default();
    for (index, path) in paths.iter().enumerate() {
        if let Some(thread) = thread_of(path) {
            newest.insert(thread, index);
        }
    }
    paths
        .into_iter()
        .enumerate()
        .filter(|(index, path)| thread_of(path).is_none_or(|thread| newest[&thread] == *index))
        .map(|(_, path)| path)
        .collect()
}

/// Reads the thread of the rollout at `path` (`lines` its lines, as read) from its first
/// rollout to its newest, wherever in its folder it was opened.
pub(super) fn lineage(path: &Path, lines: Vec<Value>, warnings: &mut Vec<String>) -> Lineage {
    let read = |path: &Path, warnings: &mut Vec<String>| -> Option<Vec<u8>> {
        std::fs::read(path)
            .map_err(|error| {
                warnings.push(format!(
                    "{}: cannot read the file: {}; the session is shown without it",
                    path.display(),
                    chatsurface_model::io_reason(&error)
                ))
            })
            .ok()
    };
    let thread = lines
        .iter()
        .find(|line| kind_of(line) == Some("session_meta"))
        .and_then(|line| line.pointer("/payload/id")?.as_str())
        .map(str::to_owned);
    let dir = path.parent().map(Path::to_owned).unwrap_or_default();
    let Some(thread) = thread else {
        return Lineage {
            older: Vec::new(),
            newest: lines,
            read_beside: Vec::new(),
        };
    };
    let rollouts = rollouts_of(&dir, &thread);
    let continued: HashSet<String> = rollouts
        .iter()
        .filter_map(|(_, path)| base_of(&meta_of(path)?))
        .map(|(segment, _)| segment)
        .collect();
    // The newest: the rollout no other continues (the last by name, which starts with its
    // time, if a fork left two).
    let newest_path = rollouts
        .iter()
        .rev()
        .find(|(segment, _)| !continued.contains(segment))
        .map(|(_, path)| path.clone())
        .unwrap_or_else(|| path.to_owned());
    let mut read_beside = vec![dir.clone()];
    let newest = if newest_path == path {
        lines
    } else {
        read_beside.push(newest_path.clone());
        match read(&newest_path, warnings) {
            Some(bytes) => {
                super::super::json_lines(&newest_path, &bytes, "Codex rollout line", warnings)
            }
            None => lines,
        }
    };
    let mut older = Vec::new();
    let mut seen = HashSet::new();
    let mut base = history_base(&newest);
    while let Some((segment, end)) = base.take() {
        let Some((_, file)) = rollouts.iter().find(|(id, _)| *id == segment) else {
            warnings.push(format!(
                "{}: continues rollout {segment}, which is not in this folder; shown from here",
                newest_path.display()
            ));
            break;
        };
        if !seen.insert(segment.clone()) || older.len() >= MAX_PARTS {
            break;
        }
        if file != path {
            read_beside.push(file.clone());
        }
        let Some(bytes) = read(file, warnings) else {
            break;
        };
        let (kept, reverted) =
            super::super::json_lines_split_at(file, &bytes, end, "Codex rollout line", warnings);
        base = history_base(&kept);
        older.push(Part { kept, reverted });
    }
    older.reverse();
    Lineage {
        older,
        newest,
        read_beside,
    }
}
