//! Helpers for the compositor's unit tests: snapshots built from event bodies.

use chatsurface_model::{Event, EventBody, Snapshot};

/// Folds event bodies (JSON objects with a `type`, without the envelope) into a snapshot.
pub(crate) fn snapshot_from(bodies: &[String]) -> Snapshot {
    Snapshot::from_events(bodies.iter().enumerate().map(|(index, body)| {
        Event {
            v: 1,
            seq: index as u64 + 1,
            at: "2026-12-01T00:00:00Z".into(),
            body: serde_json::from_str::<EventBody>(body)
                .unwrap_or_else(|error| panic!("{body}: {error}")),
        }
    }))
    .expect("test events fold")
}

/// `thread_opened`.
pub(crate) fn thread(id: &str, parent: Option<&str>) -> String {
    let parent = parent.map_or("null".to_owned(), |parent| format!("\"{parent}\""));
    format!(
        r#"{{"type":"thread_opened","thread":{{"id":"{id}","parent":{parent},"title":"Thread {id}","kind":"branch"}}}}"#
    )
}

/// `message_appended` by the agent.
pub(crate) fn message(id: &str, thread: &str, text: &str) -> String {
    let text = serde_json::to_string(text).expect("strings serialise");
    format!(
        r#"{{"type":"message_appended","message":{{"id":"{id}","thread_id":"{thread}","role":"agent","text":{text}}}}}"#
    )
}

/// A one-item choice batch.
pub(crate) fn batch(id: &str, thread: &str) -> String {
    format!(
        r#"{{"type":"clarification_batch_opened","batch":{{"id":"{id}","thread_id":"{thread}","title":"Pick","items":[{{"id":"q","prompt":"Which?","kind":"choice","options":[{{"id":"a","label":"A"}},{{"id":"b","label":"B"}}]}}]}}}}"#
    )
}

/// An answer choosing option `a` of [`batch`].
pub(crate) fn answer(id: &str) -> String {
    format!(
        r#"{{"type":"clarification_answer_submitted","batch_id":"{id}","answers":[{{"item_id":"q","selected":["a"]}}]}}"#
    )
}

/// `thread_status_changed` to resolved.
pub(crate) fn resolve(thread: &str) -> String {
    format!(r#"{{"type":"thread_status_changed","thread_id":"{thread}","status":"resolved"}}"#)
}

/// `decision_recorded` in `thread`.
pub(crate) fn decision(id: &str, thread: &str, text: &str) -> String {
    format!(
        r#"{{"type":"decision_recorded","decision":{{"id":"{id}","thread_id":"{thread}","text":"{text}"}}}}"#
    )
}

/// A small deterministic generator, so the breadth session is the same on every run.
pub(crate) struct Dice(u64);

impl Dice {
    pub(crate) fn below(&mut self, bound: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % bound as u64) as usize
    }
}

/// `topics` topics, `branches` branches nested up to four deep below them, `open` open
/// questions in threads chosen at random, and 60 % of the other branches resolved.
pub(crate) fn breadth_session(topics: usize, branches: usize, open: usize) -> Snapshot {
    let mut dice = Dice(0x5eed);
    let mut events = Vec::new();
    let mut depth_of = Vec::new();
    for topic in 0..topics {
        events.push(thread(&format!("t{topic}"), None));
        depth_of.push(0);
    }
    for index in topics..topics + branches {
        let parent = loop {
            let candidate = dice.below(index);
            if depth_of[candidate] < 4 {
                break candidate;
            }
        };
        depth_of.push(depth_of[parent] + 1);
        events.push(thread(&format!("t{index}"), Some(&format!("t{parent}"))));
        events.push(message(&format!("m{index}"), &format!("t{index}"), "work"));
    }
    let mut asking = std::collections::BTreeSet::new();
    for question in 0..open {
        let at = dice.below(topics + branches);
        asking.insert(at);
        events.push(batch(&format!("b{question}"), &format!("t{at}")));
    }
    for index in topics..topics + branches {
        if !asking.contains(&index) && dice.below(10) < 6 {
            events.push(resolve(&format!("t{index}")));
        }
    }
    snapshot_from(&events)
}
