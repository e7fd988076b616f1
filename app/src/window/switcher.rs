//! The session switcher (`Ctrl+P`): every session on the machine, from every agent, filtered
//! by what the operator types, with what waits in each.
//!
//! Reading the list folds every transcript found, which can take a while on a machine with
//! long sessions, so it happens on a thread of its own ([`Scanner`]) that keeps what it read
//! (`agents::catalog::Catalog`) and rereads only files that changed. While the switcher is
//! open the window asks for a fresh list every [`RESCAN_EVERY`], so a session that starts or
//! grows shows up without closing it. This module owns the list, the filter and the
//! selection; opening the chosen session is the desk's business.

use crate::agents::catalog::{Catalog, Entry, Folders};
use chatsurface_compositor::{SwitcherRow, SwitcherView};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

/// How often the list is read again while the switcher is open.
pub(super) const RESCAN_EVERY: Duration = Duration::from_secs(2);

/// The thread that reads the list of sessions, and its last answer.
#[derive(Debug)]
pub(super) struct Scanner {
    requests: Sender<Folders>,
    results: Receiver<Vec<Entry>>,
    latest: Option<Vec<Entry>>,
    asked_at: Option<Instant>,
}

impl Scanner {
    /// Starts the thread; it ends when the scanner is dropped.
    pub(super) fn start() -> Scanner {
        let (requests, asked) = mpsc::channel::<Folders>();
        let (answer, results) = mpsc::channel();
        let started = std::thread::Builder::new()
            .name("session-scanner".into())
            .spawn(move || {
                let mut catalog = Catalog::default();
                while let Ok(mut folders) = asked.recv() {
                    // Requests that piled up while scanning ask for the same thing.
                    while let Ok(newer) = asked.try_recv() {
                        folders = newer;
                    }
                    if answer.send(catalog.scan(&folders)).is_err() {
                        return;
                    }
                }
            });
        if let Err(error) = started {
            tracing::warn!("cannot start reading the list of sessions: {error}");
        }
        Scanner {
            requests,
            results,
            latest: None,
            asked_at: None,
        }
    }

    /// Asks for a fresh list unless one was asked for within [`RESCAN_EVERY`].
    pub(super) fn ask(&mut self, folders: &Folders) {
        if self
            .asked_at
            .is_some_and(|asked| asked.elapsed() < RESCAN_EVERY)
        {
            return;
        }
        self.asked_at = Some(Instant::now());
        // A scanner whose thread could not start answers nothing: the switcher stays empty
        // and says it is reading, and the warning above said why.
        let _ = self.requests.send(folders.clone());
    }

    /// The newest list, if one arrived since the last call.
    pub(super) fn arrived(&mut self) -> Option<&[Entry]> {
        let mut newest = None;
        while let Ok(list) = self.results.try_recv() {
            newest = Some(list);
        }
        if newest.is_some() {
            self.latest = newest;
            self.latest.as_deref()
        } else {
            None
        }
    }

    /// The last list read, if any.
    pub(super) fn latest(&self) -> Option<&[Entry]> {
        self.latest.as_deref()
    }
}

/// The open switcher: the list, what was typed, and which match is selected.
#[derive(Debug, Default)]
pub(super) struct Switcher {
    entries: Vec<Entry>,
    scanned: bool,
    query: String,
    /// The selected session, by path, so that a fresh list keeps the selection on it.
    selected: Option<PathBuf>,
}

impl Switcher {
    /// A switcher over the last list read, if any.
    pub(super) fn new(entries: Option<&[Entry]>) -> Switcher {
        let mut switcher = Switcher::default();
        if let Some(entries) = entries {
            switcher.replace_entries(entries);
        }
        switcher
    }

    /// Takes a fresh list, keeping the selection on the same session while it matches.
    pub(super) fn replace_entries(&mut self, entries: &[Entry]) {
        self.entries = entries.to_vec();
        self.scanned = true;
    }

    /// The entries that match what was typed: every word typed must occur, ignoring case, in
    /// the title, the agent, the project or the path. Newest first, as listed.
    fn matches(&self) -> Vec<&Entry> {
        let words: Vec<String> = self
            .query
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        self.entries
            .iter()
            .filter(|entry| {
                let haystack = format!(
                    "{} {} {} {}",
                    entry.title,
                    entry.agent,
                    entry.project.as_deref().unwrap_or(""),
                    entry.path.display()
                )
                .to_lowercase();
                words.iter().all(|word| haystack.contains(word.as_str()))
            })
            .collect()
    }

    fn selected_index(&self, matches: &[&Entry]) -> usize {
        self.selected
            .as_ref()
            .and_then(|path| matches.iter().position(|entry| &entry.path == path))
            .unwrap_or(0)
    }

    /// Adds typed text to the filter; the selection goes to the best match.
    pub(super) fn type_text(&mut self, text: &str) {
        self.query
            .extend(text.chars().filter(|character| !character.is_control()));
        self.selected = None;
    }

    /// Removes the last character typed.
    pub(super) fn erase(&mut self) {
        self.query.pop();
        self.selected = None;
    }

    /// Moves the selection by `delta` rows, stopping at either end.
    pub(super) fn step(&mut self, delta: isize) {
        let matches = self.matches();
        if matches.is_empty() {
            return;
        }
        let index = self
            .selected_index(&matches)
            .saturating_add_signed(delta)
            .min(matches.len() - 1);
        self.selected = Some(matches[index].path.clone());
    }

    /// Selects the row at `index` of what is drawn.
    pub(super) fn select(&mut self, index: usize) {
        self.selected = self.matches().get(index).map(|entry| entry.path.clone());
    }

    /// The session Enter opens.
    pub(super) fn chosen(&self) -> Option<PathBuf> {
        let matches = self.matches();
        matches
            .get(self.selected_index(&matches))
            .map(|entry| entry.path.clone())
    }

    /// What the compositor draws; `shown` is the session the window shows.
    pub(super) fn view(&self, shown: &Path) -> SwitcherView {
        let matches = self.matches();
        SwitcherView {
            query: self.query.clone(),
            selected: self.selected_index(&matches),
            rows: matches
                .iter()
                .map(|entry| SwitcherRow {
                    agent: entry.agent.to_owned(),
                    title: entry.title.clone(),
                    project: entry.project.clone(),
                    last_activity: entry
                        .last_activity
                        .replacen('T', " ", 1)
                        .trim_end_matches('Z')
                        .to_owned(),
                    messages: entry.messages,
                    waiting: entry.open_questions,
                    shown: entry.path == shown,
                })
                .collect(),
            total: self.entries.len(),
            scanning: !self.scanned,
        }
    }
}
