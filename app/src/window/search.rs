//! The search bar (`/` or `Ctrl+F`): what was typed, the matches in the shown session, and
//! which one is current.
//!
//! Matches come from the compositor's [`find_in_session`], newest first, and are found again
//! whenever the query or the session changes (an agent writing while the bar is open), the
//! current match kept on the same node where it still matches. The desk brings the current
//! match into view (unfolding what hides it); this module only keeps the list and the place
//! in it.

use chatsurface_compositor::{find_in_session, SearchHit, SearchView, QUERY_CHARS};
use chatsurface_model::{History, NodeRef, Snapshot};
use std::collections::HashSet;
use std::sync::Arc;

/// The open search bar.
#[derive(Debug)]
pub(super) struct Search {
    query: String,
    hits: Arc<[SearchHit]>,
    /// The matching nodes, for asking of a card whether it matches.
    matching: HashSet<NodeRef>,
    current: Option<usize>,
    /// What `hits` were found in: the session, its last event and the query.
    found_in: Option<(History, u64, String)>,
    /// Whether the bar has the keyboard; a click in the transcript gives it to the cards (an
    /// answer typed there), the bar staying open with its matches.
    pub has_keys: bool,
}

impl Search {
    /// An empty bar, with the keyboard.
    pub(super) fn new() -> Search {
        Search {
            query: String::new(),
            hits: Arc::from([]),
            matching: HashSet::new(),
            current: None,
            found_in: None,
            has_keys: true,
        }
    }

    /// Adds typed text to the query.
    pub(super) fn type_text(&mut self, text: &str) {
        let room = QUERY_CHARS.saturating_sub(self.query.chars().count());
        self.query
            .extend(text.chars().filter(|c| !c.is_control()).take(room));
    }

    /// Removes the query's last character.
    pub(super) fn erase(&mut self) {
        self.query.pop();
    }

    /// Finds the matches again if the query or the session changed since; returns the match
    /// to show when it is a new one (the newest, after the query changed).
    pub(super) fn refresh(&mut self, snapshot: &Snapshot) -> Option<NodeRef> {
        let unchanged = self.found_in.as_ref().is_some_and(|(history, seq, query)| {
            (*history, *seq) == (snapshot.history, snapshot.last_seq) && *query == self.query
        });
        if unchanged {
            return None;
        }
        let key = (snapshot.history, snapshot.last_seq, self.query.clone());
        let query_changed = self
            .found_in
            .as_ref()
            .is_none_or(|(.., query)| *query != self.query);
        let was = self.current_node();
        self.hits = find_in_session(snapshot, &self.query).into();
        self.matching = self.hits.iter().map(|hit| hit.node).collect();
        self.found_in = Some(key);
        if query_changed {
            self.current = (!self.hits.is_empty()).then_some(0);
            return self.current_node();
        }
        // The session grew: stay on the same match.
        self.current = was
            .and_then(|node| self.hits.iter().position(|hit| hit.node == node))
            .or((!self.hits.is_empty()).then_some(0));
        None
    }

    /// Moves to the next older match (`delta` 1) or newer (-1), round the ends; returns it.
    pub(super) fn step(&mut self, delta: isize) -> Option<NodeRef> {
        let count = self.hits.len();
        if count == 0 {
            return None;
        }
        let at = self.current.unwrap_or(0) as isize + delta;
        self.current = Some(at.rem_euclid(count as isize) as usize);
        self.current_node()
    }

    /// The match shown now.
    pub(super) fn current_node(&self) -> Option<NodeRef> {
        self.current
            .and_then(|at| self.hits.get(at))
            .map(|hit| hit.node)
    }

    /// Whether a node matches.
    pub(super) fn matches(&self, node: NodeRef) -> bool {
        self.matching.contains(&node)
    }

    /// What the next frame draws.
    pub(super) fn view(&self) -> SearchView {
        SearchView {
            query: self.query.clone(),
            hits: Arc::clone(&self.hits),
            current: self.current,
        }
    }
}
