//! The session, threads, messages and decisions: the plain nodes of a dialog.
//!
//! Each node is split into the spec an event carries (what the agent said) and the state the
//! fold adds (status, counts, the revision that last changed it).

use crate::ids::{BatchId, DecisionId, MessageId, SessionId, ThreadId};
use serde::{Deserialize, Serialize};

/// The session a log records, from its `session_started` event.
#[derive(
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    Clone,
    Debug,
    PartialEq,
    Serialize,
    Deserialize,
)]
pub struct Session {
    /// The session's id.
    pub id: SessionId,
    /// A human title, shown in the header.
    pub title: String,
    /// The agent that runs the session, when it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The integration that created the session through the local API, written by the
    /// server (never taken from a request): it, and the operator, may read and write the
    /// session. Absent in sessions made otherwise, and in logs older than the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by: Option<String>,
}

/// What kind of line of work a thread is.
#[derive(
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum ThreadKind {
    /// A main topic of the session.
    Topic,
    /// A branch taken off another thread, meant to come back.
    Branch,
    /// A side exploration that may be dropped.
    Exploration,
}

/// Where a thread stands.
#[derive(
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    Default,
)]
#[serde(rename_all = "snake_case")]
pub enum ThreadStatus {
    /// Work is going on in it.
    #[default]
    Active,
    /// Set aside, to be picked up later.
    Parked,
    /// Done: its outcome is recorded.
    Resolved,
}

/// A thread as an agent opens it.
#[derive(
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    Clone,
    Debug,
    PartialEq,
    Serialize,
    Deserialize,
)]
pub struct ThreadSpec {
    /// The thread's id, unique in the session.
    pub id: ThreadId,
    /// The thread it branches off, or `None` for a top-level topic.
    pub parent: Option<ThreadId>,
    /// A short title (at most 60 characters).
    pub title: String,
    /// Topic, branch or exploration.
    pub kind: ThreadKind,
}

/// A thread in the snapshot: its spec plus what the fold learned about it.
#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Clone, Debug, PartialEq, Serialize)]
pub struct ThreadNode {
    /// What the agent declared.
    #[serde(flatten)]
    pub spec: ThreadSpec,
    /// Active, parked or resolved.
    pub status: ThreadStatus,
    /// Messages posted in this thread (not its branches).
    pub messages: usize,
    /// Unanswered items of open batches in this thread.
    pub open_questions: usize,
    /// Confirmations in this thread still waiting for the human.
    pub pending_confirmations: usize,
    /// Decisions recorded in this thread.
    pub decisions: usize,
    /// The sequence number of the last event in this thread itself (its branches keep their
    /// own; the compositor combines them when it ranks a subtree).
    pub last_activity_seq: u64,
    /// The parent's index in [`crate::Snapshot::threads`], resolved once when the thread opens.
    #[serde(skip)]
    pub parent_index: Option<usize>,
    /// The sequence number of the last event that changed this node itself.
    pub revision: u64,
}

/// Who wrote a message.
#[derive(
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The human operator.
    User,
    /// The agent.
    Agent,
    /// The system running the agent.
    System,
    /// Output of a tool the agent ran.
    Tool,
}

/// A message as an event carries it.
#[derive(
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    Clone,
    Debug,
    PartialEq,
    Serialize,
    Deserialize,
)]
pub struct MessageSpec {
    /// The message's id, unique in the session.
    pub id: MessageId,
    /// The thread it belongs to.
    pub thread_id: ThreadId,
    /// Who wrote it.
    pub role: Role,
    /// Markdown text; untrusted when it comes from an agent or a tool.
    pub text: String,
}

/// A message in the snapshot.
#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Clone, Debug, PartialEq, Serialize)]
pub struct MessageNode {
    /// The message, with streamed chunks already appended to its text.
    #[serde(flatten)]
    pub spec: MessageSpec,
    /// The sequence number of the last event that changed it (a chunk changes it).
    pub revision: u64,
}

/// A decision as an event carries it.
#[derive(
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    Clone,
    Debug,
    PartialEq,
    Serialize,
    Deserialize,
)]
pub struct DecisionSpec {
    /// The decision's id, unique in the session.
    pub id: DecisionId,
    /// The thread it was taken in.
    pub thread_id: ThreadId,
    /// What was decided.
    pub text: String,
    /// The batch whose answer led to it, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_id: Option<BatchId>,
}

/// A decision in the snapshot.
#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Clone, Debug, PartialEq, Serialize)]
pub struct Decision {
    /// The decision as recorded.
    #[serde(flatten)]
    pub spec: DecisionSpec,
    /// The sequence number of the event that recorded it.
    pub revision: u64,
}
