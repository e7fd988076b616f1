//! Events of the v1 log: the envelope and the typed bodies.
//!
//! A line is `{"v":1,"seq":N,"at":"RFC 3339","type":…, …payload}`. Reading happens in two
//! steps (see `log.rs`): the envelope first, then the body only when its type is one this
//! build knows, so an unknown type from a newer writer is kept in the file and skipped by the
//! fold instead of failing the whole log.

use crate::clarification::{BatchSpec, ItemAnswer};
use crate::confirmation::{ConfirmationOutcome, ConfirmationSpec};
use crate::ids::{BatchId, ConfirmationId, MessageId, ThreadId};
use crate::nodes::{DecisionSpec, MessageSpec, Session, ThreadSpec, ThreadStatus};
use serde::{Deserialize, Serialize};

/// The version of the log format this build writes and reads.
pub const EVENT_LOG_VERSION: u32 = 1;

/// Why a batch closed without an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BatchCloseReason {
    /// Its timeout passed.
    Expired,
    /// The agent took it back.
    Withdrawn,
}

/// The payload of an event, tagged by its `type`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventBody {
    /// The session began.
    SessionStarted {
        /// The session.
        session: Session,
    },
    /// A topic, branch or exploration opened.
    ThreadOpened {
        /// The thread.
        thread: ThreadSpec,
    },
    /// A thread was parked, resolved or resumed.
    ThreadStatusChanged {
        /// The thread.
        thread_id: ThreadId,
        /// Its new status.
        status: ThreadStatus,
    },
    /// A whole message was posted.
    MessageAppended {
        /// The message.
        message: MessageSpec,
    },
    /// A piece of streamed agent text arrived for an existing message.
    MessageChunkAppended {
        /// The message it extends.
        message_id: MessageId,
        /// The text to append.
        text: String,
    },
    /// An agent asked a batch of questions.
    ClarificationBatchOpened {
        /// The batch.
        batch: BatchSpec,
    },
    /// The human submitted a response to a batch.
    ClarificationAnswerSubmitted {
        /// The batch answered.
        batch_id: BatchId,
        /// One answer per item.
        answers: Vec<ItemAnswer>,
        /// The general note.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        general: Option<String>,
    },
    /// A batch closed unanswered.
    ClarificationBatchClosed {
        /// The batch.
        batch_id: BatchId,
        /// Why.
        reason: BatchCloseReason,
    },
    /// The human's unsubmitted answers were saved.
    DraftSaved {
        /// The batch being answered.
        batch_id: BatchId,
        /// The answers so far.
        answers: Vec<ItemAnswer>,
        /// The general note so far.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        general: Option<String>,
    },
    /// An agent asked to confirm a dangerous action.
    ConfirmationRequested {
        /// The confirmation.
        confirmation: ConfirmationSpec,
    },
    /// A confirmation ended.
    ConfirmationResolved {
        /// The confirmation.
        confirmation_id: ConfirmationId,
        /// How it ended.
        outcome: ConfirmationOutcome,
        /// The human's comment.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        comment: Option<String>,
    },
    /// A decision was recorded.
    DecisionRecorded {
        /// The decision.
        decision: DecisionSpec,
    },
}

impl EventBody {
    /// The `type` names this build understands; any other is kept and skipped.
    pub const KNOWN_TYPES: &'static [&'static str] = &[
        "session_started",
        "thread_opened",
        "thread_status_changed",
        "message_appended",
        "message_chunk_appended",
        "clarification_batch_opened",
        "clarification_answer_submitted",
        "clarification_batch_closed",
        "draft_saved",
        "confirmation_requested",
        "confirmation_resolved",
        "decision_recorded",
    ];
}

/// One line of the log.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Event {
    /// The format version, always [`EVENT_LOG_VERSION`] when written by this build.
    pub v: u32,
    /// The position in the log, strictly increasing from 1.
    pub seq: u64,
    /// When it was written, RFC 3339.
    pub at: String,
    /// What happened.
    #[serde(flatten)]
    pub body: EventBody,
}

impl Event {
    /// The event as one line of JSON, without the newline.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self)
            .expect("an event always serialises: it holds only strings, numbers and lists")
    }
}
