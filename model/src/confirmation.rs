//! Confirmations of dangerous actions.
//!
//! A confirmation is its own type, never a batch with a yes/no item: the surface gives it an
//! attention style of its own, and its outcome is recorded as accepted or declined, not as a
//! selected option.

use crate::ids::{ConfirmationId, ThreadId};
use serde::{Deserialize, Serialize};

/// A confirmation as an agent requests it.
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
pub struct ConfirmationSpec {
    /// The confirmation's id, unique in the session.
    pub id: ConfirmationId,
    /// The thread that asks.
    pub thread_id: ThreadId,
    /// A short title (at most 60 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What is about to happen (at most 600 characters).
    pub message: String,
    /// The accept button's label (at most 30 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accept: Option<String>,
    /// The decline button's label (at most 30 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decline: Option<String>,
    /// The label of a third answer, accepting for good (at most 60 characters): the agent
    /// will not ask again for actions of this kind. Without it there is no such answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accept_always: Option<String>,
    /// Whether the human may add a comment.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub comment: bool,
    /// Seconds after which it expires, if it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<f64>,
    /// An absolute path the human can open from the card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attachment: Option<String>,
    /// Whether the question lives only as long as the connection that asked it (the API's
    /// `hold`): a server starting after a crash withdraws such a question still waiting,
    /// since no client can be waiting for it any more.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub held: bool,
}

impl ConfirmationSpec {
    /// The accept label, defaulting to the dialog contract's "Да".
    pub fn accept_label(&self) -> &str {
        self.accept.as_deref().unwrap_or("Да")
    }

    /// The decline label, defaulting to the dialog contract's "Нет".
    pub fn decline_label(&self) -> &str {
        self.decline.as_deref().unwrap_or("Нет")
    }
}

/// How a confirmation ended.
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
pub enum ConfirmationOutcome {
    /// The human accepted.
    Accepted,
    /// The human declined.
    Declined,
    /// Its timeout passed.
    Expired,
    /// The agent took it back.
    Withdrawn,
}

/// Where a confirmation stands.
#[derive(
    rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Serialize,
)]
#[serde(rename_all = "snake_case")]
pub enum ConfirmationStatus {
    /// Waiting for the human.
    Pending,
    /// The human accepted.
    Accepted,
    /// The human declined.
    Declined,
    /// Its timeout passed.
    Expired,
    /// The agent took it back.
    Withdrawn,
}

impl From<ConfirmationOutcome> for ConfirmationStatus {
    fn from(outcome: ConfirmationOutcome) -> Self {
        match outcome {
            ConfirmationOutcome::Accepted => Self::Accepted,
            ConfirmationOutcome::Declined => Self::Declined,
            ConfirmationOutcome::Expired => Self::Expired,
            ConfirmationOutcome::Withdrawn => Self::Withdrawn,
        }
    }
}

/// A confirmation in the snapshot.
#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Clone, Debug, PartialEq, Serialize)]
pub struct Confirmation {
    /// What the agent asked.
    #[serde(flatten)]
    pub spec: ConfirmationSpec,
    /// Pending, or how it ended.
    pub status: ConfirmationStatus,
    /// The comment the human gave with the outcome.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome_comment: Option<String>,
    /// Whether it was accepted for good (its `accept_always` answer).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub accepted_always: bool,
    /// When it was asked (RFC 3339, from its event).
    pub opened_at: String,
    /// The sequence number of the last event that changed it.
    pub revision: u64,
}

impl Confirmation {
    /// How long from `now` until the confirmation's timeout passes (zero when it has), counted
    /// from when it was asked; none without a timeout.
    pub fn time_left(&self, now: std::time::SystemTime) -> Option<std::time::Duration> {
        crate::clarification::time_left(&self.opened_at, self.spec.timeout_s, now)
    }

    /// How long the confirmation has waited at `now`, counted from when it was asked; none
    /// when its time does not parse.
    pub fn waited(&self, now: std::time::SystemTime) -> Option<std::time::Duration> {
        crate::clarification::waited(&self.opened_at, now)
    }
}
