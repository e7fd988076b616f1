//! Every session the window knows of: the one it shows and, when it is the surface for the
//! store, every other session log under `<data dir>/sessions/`, each folded and followed.
//!
//! The window must know what waits in sessions it is not showing: a question that arrives
//! from another agent while the human answers must be counted in the header and reachable
//! with `o`. So the shelf keeps one [`SessionLog`] per log, catches each up as it grows and
//! notes which grew last. Only the shown log stays open between looks; the others' files are
//! closed after each look and opened again when they grow. It owns the logs; it decides
//! nothing about what the window shows.

use super::session::{is_demo, SessionLog};
use chatsurface_compositor::Elsewhere;
use chatsurface_model::NodeRef;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A question waiting for the human, named by the log it is in and its node there.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct WaitingQuestion {
    /// The session's log.
    pub log: PathBuf,
    /// The batch or confirmation.
    pub node: NodeRef,
}

/// One followed log and when it last grew.
#[derive(Debug)]
struct Shelved {
    log: SessionLog,
    /// The shelf's clock at the last growth (or at opening, for logs found later).
    grew_at: u64,
    /// Its open questions, counted when it last grew, so the header's count of what waits
    /// elsewhere costs one addition per session and frame, not a walk of every timeline.
    waiting: usize,
}

impl Shelved {
    fn new(log: SessionLog, grew_at: u64) -> Shelved {
        let mut shelved = Shelved {
            log,
            grew_at,
            waiting: 0,
        };
        shelved.count_waiting();
        shelved
    }

    fn count_waiting(&mut self) {
        let snapshot = self.log.snapshot();
        self.waiting = if is_demo(snapshot) {
            0
        } else {
            snapshot
                .timeline
                .iter()
                .filter(|entry| snapshot.is_open_question(entry.node))
                .count()
        };
    }
}

/// The sessions the window follows: the one shown, and the others.
#[derive(Debug)]
pub(super) struct Shelf {
    store: Option<PathBuf>,
    shown: Shelved,
    others: BTreeMap<PathBuf, Shelved>,
    /// Logs that could not be opened, with the length they had, so they are tried again only
    /// once they change.
    broken: BTreeMap<PathBuf, u64>,
    clock: u64,
}

/// What one look at the logs found.
#[derive(Debug, Default)]
pub(super) struct Growth {
    /// Logs that have new events.
    pub grown: Vec<PathBuf>,
    /// Logs that could not be read, one line each.
    pub errors: Vec<String>,
}

impl Shelf {
    /// A shelf showing `log` and, when `store` names a data directory, holding every other
    /// session log found there from the first [`Shelf::look`] on.
    pub(super) fn new(log: SessionLog, store: Option<PathBuf>) -> Shelf {
        Shelf {
            store,
            shown: Shelved::new(log, 0),
            others: BTreeMap::new(),
            broken: BTreeMap::new(),
            clock: 0,
        }
    }

    /// The session shown.
    pub(super) fn shown(&self) -> &SessionLog {
        &self.shown.log
    }

    /// The session shown, to append to.
    pub(super) fn shown_mut(&mut self) -> &mut SessionLog {
        &mut self.shown.log
    }

    /// Shows the session at `log`; returns false (and changes nothing) if the shelf does not
    /// hold it.
    pub(super) fn show(&mut self, log: &Path) -> bool {
        let Some(next) = self.others.remove(log) else {
            return false;
        };
        let mut previous = std::mem::replace(&mut self.shown, next);
        // The desk may have answered in it since it last grew.
        previous.count_waiting();
        self.others
            .insert(previous.log.path().to_path_buf(), previous);
        true
    }

    /// The snapshot of a session the shelf follows.
    pub(super) fn snapshot_of(&self, log: &Path) -> Option<&chatsurface_model::Snapshot> {
        if self.shown.log.path() == log {
            return Some(self.shown.log.snapshot());
        }
        self.others.get(log).map(|shelved| shelved.log.snapshot())
    }

    /// Whether the shelf follows the session at `log`.
    pub(super) fn holds(&self, log: &Path) -> bool {
        self.shown.log.path() == log || self.others.contains_key(log)
    }

    /// Follows one more session (one the human chose, of any agent), not shown yet.
    pub(super) fn add(&mut self, log: SessionLog) {
        self.clock += 1;
        self.others
            .insert(log.path().to_path_buf(), Shelved::new(log, self.clock));
    }

    /// Opens logs that appeared in the store and folds what every log gained since the last
    /// look.
    pub(super) fn look(&mut self) -> Growth {
        let mut growth = Growth::default();
        self.open_new_logs(&mut growth);
        for shelved in std::iter::once(&mut self.shown).chain(self.others.values_mut()) {
            match shelved.log.follow() {
                Ok(true) => {
                    self.clock += 1;
                    shelved.grew_at = self.clock;
                    shelved.count_waiting();
                    growth.grown.push(shelved.log.path().to_path_buf());
                }
                Ok(false) => {}
                Err(error) => growth.errors.push(error),
            }
        }
        for shelved in self.others.values_mut() {
            shelved.log.release_file();
        }
        growth
    }

    fn open_new_logs(&mut self, growth: &mut Growth) {
        let Some(store) = &self.store else {
            return;
        };
        let Ok(entries) = std::fs::read_dir(store.join("sessions")) else {
            return;
        };
        let shown = self.shown.log.path();
        let mut found: Vec<(std::time::SystemTime, PathBuf, u64)> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| {
                path.extension()
                    .is_some_and(|extension| extension == "jsonl")
            })
            .filter(|path| path != shown && !self.others.contains_key(path))
            .filter_map(|path| {
                let metadata = std::fs::metadata(&path).ok()?;
                Some((metadata.modified().ok()?, path, metadata.len()))
            })
            .filter(|(_, path, len)| self.broken.get(path) != Some(len))
            .collect();
        // Oldest first, so the clock orders them as they were written.
        found.sort();
        for (_, path, len) in found {
            match SessionLog::open(&path) {
                Ok(log) => {
                    self.broken.remove(&path);
                    self.clock += 1;
                    self.others
                        .insert(path.clone(), Shelved::new(log, self.clock));
                    growth.grown.push(path);
                }
                Err(error) => {
                    self.broken.insert(path, len);
                    growth.errors.push(error.to_string());
                }
            }
        }
    }

    /// Every open question: the shown session's first, then the others' in path order, each
    /// session's in transcript order. The bundled demo's questions count only while it is
    /// shown: they are examples that wait for nobody.
    pub(super) fn waiting(&self) -> Vec<WaitingQuestion> {
        std::iter::once(&self.shown)
            .chain(
                self.others
                    .values()
                    .filter(|shelved| !is_demo(shelved.log.snapshot())),
            )
            .flat_map(|shelved| {
                let path = shelved.log.path();
                let snapshot = shelved.log.snapshot();
                snapshot
                    .timeline
                    .iter()
                    .filter(|entry| snapshot.is_open_question(entry.node))
                    .map(move |entry| WaitingQuestion {
                        log: path.to_path_buf(),
                        node: entry.node,
                    })
            })
            .collect()
    }

    /// What waits in every session but the one shown.
    pub(super) fn elsewhere(&self) -> Elsewhere {
        let mut elsewhere = Elsewhere::default();
        for shelved in self.others.values().filter(|shelved| shelved.waiting > 0) {
            elsewhere.questions += shelved.waiting;
            elsewhere.sessions += 1;
        }
        elsewhere
    }

    /// The log that grew last.
    pub(super) fn last_grown(&self) -> &Path {
        std::iter::once(&self.shown)
            .chain(self.others.values())
            .max_by_key(|shelved| shelved.grew_at)
            .map_or(self.shown.log.path(), |shelved| shelved.log.path())
    }
}
