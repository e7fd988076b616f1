//! The snapshot: the dialog as the fold of its log has left it.
//!
//! Nodes live in one `Vec` per kind, in the order they were opened, with an id index beside
//! each. The timeline records where each node entered the conversation, so the transcript can
//! interleave messages, batches, confirmations and decisions exactly as they happened.

use crate::clarification::ClarificationBatch;
use crate::confirmation::Confirmation;
use crate::ids::{BatchId, ConfirmationId, MessageId, ThreadId};
use crate::nodes::{Decision, MessageNode, Session, ThreadNode};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// Identifies one folded history: every snapshot made (by `Default`, by reading a log, by
/// `clone`) gets a number no other snapshot of this process has had.
///
/// Caches that hold what was computed from a snapshot key it by its history, so two sessions
/// (or a session and its clone, which may fold different events from then on) never share an
/// entry, even when their last sequence numbers or their addresses in memory are equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct History(u64);

impl History {
    /// A history number not used before in this process.
    pub fn fresh() -> History {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        History(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

impl Default for History {
    fn default() -> History {
        History::fresh()
    }
}

/// Points at one node of the snapshot by its index in the vector of its kind.
#[derive(
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
)]
pub enum NodeRef {
    /// A thread was opened (shown in the transcript where a branch starts).
    Thread(usize),
    /// A message.
    Message(usize),
    /// A clarification batch.
    Batch(usize),
    /// A confirmation.
    Confirmation(usize),
    /// A decision.
    Decision(usize),
}

/// One entry of the timeline: a node, the thread it belongs to, and when it appeared.
#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimelineEntry {
    /// The node.
    pub node: NodeRef,
    /// Index of the node's thread in [`Snapshot::threads`].
    pub thread: usize,
    /// The sequence number of the event that opened the node.
    pub seq: u64,
}

/// The folded state of one session.
#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Debug, Default, Serialize)]
pub struct Snapshot {
    /// Which folded history this is; a clone gets a history of its own.
    #[serde(skip)]
    #[rkyv(with = rkyv::with::Skip)]
    pub history: History,
    /// The session, once `session_started` was seen.
    pub session: Option<Session>,
    /// Every thread, in the order opened.
    pub threads: Vec<ThreadNode>,
    /// Every message, in the order posted.
    pub messages: Vec<MessageNode>,
    /// Every clarification batch, in the order opened.
    pub batches: Vec<ClarificationBatch>,
    /// Every confirmation, in the order requested.
    pub confirmations: Vec<Confirmation>,
    /// Every decision, in the order recorded.
    pub decisions: Vec<Decision>,
    /// The sequence number of the last event folded.
    pub last_seq: u64,
    /// Events of types this build does not know, kept in the log and skipped here.
    pub unknown_events: usize,
    /// Nodes in the order they entered the conversation.
    #[serde(skip)]
    pub timeline: Vec<TimelineEntry>,
    #[serde(skip)]
    #[rkyv(with = rkyv::with::Skip)]
    pub(crate) index: SnapshotIndex,
}

/// Id → position lookups, kept in step with the node vectors by the fold.
#[derive(Clone, Debug, Default)]
pub(crate) struct SnapshotIndex {
    pub(crate) threads: HashMap<ThreadId, usize>,
    pub(crate) messages: HashMap<MessageId, usize>,
    pub(crate) batches: HashMap<BatchId, usize>,
    pub(crate) confirmations: HashMap<ConfirmationId, usize>,
}

impl Clone for Snapshot {
    fn clone(&self) -> Snapshot {
        Snapshot {
            history: History::fresh(),
            session: self.session.clone(),
            threads: self.threads.clone(),
            messages: self.messages.clone(),
            batches: self.batches.clone(),
            confirmations: self.confirmations.clone(),
            decisions: self.decisions.clone(),
            last_seq: self.last_seq,
            unknown_events: self.unknown_events,
            timeline: self.timeline.clone(),
            index: self.index.clone(),
        }
    }
}

impl Snapshot {
    /// Fills the id index from the node vectors, for a snapshot read back from a checkpoint
    /// (the index is not stored: it is cheaper to rebuild than to check).
    pub(crate) fn rebuild_index(&mut self) {
        fn positions<I: Clone + Eq + std::hash::Hash, N>(
            nodes: &[N],
            id: impl Fn(&N) -> &I,
        ) -> HashMap<I, usize> {
            nodes
                .iter()
                .enumerate()
                .map(|(index, node)| (id(node).clone(), index))
                .collect()
        }
        self.index = SnapshotIndex {
            threads: positions(&self.threads, |thread| &thread.spec.id),
            messages: positions(&self.messages, |message| &message.spec.id),
            batches: positions(&self.batches, |batch| &batch.spec.id),
            confirmations: positions(&self.confirmations, |confirmation| &confirmation.spec.id),
        };
    }

    /// The position of a thread in [`Snapshot::threads`].
    pub fn thread_index(&self, id: &ThreadId) -> Option<usize> {
        self.index.threads.get(id).copied()
    }

    /// A thread by id.
    pub fn thread(&self, id: &ThreadId) -> Option<&ThreadNode> {
        self.thread_index(id).map(|index| &self.threads[index])
    }

    /// The position of a message in [`Snapshot::messages`].
    pub fn message_index(&self, id: &MessageId) -> Option<usize> {
        self.index.messages.get(id).copied()
    }

    /// A batch by id.
    pub fn batch(&self, id: &BatchId) -> Option<&ClarificationBatch> {
        self.index
            .batches
            .get(id)
            .map(|&index| &self.batches[index])
    }

    /// A confirmation by id.
    pub fn confirmation(&self, id: &ConfirmationId) -> Option<&Confirmation> {
        self.index
            .confirmations
            .get(id)
            .map(|&index| &self.confirmations[index])
    }

    /// The title of the session, or a neutral one when the log has not said.
    pub fn title(&self) -> &str {
        self.session
            .as_ref()
            .map_or("Untitled session", |session| session.title.as_str())
    }

    /// Unanswered items across every open batch.
    pub fn open_questions(&self) -> usize {
        self.threads
            .iter()
            .map(|thread| thread.open_questions)
            .sum()
    }

    /// Confirmations still waiting for the human.
    pub fn pending_confirmations(&self) -> usize {
        self.threads
            .iter()
            .map(|thread| thread.pending_confirmations)
            .sum()
    }

    /// Whether a node points into this snapshot's vectors (a `NodeRef` kept from another
    /// snapshot may not).
    pub fn contains(&self, node: NodeRef) -> bool {
        match node {
            NodeRef::Thread(index) => index < self.threads.len(),
            NodeRef::Message(index) => index < self.messages.len(),
            NodeRef::Batch(index) => index < self.batches.len(),
            NodeRef::Confirmation(index) => index < self.confirmations.len(),
            NodeRef::Decision(index) => index < self.decisions.len(),
        }
    }

    /// Whether a node is a question still waiting for the human: an open batch or a pending
    /// confirmation.
    pub fn is_open_question(&self, node: NodeRef) -> bool {
        match node {
            NodeRef::Batch(index) => self
                .batches
                .get(index)
                .is_some_and(|batch| batch.status == crate::clarification::BatchStatus::Open),
            NodeRef::Confirmation(index) => {
                self.confirmations.get(index).is_some_and(|confirmation| {
                    confirmation.status == crate::confirmation::ConfirmationStatus::Pending
                })
            }
            _ => false,
        }
    }

    /// How long an open question has left before it expires; none when it is not open or has
    /// no timeout.
    pub fn time_left(
        &self,
        node: NodeRef,
        now: std::time::SystemTime,
    ) -> Option<std::time::Duration> {
        if !self.is_open_question(node) {
            return None;
        }
        match node {
            NodeRef::Batch(index) => self.batches.get(index)?.time_left(now),
            NodeRef::Confirmation(index) => self.confirmations.get(index)?.time_left(now),
            _ => None,
        }
    }

    /// The attachment of a question (a batch or confirmation), if it has one.
    pub fn attachment(&self, node: NodeRef) -> Option<&str> {
        match node {
            NodeRef::Batch(index) => self.batches.get(index)?.spec.attachment.as_deref(),
            NodeRef::Confirmation(index) => {
                self.confirmations.get(index)?.spec.attachment.as_deref()
            }
            _ => None,
        }
    }

    /// The parent of a thread, as an index.
    pub fn parent_of(&self, thread: usize) -> Option<usize> {
        self.threads[thread].parent_index
    }

    /// The threads as a tree: the topics, and each thread's branches, by index, in the order
    /// they were opened.
    pub fn thread_tree(&self) -> (Vec<usize>, Vec<Vec<usize>>) {
        let mut children = vec![Vec::new(); self.threads.len()];
        let mut roots = Vec::new();
        for thread in 0..self.threads.len() {
            match self.parent_of(thread) {
                Some(parent) => children[parent].push(thread),
                None => roots.push(thread),
            }
        }
        (roots, children)
    }

    /// Whether `thread` is `ancestor` or lies below it.
    pub fn is_within(&self, thread: usize, ancestor: usize) -> bool {
        let mut current = Some(thread);
        while let Some(index) = current {
            if index == ancestor {
                return true;
            }
            current = self.parent_of(index);
        }
        false
    }
}
