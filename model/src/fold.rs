//! The fold: applying one event at a time to a snapshot.
//!
//! The fold is deterministic: the same events always give the same snapshot. It checks what an
//! event refers to (the thread a message names must have been opened, a response must answer a
//! batch that is open) and validates what agents ask, so a log that breaks the rules fails with
//! a reason instead of rendering a half-true picture. It must not do I/O; reading lines and
//! naming files and line numbers belongs to `log.rs`.

use crate::clarification::{BatchSpec, BatchStatus, ClarificationBatch, ClarificationResponse};
use crate::confirmation::{
    Confirmation, ConfirmationOutcome, ConfirmationSpec, ConfirmationStatus,
};
use crate::event::{BatchCloseReason, Event, EventBody};
use crate::ids::{BatchId, ConfirmationId, MessageId, ThreadId};
use crate::nodes::{
    Decision, DecisionSpec, MessageNode, MessageSpec, Session, ThreadNode, ThreadSpec, ThreadStatus,
};
use crate::snapshot::{NodeRef, Snapshot, TimelineEntry};
use crate::validate::{
    validate_batch, validate_confirmation, validate_response, validate_thread, ValidationError,
};
use std::fmt;

/// Why an event cannot be folded into the snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoldError {
    /// The event type that failed.
    pub event_type: &'static str,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for FoldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.event_type, self.reason)
    }
}

impl std::error::Error for FoldError {}

fn event_type(body: &EventBody) -> &'static str {
    match body {
        EventBody::SessionStarted { .. } => "session_started",
        EventBody::ThreadOpened { .. } => "thread_opened",
        EventBody::ThreadStatusChanged { .. } => "thread_status_changed",
        EventBody::MessageAppended { .. } => "message_appended",
        EventBody::MessageChunkAppended { .. } => "message_chunk_appended",
        EventBody::ClarificationBatchOpened { .. } => "clarification_batch_opened",
        EventBody::ClarificationAnswerSubmitted { .. } => "clarification_answer_submitted",
        EventBody::ClarificationBatchClosed { .. } => "clarification_batch_closed",
        EventBody::DraftSaved { .. } => "draft_saved",
        EventBody::ConfirmationRequested { .. } => "confirmation_requested",
        EventBody::ConfirmationResolved { .. } => "confirmation_resolved",
        EventBody::DecisionRecorded { .. } => "decision_recorded",
    }
}

/// A broken model rule as the fold reports it.
fn invalid(error: ValidationError) -> String {
    error.to_string()
}

impl Snapshot {
    /// Folds a whole sequence of events into a new snapshot.
    pub fn from_events(events: impl IntoIterator<Item = Event>) -> Result<Self, FoldError> {
        let mut snapshot = Self::default();
        for event in events {
            snapshot.apply(event)?;
        }
        Ok(snapshot)
    }

    /// Applies one event. On error the snapshot is left exactly as it was.
    pub fn apply(&mut self, event: Event) -> Result<(), FoldError> {
        let kind = event_type(&event.body);
        let seq = event.seq;
        if seq <= self.last_seq {
            return Err(FoldError {
                event_type: kind,
                reason: format!("seq {seq} does not follow seq {}", self.last_seq),
            });
        }
        self.apply_body(seq, &event.at, event.body)
            .map_err(|reason| FoldError {
                event_type: kind,
                reason,
            })?;
        self.last_seq = seq;
        Ok(())
    }

    /// Records that an event of a type this build does not know was skipped. Its `seq` must
    /// follow the last one all the same: a type unknown here is no way around the order.
    pub fn skip_unknown(&mut self, seq: u64) -> Result<(), FoldError> {
        if seq <= self.last_seq {
            return Err(FoldError {
                event_type: "an event of a type this build does not know",
                reason: format!("seq {seq} does not follow seq {}", self.last_seq),
            });
        }
        self.unknown_events += 1;
        self.last_seq = seq;
        Ok(())
    }

    fn thread_for(&self, id: &ThreadId, field: &str) -> Result<usize, String> {
        self.thread_index(id)
            .ok_or_else(|| format!("{field} \"{id}\" names no opened thread"))
    }

    fn touch(&mut self, thread: usize, seq: u64) {
        self.threads[thread].last_activity_seq = seq;
    }

    fn push_timeline(&mut self, node: NodeRef, thread: usize, seq: u64) {
        self.timeline.push(TimelineEntry { node, thread, seq });
        self.touch(thread, seq);
    }

    /// Applies one event's body: each kind of event has its method below, which checks the
    /// event against the snapshot and changes nothing when it refuses.
    fn apply_body(&mut self, seq: u64, at: &str, body: EventBody) -> Result<(), String> {
        match body {
            EventBody::SessionStarted { session } => self.start_session(session),
            EventBody::ThreadOpened { thread } => self.open_thread(thread, seq),
            EventBody::ThreadStatusChanged { thread_id, status } => {
                self.change_thread_status(&thread_id, status, seq)
            }
            EventBody::MessageAppended { message } => self.append_message(message, seq),
            EventBody::MessageChunkAppended { message_id, text } => {
                self.append_chunk(&message_id, &text, seq)
            }
            EventBody::ClarificationBatchOpened { batch } => self.open_batch_node(batch, at, seq),
            EventBody::ClarificationAnswerSubmitted {
                batch_id,
                answers,
                general,
            } => self.answer_batch(&batch_id, ClarificationResponse { answers, general }, seq),
            EventBody::ClarificationBatchClosed { batch_id, reason } => {
                let (index, thread) = self.open_batch(&batch_id)?;
                let status = match reason {
                    BatchCloseReason::Expired => BatchStatus::Expired,
                    BatchCloseReason::Withdrawn => BatchStatus::Withdrawn,
                };
                self.close_batch(index, thread, status, seq);
                Ok(())
            }
            EventBody::DraftSaved {
                batch_id,
                answers,
                general,
            } => self.save_draft(&batch_id, ClarificationResponse { answers, general }, seq),
            EventBody::ConfirmationRequested { confirmation } => {
                self.request_confirmation(confirmation, at, seq)
            }
            EventBody::ConfirmationResolved {
                confirmation_id,
                outcome,
                comment,
                always,
            } => self.resolve_confirmation(&confirmation_id, outcome, comment, always, seq),
            EventBody::DecisionRecorded { decision } => self.record_decision(decision, seq),
        }
    }

    fn start_session(&mut self, session: Session) -> Result<(), String> {
        if self.session.is_some() {
            return Err("the session has already started".into());
        }
        self.session = Some(session);
        Ok(())
    }

    fn open_thread(&mut self, thread: ThreadSpec, seq: u64) -> Result<(), String> {
        validate_thread(&thread).map_err(invalid)?;
        if self.index.threads.contains_key(&thread.id) {
            return Err(format!("thread.id \"{}\" is already open", thread.id));
        }
        let parent_index = match &thread.parent {
            Some(parent) => Some(self.thread_for(parent, "thread.parent")?),
            None => None,
        };
        let index = self.threads.len();
        self.index.threads.insert(thread.id.clone(), index);
        self.threads.push(ThreadNode {
            spec: thread,
            status: ThreadStatus::Active,
            messages: 0,
            open_questions: 0,
            pending_confirmations: 0,
            decisions: 0,
            last_activity_seq: seq,
            parent_index,
            revision: seq,
        });
        self.push_timeline(NodeRef::Thread(index), index, seq);
        Ok(())
    }

    fn change_thread_status(
        &mut self,
        thread_id: &ThreadId,
        status: ThreadStatus,
        seq: u64,
    ) -> Result<(), String> {
        let index = self.thread_for(thread_id, "thread_id")?;
        let thread = &mut self.threads[index];
        thread.status = status;
        thread.revision = seq;
        self.touch(index, seq);
        Ok(())
    }

    fn append_message(&mut self, message: MessageSpec, seq: u64) -> Result<(), String> {
        let thread = self.thread_for(&message.thread_id, "message.thread_id")?;
        if self.index.messages.contains_key(&message.id) {
            return Err(format!("message.id \"{}\" is already used", message.id));
        }
        let index = self.messages.len();
        self.index.messages.insert(message.id.clone(), index);
        self.messages.push(MessageNode {
            spec: message,
            revision: seq,
        });
        self.threads[thread].messages += 1;
        self.push_timeline(NodeRef::Message(index), thread, seq);
        Ok(())
    }

    fn append_chunk(&mut self, message_id: &MessageId, text: &str, seq: u64) -> Result<(), String> {
        let index = self
            .message_index(message_id)
            .ok_or_else(|| format!("message_id \"{message_id}\" names no message"))?;
        let thread = self.thread_for(&self.messages[index].spec.thread_id, "message.thread_id")?;
        let message = &mut self.messages[index];
        message.spec.text.push_str(text);
        message.revision = seq;
        self.touch(thread, seq);
        Ok(())
    }

    fn open_batch_node(&mut self, batch: BatchSpec, at: &str, seq: u64) -> Result<(), String> {
        validate_batch(&batch).map_err(invalid)?;
        let thread = self.thread_for(&batch.thread_id, "batch.thread_id")?;
        if self.index.batches.contains_key(&batch.id) {
            return Err(format!("batch.id \"{}\" is already used", batch.id));
        }
        let index = self.batches.len();
        self.index.batches.insert(batch.id.clone(), index);
        self.threads[thread].open_questions += batch.items.len();
        self.batches.push(ClarificationBatch {
            spec: batch,
            status: BatchStatus::Open,
            response: None,
            draft: None,
            opened_at: at.to_owned(),
            revision: seq,
        });
        self.push_timeline(NodeRef::Batch(index), thread, seq);
        Ok(())
    }

    fn answer_batch(
        &mut self,
        batch_id: &BatchId,
        response: ClarificationResponse,
        seq: u64,
    ) -> Result<(), String> {
        let (index, thread) = self.open_batch(batch_id)?;
        validate_response(&self.batches[index].spec, &response).map_err(invalid)?;
        self.close_batch(index, thread, BatchStatus::Answered, seq);
        self.batches[index].response = Some(response);
        Ok(())
    }

    fn save_draft(
        &mut self,
        batch_id: &BatchId,
        draft: ClarificationResponse,
        seq: u64,
    ) -> Result<(), String> {
        let index = *self
            .index
            .batches
            .get(batch_id)
            .ok_or_else(|| format!("batch_id \"{batch_id}\" names no batch"))?;
        validate_response(&self.batches[index].spec, &draft).map_err(invalid)?;
        let batch = &mut self.batches[index];
        // A draft saved after the batch closed (a debounced save racing the submit) is
        // history, not state: the submitted response stands.
        if batch.status == BatchStatus::Open {
            batch.draft = Some(draft);
            batch.revision = seq;
        }
        Ok(())
    }

    fn request_confirmation(
        &mut self,
        confirmation: ConfirmationSpec,
        at: &str,
        seq: u64,
    ) -> Result<(), String> {
        validate_confirmation(&confirmation).map_err(invalid)?;
        let thread = self.thread_for(&confirmation.thread_id, "confirmation.thread_id")?;
        if self.index.confirmations.contains_key(&confirmation.id) {
            return Err(format!(
                "confirmation.id \"{}\" is already used",
                confirmation.id
            ));
        }
        let index = self.confirmations.len();
        self.index
            .confirmations
            .insert(confirmation.id.clone(), index);
        self.threads[thread].pending_confirmations += 1;
        self.confirmations.push(Confirmation {
            spec: confirmation,
            status: ConfirmationStatus::Pending,
            outcome_comment: None,
            accepted_always: false,
            opened_at: at.to_owned(),
            revision: seq,
        });
        self.push_timeline(NodeRef::Confirmation(index), thread, seq);
        Ok(())
    }

    fn resolve_confirmation(
        &mut self,
        confirmation_id: &ConfirmationId,
        outcome: ConfirmationOutcome,
        comment: Option<String>,
        always: bool,
        seq: u64,
    ) -> Result<(), String> {
        let index = *self
            .index
            .confirmations
            .get(confirmation_id)
            .ok_or_else(|| {
                format!("confirmation_id \"{confirmation_id}\" names no confirmation")
            })?;
        if self.confirmations[index].status != ConfirmationStatus::Pending {
            return Err(format!(
                "confirmation \"{confirmation_id}\" is no longer pending"
            ));
        }
        if always
            && (outcome != ConfirmationOutcome::Accepted
                || self.confirmations[index].spec.accept_always.is_none())
        {
            return Err(format!(
                "always: confirmation \"{confirmation_id}\" can be accepted for good only \
                 with outcome accepted and when it offers accept_always"
            ));
        }
        let thread = self.thread_for(&self.confirmations[index].spec.thread_id, "thread_id")?;
        let confirmation = &mut self.confirmations[index];
        confirmation.status = outcome.into();
        confirmation.outcome_comment = comment;
        confirmation.accepted_always = always;
        confirmation.revision = seq;
        self.threads[thread].pending_confirmations -= 1;
        self.touch(thread, seq);
        Ok(())
    }

    fn record_decision(&mut self, decision: DecisionSpec, seq: u64) -> Result<(), String> {
        if decision.text.trim().is_empty() {
            return Err("decision.text: must not be empty".into());
        }
        let thread = self.thread_for(&decision.thread_id, "decision.thread_id")?;
        if let Some(batch_id) = &decision.batch_id {
            if !self.index.batches.contains_key(batch_id) {
                return Err(format!("decision.batch_id \"{batch_id}\" names no batch"));
            }
        }
        let index = self.decisions.len();
        self.decisions.push(Decision {
            spec: decision,
            revision: seq,
        });
        self.threads[thread].decisions += 1;
        self.push_timeline(NodeRef::Decision(index), thread, seq);
        Ok(())
    }

    fn open_batch(&self, id: &crate::ids::BatchId) -> Result<(usize, usize), String> {
        let index = *self
            .index
            .batches
            .get(id)
            .ok_or_else(|| format!("batch_id \"{id}\" names no batch"))?;
        let batch = &self.batches[index];
        if batch.status != BatchStatus::Open {
            return Err(format!(
                "batch \"{id}\" is no longer open (it is {})",
                batch.status.as_str()
            ));
        }
        let thread = self.thread_for(&batch.spec.thread_id, "batch.thread_id")?;
        Ok((index, thread))
    }

    fn close_batch(&mut self, index: usize, thread: usize, status: BatchStatus, seq: u64) {
        let batch = &mut self.batches[index];
        batch.status = status;
        batch.draft = None;
        batch.revision = seq;
        self.threads[thread].open_questions -= batch.spec.items.len();
        self.touch(thread, seq);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::fold_log_bytes;
    use std::path::Path;

    /// Builds a log from event bodies written as JSON objects without the envelope.
    fn fold(bodies: &[&str]) -> Result<Snapshot, String> {
        let text: String = bodies
            .iter()
            .enumerate()
            .map(|(index, body)| {
                let body = body.replace('\n', " ");
                let body = body.trim().trim_start_matches('{');
                format!(
                    "{{\"v\":1,\"seq\":{},\"at\":\"2026-11-30T10:00:00Z\",{body}\n",
                    index + 1
                )
            })
            .collect();
        fold_log_bytes(Path::new("t.jsonl"), text.as_bytes())
            .map(|loaded| loaded.snapshot)
            .map_err(|error| error.to_string())
    }

    const SESSION: &str = r#"{"type":"session_started","session":{"id":"s1","title":"Design"}}"#;
    const TOPIC: &str = r#"{"type":"thread_opened","thread":{"id":"t1","parent":null,"title":"ADR","kind":"topic"}}"#;
    const BRANCH: &str = r#"{"type":"thread_opened","thread":{"id":"t2","parent":"t1","title":"New ADR","kind":"branch"}}"#;
    const BATCH: &str = r#"{"type":"clarification_batch_opened","batch":{"id":"b1","thread_id":"t2","items":[
        {"id":"q1","prompt":"Format?","kind":"choice","options":[{"id":"jsonl","label":"JSONL"},{"id":"sqlite","label":"SQLite"}],"recommended":"jsonl"},
        {"id":"q2","prompt":"Ship now?","kind":"yes_no"}],"general_field":true}}"#;

    #[test]
    fn folding_counts_open_questions_per_thread_and_in_total() {
        let snapshot = fold(&[SESSION, TOPIC, BRANCH, BATCH]).unwrap();
        assert_eq!(snapshot.thread(&"t2".into()).unwrap().open_questions, 2);
        assert_eq!(snapshot.thread(&"t1".into()).unwrap().open_questions, 0);
        assert_eq!(snapshot.open_questions(), 2);
        assert_eq!(snapshot.batches[0].status, BatchStatus::Open);
    }

    #[test]
    fn an_answer_closes_the_batch_and_a_draft_before_it_is_kept_until_then() {
        let draft = r#"{"type":"draft_saved","batch_id":"b1","answers":[{"item_id":"q1","selected":["jsonl"]}]}"#;
        let snapshot = fold(&[SESSION, TOPIC, BRANCH, BATCH, draft]).unwrap();
        assert_eq!(snapshot.batches[0].draft.as_ref().unwrap().answers.len(), 1);
        let answer = r#"{"type":"clarification_answer_submitted","batch_id":"b1","answers":[{"item_id":"q1","selected":["jsonl"]},{"item_id":"q2","selected":["yes"]}],"general":"thanks"}"#;
        let snapshot = fold(&[SESSION, TOPIC, BRANCH, BATCH, draft, answer]).unwrap();
        let batch = &snapshot.batches[0];
        assert_eq!(batch.status, BatchStatus::Answered);
        assert!(batch.draft.is_none());
        assert_eq!(
            batch.response.as_ref().unwrap().general.as_deref(),
            Some("thanks")
        );
        assert_eq!(snapshot.open_questions(), 0);
        assert_eq!(batch.revision, 6);
    }

    #[test]
    fn a_batch_cannot_be_answered_twice() {
        let answer = r#"{"type":"clarification_answer_submitted","batch_id":"b1","answers":[]}"#;
        let error = fold(&[SESSION, TOPIC, BRANCH, BATCH, answer, answer]).unwrap_err();
        assert_eq!(error, "t.jsonl:6: clarification_answer_submitted: batch \"b1\" is no longer open (it is answered)");
    }

    #[test]
    fn only_an_accepted_confirmation_that_offers_always_is_accepted_for_good() {
        let offering = r#"{"type":"confirmation_requested","confirmation":{"id":"c1","thread_id":"t1","message":"Edit a.txt?","accept_always":"Allow edits"}}"#;
        let plain = r#"{"type":"confirmation_requested","confirmation":{"id":"c1","thread_id":"t1","message":"Edit a.txt?"}}"#;
        let for_good = r#"{"type":"confirmation_resolved","confirmation_id":"c1","outcome":"accepted","always":true}"#;
        let declined = r#"{"type":"confirmation_resolved","confirmation_id":"c1","outcome":"declined","always":true}"#;
        let snapshot = fold(&[SESSION, TOPIC, offering, for_good]).unwrap();
        assert_eq!(
            snapshot.confirmations[0].status,
            ConfirmationStatus::Accepted
        );
        assert!(snapshot.confirmations[0].accepted_always);
        let rule = "always: confirmation \"c1\" can be accepted for good only with outcome \
                    accepted and when it offers accept_always";
        assert_eq!(
            fold(&[SESSION, TOPIC, plain, for_good]).unwrap_err(),
            format!("t.jsonl:4: confirmation_resolved: {rule}")
        );
        assert_eq!(
            fold(&[SESSION, TOPIC, offering, declined]).unwrap_err(),
            format!("t.jsonl:4: confirmation_resolved: {rule}")
        );
    }

    #[test]
    fn a_message_in_an_unknown_thread_is_an_error_naming_the_line() {
        let message = r#"{"type":"message_appended","message":{"id":"m1","thread_id":"t9","role":"agent","text":"x"}}"#;
        let error = fold(&[SESSION, TOPIC, message]).unwrap_err();
        assert_eq!(
            error,
            "t.jsonl:3: message_appended: message.thread_id \"t9\" names no opened thread"
        );
    }

    #[test]
    fn a_batch_breaking_a_limit_is_refused_with_its_field() {
        let options: Vec<String> = (0..10)
            .map(|n| format!(r#"{{"id":"o{n}","label":"O{n}"}}"#))
            .collect();
        let batch = format!(
            r#"{{"type":"clarification_batch_opened","batch":{{"id":"b","thread_id":"t1","items":[{{"id":"q","prompt":"?","kind":"choice","options":[{}]}}]}}}}"#,
            options.join(",")
        );
        let error = fold(&[SESSION, TOPIC, &batch]).unwrap_err();
        assert!(
            error.contains("batch.items[0].options: must hold at most 9 options (has 10)"),
            "{error}"
        );
    }

    #[test]
    fn chunks_extend_a_streamed_message_and_bump_its_revision() {
        let message = r#"{"type":"message_appended","message":{"id":"m1","thread_id":"t1","role":"agent","text":"Hel"}}"#;
        let chunk = r#"{"type":"message_chunk_appended","message_id":"m1","text":"lo"}"#;
        let snapshot = fold(&[SESSION, TOPIC, message, chunk]).unwrap();
        assert_eq!(snapshot.messages[0].spec.text, "Hello");
        assert_eq!(snapshot.messages[0].revision, 4);
        assert_eq!(snapshot.timeline.len(), 2, "a chunk adds no timeline entry");
    }

    #[test]
    fn confirmations_resolve_once_and_count_as_activity_in_their_thread() {
        let request = r#"{"type":"confirmation_requested","confirmation":{"id":"c1","thread_id":"t2","message":"Drop table?"}}"#;
        let resolve = r#"{"type":"confirmation_resolved","confirmation_id":"c1","outcome":"declined","comment":"not today"}"#;
        let snapshot = fold(&[SESSION, TOPIC, BRANCH, request]).unwrap();
        assert_eq!(snapshot.pending_confirmations(), 1);
        assert_eq!(snapshot.thread(&"t2".into()).unwrap().last_activity_seq, 4);
        assert_eq!(snapshot.thread(&"t1".into()).unwrap().last_activity_seq, 2);
        let snapshot = fold(&[SESSION, TOPIC, BRANCH, request, resolve]).unwrap();
        assert_eq!(
            snapshot.confirmations[0].status,
            ConfirmationStatus::Declined
        );
        assert_eq!(
            snapshot.confirmations[0].outcome_comment.as_deref(),
            Some("not today")
        );
        assert_eq!(snapshot.pending_confirmations(), 0);
        assert!(fold(&[SESSION, TOPIC, BRANCH, request, resolve, resolve]).is_err());
    }

    #[test]
    fn the_fold_is_deterministic() {
        let events = [SESSION, TOPIC, BRANCH, BATCH];
        let first = serde_json::to_string(&fold(&events).unwrap()).unwrap();
        let second = serde_json::to_string(&fold(&events).unwrap()).unwrap();
        assert_eq!(first, second);
    }
}
