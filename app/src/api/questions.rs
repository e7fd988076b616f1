//! The one builder of the events that settle a question without an answer: a batch or a
//! confirmation withdrawn (its asker went away) or expired (its timeout passed).
//!
//! Every path that ends a question unanswered (a dialog's client disconnecting, the server
//! shutting down, an integration removed, a batch's timer, a restart finding orphans) asks
//! this module for the event, so the choice between `Withdrawn` and `Expired`, and the rule
//! that a settled question is left alone, are written once. It reads a snapshot and returns
//! events; it must not append, wait or know about HTTP.

use chatsurface_model::{
    BatchCloseReason, BatchStatus, ConfirmationOutcome, ConfirmationStatus, EventBody, NodeRef,
    Snapshot,
};

/// Why a question ends without an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unanswered {
    /// Its asker is gone: the client disconnected, the server stopped or the integration
    /// was removed.
    Withdrawn,
    /// Its timeout passed.
    Expired,
}

/// The question (batch or confirmation) with this id, wherever it is in the snapshot.
pub fn find(snapshot: &Snapshot, id: &str) -> Option<NodeRef> {
    let batch = snapshot
        .batches
        .iter()
        .position(|batch| batch.spec.id.as_str() == id)
        .map(NodeRef::Batch);
    batch.or_else(|| {
        snapshot
            .confirmations
            .iter()
            .position(|asked| asked.spec.id.as_str() == id)
            .map(NodeRef::Confirmation)
    })
}

/// The event that ends question `node` unanswered, or `None` when it is settled already
/// (an answer that landed first wins) or `node` is not a question.
pub fn close(snapshot: &Snapshot, node: NodeRef, why: Unanswered) -> Option<EventBody> {
    match node {
        NodeRef::Batch(index) => {
            let batch = snapshot.batches.get(index)?;
            (batch.status == BatchStatus::Open).then(|| EventBody::ClarificationBatchClosed {
                batch_id: batch.spec.id.clone(),
                reason: match why {
                    Unanswered::Withdrawn => BatchCloseReason::Withdrawn,
                    Unanswered::Expired => BatchCloseReason::Expired,
                },
            })
        }
        NodeRef::Confirmation(index) => {
            let confirmation = snapshot.confirmations.get(index)?;
            (confirmation.status == ConfirmationStatus::Pending).then(|| {
                EventBody::ConfirmationResolved {
                    confirmation_id: confirmation.spec.id.clone(),
                    outcome: match why {
                        Unanswered::Withdrawn => ConfirmationOutcome::Withdrawn,
                        Unanswered::Expired => ConfirmationOutcome::Expired,
                    },
                    comment: None,
                    always: false,
                }
            })
        }
        _ => None,
    }
}

/// Withdraws a question when dropped, unless [`WithdrawIfDropped::disarm`]ed first: held by a
/// request that waits for its own question's answer, so a client that goes away (a bridge's
/// hook killed because the human answered in the agent's terminal) takes its question off
/// the surface instead of leaving it open for nobody.
pub struct WithdrawIfDropped {
    armed: Option<(std::sync::Arc<super::store::LiveSession>, String)>,
}

impl WithdrawIfDropped {
    /// Arms the withdrawal of question `id` of `session`.
    pub fn new(session: std::sync::Arc<super::store::LiveSession>, id: String) -> Self {
        WithdrawIfDropped {
            armed: Some((session, id)),
        }
    }

    /// The question settled (or the client is told where it stands): leave it be.
    pub fn disarm(mut self) {
        self.armed = None;
    }
}

impl Drop for WithdrawIfDropped {
    fn drop(&mut self) {
        let Some((session, id)) = self.armed.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            // Decided under the session's lock, so an answer landing meanwhile wins.
            let _ = session
                .append_with(|snapshot| {
                    let close = find(snapshot, &id)
                        .and_then(|node| close(snapshot, node, Unanswered::Withdrawn));
                    Ok::<_, super::store::StoreError>((close.into_iter().collect(), ()))
                })
                .await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chatsurface_model::{fold_log_bytes, Event};
    use std::path::Path;

    const LOG: &str = r#"{"v":1,"seq":1,"at":"2026-12-03T10:00:00Z","type":"thread_opened","thread":{"id":"t1","parent":null,"title":"Main","kind":"topic"}}
{"v":1,"seq":2,"at":"2026-12-03T10:00:01Z","type":"clarification_batch_opened","batch":{"id":"b1","thread_id":"t1","items":[{"id":"q1","prompt":"Ship now?","kind":"yes_no"}]}}
{"v":1,"seq":3,"at":"2026-12-03T10:00:02Z","type":"confirmation_requested","confirmation":{"id":"c1","thread_id":"t1","message":"Delete the branch?"}}
"#;

    #[test]
    fn an_open_question_closes_as_asked_and_a_settled_one_is_left_alone() {
        let mut snapshot = fold_log_bytes(Path::new("t.jsonl"), LOG.as_bytes())
            .unwrap()
            .snapshot;
        let batch = find(&snapshot, "b1").unwrap();
        let confirmation = find(&snapshot, "c1").unwrap();
        assert_eq!(find(&snapshot, "nope"), None);
        assert_eq!(
            close(&snapshot, batch, Unanswered::Expired),
            Some(EventBody::ClarificationBatchClosed {
                batch_id: "b1".into(),
                reason: BatchCloseReason::Expired,
            })
        );
        let withdraw = close(&snapshot, confirmation, Unanswered::Withdrawn).unwrap();
        assert_eq!(
            withdraw,
            EventBody::ConfirmationResolved {
                confirmation_id: "c1".into(),
                outcome: ConfirmationOutcome::Withdrawn,
                comment: None,
                always: false,
            }
        );
        let event = Event {
            v: 1,
            seq: 4,
            at: "2026-12-03T10:01:00Z".into(),
            body: withdraw,
        };
        snapshot.apply(event).unwrap();
        assert_eq!(close(&snapshot, confirmation, Unanswered::Expired), None);
        assert_eq!(
            close(&snapshot, NodeRef::Batch(7), Unanswered::Expired),
            None
        );
    }
}
