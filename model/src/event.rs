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
        /// Whether it was accepted for good: the confirmation's `accept_always` answer.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        always: bool,
    },
    /// A decision was recorded.
    DecisionRecorded {
        /// The decision.
        decision: DecisionSpec,
    },
}

impl EventBody {
    /// Reads the body of a line whose envelope said `type` is `kind`; `None` when this build
    /// does not know the type.
    ///
    /// Each type is read straight into a struct of its own fields. Going through the tagged
    /// enum instead would make serde buffer the whole line (with its text) before it can look
    /// at the tag, which was a tenth of the time it takes to fold a large log.
    pub fn from_json(kind: &str, line: &str) -> Option<serde_json::Result<EventBody>> {
        fn read<T: serde::de::DeserializeOwned>(line: &str) -> serde_json::Result<T> {
            serde_json::from_str(line)
        }
        macro_rules! payload {
            ($variant:ident { $($(#[$meta:meta])* $field:ident: $ty:ty),* $(,)? }) => {{
                #[derive(Deserialize)]
                struct Payload {
                    $($(#[$meta])* $field: $ty,)*
                }
                read::<Payload>(line).map(|payload| EventBody::$variant { $($field: payload.$field,)* })
            }};
        }
        Some(match kind {
            "session_started" => payload!(SessionStarted { session: Session }),
            "thread_opened" => payload!(ThreadOpened { thread: ThreadSpec }),
            "thread_status_changed" => payload!(ThreadStatusChanged {
                thread_id: ThreadId,
                status: ThreadStatus
            }),
            "message_appended" => payload!(MessageAppended {
                message: MessageSpec
            }),
            "message_chunk_appended" => payload!(MessageChunkAppended {
                message_id: MessageId,
                text: String
            }),
            "clarification_batch_opened" => payload!(ClarificationBatchOpened { batch: BatchSpec }),
            "clarification_answer_submitted" => payload!(ClarificationAnswerSubmitted {
                batch_id: BatchId,
                answers: Vec<ItemAnswer>,
                general: Option<String>,
            }),
            "clarification_batch_closed" => payload!(ClarificationBatchClosed {
                batch_id: BatchId,
                reason: BatchCloseReason
            }),
            "draft_saved" => {
                payload!(DraftSaved { batch_id: BatchId, answers: Vec<ItemAnswer>, general: Option<String> })
            }
            "confirmation_requested" => payload!(ConfirmationRequested {
                confirmation: ConfirmationSpec
            }),
            "confirmation_resolved" => payload!(ConfirmationResolved {
                confirmation_id: ConfirmationId,
                outcome: ConfirmationOutcome,
                comment: Option<String>,
                #[serde(default)]
                always: bool,
            }),
            "decision_recorded" => payload!(DecisionRecorded {
                decision: DecisionSpec
            }),
            _ => return None,
        })
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clarification::{AnswerKind, ClarificationItem};
    use crate::nodes::{Role, ThreadKind};

    fn one_of_each() -> Vec<EventBody> {
        let answers = vec![ItemAnswer {
            item_id: "q".into(),
            text: Some("x".into()),
            ..ItemAnswer::default()
        }];
        vec![
            EventBody::SessionStarted {
                session: Session {
                    id: "s".into(),
                    title: "T".into(),
                    agent: Some("a".into()),
                    created_by: None,
                },
            },
            EventBody::ThreadOpened {
                thread: ThreadSpec {
                    id: "t".into(),
                    parent: None,
                    title: "T".into(),
                    kind: ThreadKind::Exploration,
                },
            },
            EventBody::ThreadStatusChanged {
                thread_id: "t".into(),
                status: ThreadStatus::Parked,
            },
            EventBody::MessageAppended {
                message: MessageSpec {
                    id: "m".into(),
                    thread_id: "t".into(),
                    role: Role::Tool,
                    text: "ок".into(),
                },
            },
            EventBody::MessageChunkAppended {
                message_id: "m".into(),
                text: "!".into(),
            },
            EventBody::ClarificationBatchOpened {
                batch: BatchSpec {
                    held: false,
                    id: "b".into(),
                    thread_id: "t".into(),
                    title: None,
                    items: vec![ClarificationItem {
                        id: "q".into(),
                        prompt: "?".into(),
                        header: None,
                        kind: AnswerKind::Text,
                        options: Vec::new(),
                        multiple: false,
                        custom: false,
                        recommended: None,
                    }],
                    general_field: true,
                    timeout_s: Some(30.0),
                    attachment: None,
                },
            },
            EventBody::DraftSaved {
                batch_id: "b".into(),
                answers: answers.clone(),
                general: None,
            },
            EventBody::ClarificationAnswerSubmitted {
                batch_id: "b".into(),
                answers,
                general: Some("g".into()),
            },
            EventBody::ClarificationBatchClosed {
                batch_id: "b".into(),
                reason: BatchCloseReason::Withdrawn,
            },
            EventBody::ConfirmationRequested {
                confirmation: ConfirmationSpec {
                    held: false,
                    id: "c".into(),
                    thread_id: "t".into(),
                    title: None,
                    message: "Drop?".into(),
                    accept: None,
                    decline: Some("No".into()),
                    accept_always: Some("Always drop".into()),
                    comment: true,
                    timeout_s: None,
                    attachment: Some("/tmp/x".into()),
                },
            },
            EventBody::ConfirmationResolved {
                confirmation_id: "c".into(),
                outcome: ConfirmationOutcome::Declined,
                comment: Some("later".into()),
                always: false,
            },
            EventBody::DecisionRecorded {
                decision: DecisionSpec {
                    id: "d".into(),
                    thread_id: "t".into(),
                    text: "Yes".into(),
                    batch_id: Some("b".into()),
                },
            },
        ]
    }

    #[test]
    fn every_event_type_reads_back_as_written() {
        let bodies = one_of_each();
        assert_eq!(bodies.len(), 12, "one of each type");
        for (index, body) in bodies.into_iter().enumerate() {
            let event = Event {
                v: 1,
                seq: index as u64 + 1,
                at: "2026-12-01T00:00:00Z".into(),
                body,
            };
            let line = event.to_line();
            let kind = serde_json::from_str::<serde_json::Value>(&line).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned();
            let read = EventBody::from_json(&kind, &line)
                .expect("a known type")
                .unwrap();
            assert_eq!(read, event.body, "{line}");
            assert_eq!(
                serde_json::from_str::<EventBody>(&line).unwrap(),
                event.body,
                "the derived reader agrees"
            );
        }
        assert!(EventBody::from_json("reaction_added", "{}").is_none());
    }
}
