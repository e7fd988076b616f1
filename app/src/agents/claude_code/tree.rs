//! Which thread each record of a Claude Code transcript belongs to.
//!
//! The records form a tree by `uuid` → `parent`. The active path, from the leaf the session
//! ended on up to its root, is thread 0 (the main thread). Every record off that path
//! belongs to a branch: walking from the newest unassigned conversation record up to the
//! first record already assigned gives one branch, whose parent is the thread of that record
//! (the place where the session split). A parent that was never written (a broken chain)
//! ends the walk there, so those records form a branch of their own instead of being dropped.

use super::records::Record;
use std::collections::{HashMap, HashSet};

/// The thread of every record (`None`: not part of the conversation, such as a sidechain).
#[derive(Debug, Default)]
pub(super) struct Threads {
    of: Vec<Option<usize>>,
    /// Each thread's parent thread (`None` for the main thread).
    parents: Vec<Option<usize>>,
}

impl Threads {
    /// The thread of record `index`.
    pub(super) fn of(&self, index: usize) -> Option<usize> {
        self.of.get(index).copied().flatten()
    }

    /// The thread a branch split off.
    pub(super) fn parent_of(&self, thread: usize) -> Option<usize> {
        self.parents.get(thread).copied().flatten()
    }

    /// A branch's title: its first prompt, else "Branch N".
    pub(super) fn title_of(&self, thread: usize, records: &[Record]) -> String {
        records
            .iter()
            .enumerate()
            .filter(|(index, _)| self.of(*index) == Some(thread))
            .find_map(|(_, record)| record.prompt.clone().filter(|_| !record.is_meta))
            .map(|prompt| format!("↩ {prompt}"))
            .unwrap_or_else(|| format!("Branch {thread}"))
    }
}

/// Whether a record is part of the conversation shown (not a harness record).
fn is_conversation(record: &Record) -> bool {
    !record.is_sidechain
        && record.uuid.is_some()
        && match record.kind.as_str() {
            "user" => record.prompt.is_some() || !record.results.is_empty(),
            "assistant" => true,
            "system" => record.subtype.as_deref() == Some("compact_boundary"),
            _ => false,
        }
}

/// Assigns every record to the main thread or a branch.
pub(super) fn assign_threads(records: &[Record]) -> Threads {
    let by_uuid: HashMap<&str, usize> = records
        .iter()
        .enumerate()
        .filter(|(_, record)| !record.is_sidechain)
        .filter_map(|(index, record)| Some((record.uuid.as_deref()?, index)))
        .collect();
    let parent = |index: usize| -> Option<usize> {
        let parent = records[index].parent.as_deref()?;
        by_uuid.get(parent).copied()
    };
    let leaf = records
        .iter()
        .rev()
        .filter_map(|record| record.leaf.as_deref())
        .find_map(|leaf| by_uuid.get(leaf).copied())
        .or_else(|| {
            (0..records.len())
                .rev()
                .find(|&index| is_conversation(&records[index]))
        });
    let mut threads = Threads {
        of: vec![None; records.len()],
        parents: vec![None],
    };
    let walk = |start: usize, thread: usize, threads: &mut Threads| -> Option<usize> {
        let mut seen = HashSet::new();
        let mut at = Some(start);
        while let Some(index) = at {
            if let Some(owner) = threads.of[index] {
                return Some(owner);
            }
            if !seen.insert(index) {
                return None;
            }
            threads.of[index] = Some(thread);
            at = parent(index);
        }
        None
    };
    if let Some(leaf) = leaf {
        walk(leaf, 0, &mut threads);
    }
    for index in (0..records.len()).rev() {
        if threads.of[index].is_some() || !is_conversation(&records[index]) {
            continue;
        }
        let thread = threads.parents.len();
        threads.parents.push(Some(0));
        let joined = walk(index, thread, &mut threads);
        threads.parents[thread] = Some(joined.unwrap_or(0));
    }
    threads
}
