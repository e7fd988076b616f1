//! The questions inbox (`i`): every question waiting for the human in every session the window
//! follows, oldest first, with who asks, where, and for how long; Enter answers the chosen one
//! in place.
//!
//! The shelf knows what waits; this module orders it, words it for the compositor's
//! [`InboxView`] and keeps the selection. The selection is a question's identity (its log and
//! node), not a row number, so a question that arrives or is answered while the inbox is open
//! does not move the selection onto another one. Switching sessions and answering are the
//! desk's business.

use super::shelf::{Shelf, WaitingQuestion};
use chatsurface_compositor::{InboxRow, InboxView, WaitingKind};
use chatsurface_model::{NodeRef, Snapshot};
use std::collections::BTreeSet;
use std::time::{Duration, SystemTime};

/// What the agent asks, as one row says it: a batch's title or first prompt, a confirmation's
/// title and message.
fn asks(snapshot: &Snapshot, node: NodeRef) -> String {
    match node {
        NodeRef::Batch(index) => snapshot.batches.get(index).map(|batch| {
            batch
                .spec
                .title
                .clone()
                .or_else(|| batch.spec.items.first().map(|item| item.prompt.clone()))
                .unwrap_or_default()
        }),
        NodeRef::Confirmation(index) => snapshot.confirmations.get(index).map(|confirmation| {
            let message = confirmation.spec.message.lines().next().unwrap_or("");
            match &confirmation.spec.title {
                Some(title) => format!("{title} — {message}"),
                None => message.to_owned(),
            }
        }),
        _ => None,
    }
    .unwrap_or_default()
}

/// How long a question has waited at `now`, when its time is known.
fn waited(snapshot: &Snapshot, node: NodeRef, now: SystemTime) -> Option<Duration> {
    match node {
        NodeRef::Batch(index) => snapshot.batches.get(index)?.waited(now),
        NodeRef::Confirmation(index) => snapshot.confirmations.get(index)?.waited(now),
        _ => None,
    }
}

/// The titles of a question's thread from its topic down, joined as the overview joins them.
fn thread_path(snapshot: &Snapshot, node: NodeRef) -> String {
    let thread_id = match node {
        NodeRef::Batch(index) => snapshot.batches.get(index).map(|b| &b.spec.thread_id),
        NodeRef::Confirmation(index) => {
            snapshot.confirmations.get(index).map(|c| &c.spec.thread_id)
        }
        _ => None,
    };
    let mut at = thread_id.and_then(|id| {
        snapshot
            .threads
            .iter()
            .position(|thread| &thread.spec.id == id)
    });
    let mut titles = Vec::new();
    // A parent always comes before its child, so the walk up ends; the bound is for a
    // snapshot that breaks that rule.
    while let Some(index) = at.filter(|_| titles.len() <= snapshot.threads.len()) {
        let thread = &snapshot.threads[index];
        titles.push(thread.spec.title.as_str());
        at = thread.parent_index;
    }
    titles.reverse();
    titles.join(" › ")
}

/// Every waiting question with its row, oldest first (a question whose time is unknown after
/// the rest; ties in the shelf's order).
pub(super) fn gather(shelf: &Shelf, now: SystemTime) -> Vec<(WaitingQuestion, InboxRow)> {
    let shown = shelf.shown().path();
    let mut rows: Vec<(WaitingQuestion, InboxRow)> = shelf
        .waiting()
        .into_iter()
        .filter_map(|question| {
            let snapshot = shelf.snapshot_of(&question.log)?;
            let node = question.node;
            let row = InboxRow {
                kind: if matches!(node, NodeRef::Confirmation(_)) {
                    WaitingKind::Confirmation
                } else {
                    WaitingKind::Batch
                },
                // The agent it named, else the integration that opened it through the API.
                agent: snapshot
                    .session
                    .as_ref()
                    .and_then(|session| session.agent.clone().or(session.created_by.clone()))
                    .unwrap_or_else(|| "chatsurface".to_owned()),
                session: snapshot.title().to_owned(),
                thread: thread_path(snapshot, node),
                asks: asks(snapshot, node),
                waited: waited(snapshot, node, now),
                here: question.log == shown,
            };
            Some((question, row))
        })
        .collect();
    // Stable: questions asked at the same second keep the shelf's order.
    rows.sort_by_key(|(_, row)| std::cmp::Reverse(row.waited));
    rows
}

/// The open inbox: which question is selected.
#[derive(Debug, Default)]
pub(super) struct Inbox {
    selected: Option<WaitingQuestion>,
}

impl Inbox {
    fn selected_index(&self, rows: &[(WaitingQuestion, InboxRow)]) -> usize {
        self.selected
            .as_ref()
            .and_then(|selected| rows.iter().position(|(question, _)| question == selected))
            .unwrap_or(0)
    }

    /// Moves the selection by `delta` rows, stopping at either end.
    pub(super) fn step(&mut self, rows: &[(WaitingQuestion, InboxRow)], delta: isize) {
        if rows.is_empty() {
            return;
        }
        let index = self
            .selected_index(rows)
            .saturating_add_signed(delta)
            .min(rows.len() - 1);
        self.selected = Some(rows[index].0.clone());
    }

    /// Selects the row at `index` of what is drawn.
    pub(super) fn select(&mut self, rows: &[(WaitingQuestion, InboxRow)], index: usize) {
        self.selected = rows.get(index).map(|(question, _)| question.clone());
    }

    /// The question Enter answers.
    pub(super) fn chosen(&self, rows: &[(WaitingQuestion, InboxRow)]) -> Option<WaitingQuestion> {
        rows.get(self.selected_index(rows))
            .map(|(question, _)| question.clone())
    }

    /// What the compositor draws.
    pub(super) fn view(&self, rows: Vec<(WaitingQuestion, InboxRow)>) -> InboxView {
        let selected = self.selected_index(&rows);
        let sessions = rows
            .iter()
            .map(|(question, _)| &question.log)
            .collect::<BTreeSet<_>>()
            .len();
        InboxView {
            rows: rows.into_iter().map(|(_, row)| row).collect(),
            selected,
            sessions,
        }
    }
}
