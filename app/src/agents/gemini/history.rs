//! Gemini CLI's message list replayed from a session's lines: which messages the session
//! holds now, in order, and which it dropped on the way, each run of them kept where it left
//! the list.
//!
//! The lines change the list in four ways. A message line appends a message, or replaces
//! the one with its `id` where it stands (a turn whose tool calls and results came in). A
//! `$rewindTo` line (`/rewind` in the terminal) removes the message it names and all after
//! it. A `$set` line with `messages` sets the list whole: the context at the start, the list
//! after a rewind, and the agent's history after an interrupted turn was rolled back (which
//! leaves out the turn) or re-recorded under new ids (after a question was dismissed). So a
//! set list is matched against the list so far, message by message in order, by what each
//! says (see `Signature`), not by id: a message matched keeps its first record (with its
//! time and its tool calls' results), and what the set list leaves out is dropped. Nothing
//! is lost: a dropped run becomes a `Dropped` run, anchored after the message it followed.
//!
//! This module only replays the list; `gemini/mod.rs` turns it into events.

use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// A run of messages the session dropped (rewound or rolled back), in their order.
pub(super) struct Dropped {
    /// The id of the kept message the run followed; `None` when it was at the start.
    pub(super) after: Option<String>,
    /// The messages' records.
    pub(super) records: Vec<Value>,
}

/// The session's messages as it holds them now, and the runs it dropped.
#[derive(Default)]
pub(super) struct History {
    /// The messages the session holds now, in order (each its latest record).
    pub(super) kept: Vec<Value>,
    /// The runs dropped, in the order they were dropped.
    pub(super) dropped: Vec<Dropped>,
    /// An id the session re-recorded a message under → the id of the message it copies.
    aliases: HashMap<String, String>,
}

impl History {
    /// Replays a session's lines (the metadata lines are passed over).
    pub(super) fn replay<'a>(lines: impl IntoIterator<Item = &'a Value>) -> History {
        let mut history = History::default();
        for line in lines {
            if let Some(target) = line.get("$rewindTo").and_then(Value::as_str) {
                history.rewind(target);
            } else if let Some(list) = line.pointer("/$set/messages").and_then(Value::as_array) {
                history.set(list);
            } else if line.get("projectHash").is_none() && id_of(line).is_some() {
                history.record(line);
            }
        }
        history
    }

    fn id<'a>(&'a self, id: &'a str) -> &'a str {
        self.aliases.get(id).map_or(id, String::as_str)
    }

    fn position(&self, id: &str) -> Option<usize> {
        let id = self.id(id);
        self.kept
            .iter()
            .position(|record| id_of(record) == Some(id))
    }

    /// A message line: it replaces the message with its id, or is appended.
    fn record(&mut self, line: &Value) {
        let id = id_of(line).unwrap_or_default();
        match self.position(id) {
            Some(index) => {
                let mut record = line.clone();
                // A re-recorded message keeps the id it is known by.
                if let Some(known) = id_of(&self.kept[index]).map(str::to_owned) {
                    record["id"] = Value::String(known);
                }
                self.kept[index] = record;
            }
            None => self.kept.push(line.clone()),
        }
    }

    /// `$rewindTo`: the named message and all after it are dropped (all of them when it is
    /// not in the list, as Gemini CLI does).
    fn rewind(&mut self, target: &str) {
        let from = self.position(target).unwrap_or(0);
        let records = self.kept.split_off(from);
        self.drop_run(records);
    }

    /// A list set whole, matched against the list so far (see the module's comment).
    fn set(&mut self, list: &[Value]) {
        if self.kept.is_empty() {
            self.kept = list.to_vec();
            return;
        }
        let set_ids: HashSet<&str> = list.iter().filter_map(id_of).collect();
        let old = std::mem::take(&mut self.kept);
        let mut next = 0;
        let mut run = Vec::new();
        for record in list {
            let signature = Signature::of(record);
            let found = (next..old.len()).find(|&index| Signature::of(&old[index]) == signature);
            let Some(index) = found else {
                let known = id_of(record).is_some_and(|id| self.position(id).is_some());
                if !known {
                    self.kept.push(record.clone());
                }
                continue;
            };
            for skipped in &old[next..index] {
                if id_of(skipped).is_some_and(|id| !set_ids.contains(id)) {
                    run.push(skipped.clone());
                }
            }
            if !run.is_empty() {
                self.drop_run(std::mem::take(&mut run));
            }
            let kept = old[index].clone();
            if let (Some(set_id), Some(kept_id)) = (id_of(record), id_of(&kept)) {
                if set_id != kept_id {
                    self.aliases.insert(set_id.to_owned(), kept_id.to_owned());
                }
            }
            self.kept.push(kept);
            next = index + 1;
        }
        let rest: Vec<Value> = old[next..]
            .iter()
            .filter(|record| id_of(record).is_some_and(|id| !set_ids.contains(id)))
            .cloned()
            .collect();
        self.drop_run(rest);
    }

    /// Keeps `records` as a run dropped after the last message kept; the runs that followed
    /// one of them now follow that message too, so they stay reachable.
    fn drop_run(&mut self, records: Vec<Value>) {
        if records.is_empty() {
            return;
        }
        let after = self.kept.last().and_then(id_of).map(str::to_owned);
        let gone: HashSet<&str> = records.iter().filter_map(id_of).collect();
        for earlier in &mut self.dropped {
            if earlier.after.as_deref().is_some_and(|id| gone.contains(id)) {
                earlier.after.clone_from(&after);
            }
        }
        self.dropped.push(Dropped { after, records });
    }
}

/// A record's `id`.
pub(super) fn id_of(record: &Value) -> Option<&str> {
    record.get("id").and_then(Value::as_str)
}

/// What a message says, to tell one message in a set list from another: its type, its text,
/// the tools it calls and the tools whose results it carries (each name once). Ids are no help, as Gemini CLI
/// re-records messages under new ids, and the tool calls are written in two shapes (a
/// `toolCalls` list, or `functionCall` parts of the content).
#[derive(PartialEq)]
struct Signature<'a> {
    kind: Option<&'a str>,
    text: String,
    calls: Vec<&'a str>,
    responses: Vec<&'a str>,
}

impl<'a> Signature<'a> {
    fn of(record: &'a Value) -> Signature<'a> {
        let parts = record.get("content").and_then(Value::as_array);
        let names = |key: &str| -> Vec<&'a str> {
            parts
                .into_iter()
                .flatten()
                .filter_map(|part| part.get(key)?.get("name")?.as_str())
                .collect()
        };
        let mut calls = names("functionCall");
        calls.extend(
            record
                .get("toolCalls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|call| call.get("name")?.as_str()),
        );
        let mut responses = names("functionResponse");
        // A list re-recorded after a rewind can carry a call's response twice.
        for names in [&mut calls, &mut responses] {
            names.sort_unstable();
            names.dedup();
        }
        Signature {
            kind: record.get("type").and_then(Value::as_str),
            text: super::content_text(record.get("content")).trim().to_owned(),
            calls,
            responses,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::History;
    use serde_json::{json, Value};

    fn text(id: &str, kind: &str, text: &str) -> Value {
        json!({"id": id, "type": kind, "content": [{"text": text}]})
    }

    fn ids(records: &[Value]) -> Vec<&str> {
        records.iter().filter_map(super::id_of).collect()
    }

    #[test]
    fn a_rewind_drops_the_named_message_and_all_after_it() {
        let lines = [
            text("a", "user", "one"),
            text("b", "gemini", "reply"),
            text("c", "user", "two"),
            text("d", "gemini", "reply two"),
            json!({"$rewindTo": "c"}),
            text("e", "user", "three"),
        ];
        let history = History::replay(&lines);
        assert_eq!(ids(&history.kept), ["a", "b", "e"]);
        assert_eq!(history.dropped.len(), 1);
        assert_eq!(history.dropped[0].after.as_deref(), Some("b"));
        assert_eq!(ids(&history.dropped[0].records), ["c", "d"]);
    }

    #[test]
    fn a_list_re_recorded_under_new_ids_keeps_the_first_records_and_drops_what_it_leaves_out() {
        let lines = [
            text("a", "user", "one"),
            text("b", "gemini", "reply"),
            text("c", "user", "cancelled"),
            text("x", "user", "one"),
            text("y", "gemini", "reply"),
            json!({"$set": {"messages": [text("x", "user", "one"), text("y", "gemini", "reply")]}}),
            json!({"id": "y", "type": "gemini", "content": [{"text": "reply, again"}]}),
        ];
        let history = History::replay(&lines);
        assert_eq!(ids(&history.kept), ["a", "b"]);
        assert_eq!(
            super::super::content_text(history.kept[1].get("content")),
            "reply, again"
        );
        assert_eq!(history.dropped.len(), 1);
        assert_eq!(ids(&history.dropped[0].records), ["c"]);
    }

    #[test]
    fn a_run_dropped_after_a_message_later_dropped_itself_follows_the_later_anchor() {
        let lines = [
            text("a", "user", "one"),
            text("b", "user", "two"),
            text("c", "user", "three"),
            json!({"$rewindTo": "c"}),
            json!({"$rewindTo": "b"}),
        ];
        let history = History::replay(&lines);
        assert_eq!(ids(&history.kept), ["a"]);
        let anchors: Vec<Option<&str>> = history
            .dropped
            .iter()
            .map(|run| run.after.as_deref())
            .collect();
        assert_eq!(anchors, [Some("a"), Some("a")]);
    }
}
