//! What an agent mirrors into a session (messages, chunks of a streamed message, threads,
//! decisions), turned from request bodies into events.
//!
//! The single-event endpoints (`POST …/messages`, `…/messages/{mid}/chunks`, `…/threads`,
//! `…/decisions`) and the many-event one (`POST …/events`) take the same bodies and share
//! this module, so a message means the same whichever way it comes. An event that names no
//! thread lands in the session's main thread, opened on first use; a message or decision
//! without an id is named `m-<n>` / `d-<n>` after the sequence number its event will take.
//!
//! Building is pure: [`MirrorBuild`] reads the snapshot the events will follow and what the
//! same request built before, and returns event bodies and ids. The store folds and writes
//! them (a rule the fold refuses refuses the whole request); this module knows nothing of
//! HTTP beyond the [`ApiError`] a bad body gets, nor of files.

use crate::api::error::{ApiError, ErrorCode};
use chatsurface_model::{limits, EventBody, Snapshot, ThreadKind, ThreadSpec};
use serde_json::{Map, Value};

/// The thread an agent's event lands in when it names none: a topic titled after the session.
pub const MAIN_THREAD: &str = "main";

/// Most events one `POST …/events` may carry.
pub const MAX_EVENTS_PER_REQUEST: usize = 1_000;

/// One thing an agent mirrors, as its endpoint's body says it.
#[derive(Debug)]
pub enum Mirrored {
    /// A whole message: `{"role","text","id"?,"thread_id"?}`.
    Message(Map<String, Value>),
    /// More text for a message being streamed.
    Chunk {
        /// The message it extends.
        message_id: String,
        /// The text to add.
        text: String,
    },
    /// A thread: `{"id","title","parent"?,"kind"?}`; a thread with no parent is a topic,
    /// one with a parent a branch, unless `kind` says otherwise.
    Thread(Map<String, Value>),
    /// A decision: `{"text","batch_id"?,"id"?,"thread_id"?}`.
    Decision(Map<String, Value>),
}

impl Mirrored {
    /// A chunk from the body of `POST …/messages/{mid}/chunks`.
    pub fn chunk(message_id: &str, mut body: Map<String, Value>) -> Result<Mirrored, ApiError> {
        match body.remove("text") {
            Some(Value::String(text)) => Ok(Mirrored::Chunk {
                message_id: message_id.to_owned(),
                text,
            }),
            _ => Err(
                ApiError::new(ErrorCode::Invalid, "text: required, a string").with_field("text"),
            ),
        }
    }

    /// One entry of `POST …/events`: the body of a single-event endpoint with a `type` of
    /// `message`, `chunk` (with `message_id`), `thread` or `decision`.
    pub fn tagged(mut entry: Map<String, Value>) -> Result<Mirrored, ApiError> {
        let kind = match entry.remove("type") {
            Some(Value::String(kind)) => kind,
            _ => {
                return Err(ApiError::new(
                    ErrorCode::Invalid,
                    "type: required, one of message, chunk, thread, decision",
                )
                .with_field("type"))
            }
        };
        match kind.as_str() {
            "message" => Ok(Mirrored::Message(entry)),
            "thread" => Ok(Mirrored::Thread(entry)),
            "decision" => Ok(Mirrored::Decision(entry)),
            "chunk" => match entry.remove("message_id") {
                Some(Value::String(message_id)) => Mirrored::chunk(&message_id, entry),
                _ => Err(
                    ApiError::new(ErrorCode::Invalid, "message_id: required, a string")
                        .with_field("message_id"),
                ),
            },
            other => Err(ApiError::new(
                ErrorCode::Invalid,
                format!("type: \"{other}\" is not one of message, chunk, thread, decision"),
            )
            .with_field("type")),
        }
    }

    /// The entries of a `POST …/events` body, `{"events":[…]}`; an error names the entry.
    pub fn list(mut body: Map<String, Value>) -> Result<Vec<Mirrored>, ApiError> {
        let Some(Value::Array(entries)) = body.remove("events") else {
            return Err(
                ApiError::new(ErrorCode::Invalid, "events: required, an array of events")
                    .with_field("events"),
            );
        };
        if entries.is_empty() || entries.len() > MAX_EVENTS_PER_REQUEST {
            return Err(ApiError::new(
                ErrorCode::Invalid,
                format!(
                    "events: {} given, send 1 to {MAX_EVENTS_PER_REQUEST}",
                    entries.len()
                ),
            )
            .with_field("events"));
        }
        entries
            .into_iter()
            .enumerate()
            .map(|(index, entry)| {
                match entry {
                    Value::Object(entry) => Mirrored::tagged(entry),
                    _ => Err(ApiError::new(ErrorCode::Invalid, "must be a JSON object")),
                }
                .map_err(|error| in_entry(index, error))
            })
            .collect()
    }
}

/// An entry's error, its field and message prefixed with `events[index]`.
pub fn in_entry(index: usize, error: ApiError) -> ApiError {
    let field = match &error.field {
        Some(field) => format!("events[{index}].{field}"),
        None => format!("events[{index}]"),
    };
    ApiError {
        message: format!("events[{index}]: {}", error.message),
        field: Some(field),
        ..error
    }
}

/// The events of one request, built in order on the snapshot they will follow.
#[derive(Debug)]
pub struct MirrorBuild<'a> {
    snapshot: &'a Snapshot,
    session_id: &'a str,
    events: Vec<EventBody>,
}

impl<'a> MirrorBuild<'a> {
    /// Starts building on `snapshot`, the session `session_id`'s state before these events.
    pub fn new(snapshot: &'a Snapshot, session_id: &'a str) -> MirrorBuild<'a> {
        MirrorBuild {
            snapshot,
            session_id,
            events: Vec::new(),
        }
    }

    /// Adds one mirrored thing's events; returns the id of what it made or extended.
    pub fn add(&mut self, mirrored: Mirrored) -> Result<String, ApiError> {
        match mirrored {
            Mirrored::Message(map) => self.add_node(map, "m", |map| {
                Ok(EventBody::MessageAppended {
                    message: typed(map)?,
                })
            }),
            Mirrored::Decision(map) => self.add_node(map, "d", |map| {
                Ok(EventBody::DecisionRecorded {
                    decision: typed(map)?,
                })
            }),
            Mirrored::Chunk { message_id, text } => {
                self.events.push(EventBody::MessageChunkAppended {
                    message_id: message_id.as_str().into(),
                    text,
                });
                Ok(message_id)
            }
            Mirrored::Thread(mut map) => {
                let parent = map.entry("parent").or_insert(Value::Null).clone();
                let kind = if parent.is_null() { "topic" } else { "branch" };
                map.entry("kind")
                    .or_insert_with(|| Value::String(kind.to_owned()));
                let thread: ThreadSpec = typed(map)?;
                let opened_here = self
                    .events
                    .iter()
                    .filter(|event| matches!(event, EventBody::ThreadOpened { .. }))
                    .count();
                if self.snapshot.threads.len() + opened_here >= limits::MAX_THREADS {
                    return Err(ApiError::new(
                        ErrorCode::Invalid,
                        format!(
                            "id: a session holds at most {} threads; start another session",
                            limits::MAX_THREADS
                        ),
                    )
                    .with_field("id"));
                }
                if let Some(parent) = &thread.parent {
                    if self.depth_of(parent.as_str()) + 1 > limits::MAX_THREAD_DEPTH {
                        return Err(ApiError::new(
                            ErrorCode::Invalid,
                            format!(
                                "parent: threads nest at most {} levels below a topic",
                                limits::MAX_THREAD_DEPTH
                            ),
                        )
                        .with_field("parent"));
                    }
                }
                let id = thread.id.to_string();
                self.events.push(EventBody::ThreadOpened { thread });
                Ok(id)
            }
        }
    }

    /// Adds the entries of a `POST …/events`, in order; an error names the entry.
    pub fn add_entries(&mut self, entries: Vec<Mirrored>) -> Result<Vec<String>, ApiError> {
        entries
            .into_iter()
            .enumerate()
            .map(|(index, mirrored)| self.add(mirrored).map_err(|error| in_entry(index, error)))
            .collect()
    }

    /// The events built, in order.
    pub fn finish(self) -> Vec<EventBody> {
        self.events
    }

    /// Adds an event that lands in thread `thread_id`, opening the main thread first when
    /// that is where it lands and it is not open yet.
    pub fn add_in_thread(&mut self, thread_id: &str, event: EventBody) {
        if thread_id == MAIN_THREAD && !self.main_thread_is_open() {
            self.events.push(EventBody::ThreadOpened {
                thread: ThreadSpec {
                    id: MAIN_THREAD.into(),
                    parent: None,
                    // A session id may be longer than a title may: 128 chars to 60.
                    title: self
                        .session_id
                        .chars()
                        .take(chatsurface_model::limits::TITLE_CHARS)
                        .collect(),
                    kind: ThreadKind::Topic,
                },
            });
        }
        self.events.push(event);
    }

    /// Adds a message or decision, named after the sequence number its event will take when
    /// the agent gave no id.
    fn add_node(
        &mut self,
        mut map: Map<String, Value>,
        prefix: &str,
        event: fn(Map<String, Value>) -> Result<EventBody, ApiError>,
    ) -> Result<String, ApiError> {
        let thread = thread_of(&mut map);
        // A new session's log starts with `session_started`, written ahead of these events.
        let starting = usize::from(self.snapshot.session.is_none());
        let opening = usize::from(thread == MAIN_THREAD && !self.main_thread_is_open());
        let ahead = starting + self.events.len() + opening;
        let seq = self.snapshot.last_seq + 1 + ahead as u64;
        let id = map
            .entry("id")
            .or_insert_with(|| Value::String(format!("{prefix}-{seq}")))
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let event = event(map)?;
        if id.trim().is_empty() {
            return Err(ApiError::new(ErrorCode::Invalid, "id: must not be empty").with_field("id"));
        }
        // The fold keeps message ids unique; decision ids are checked here, where they are
        // asked for, so that logs written before the rule still open.
        if let EventBody::DecisionRecorded { decision } = &event {
            let taken = self.snapshot.decisions.iter().any(|known| known.spec.id == decision.id)
                || self.events.iter().any(|built| {
                    matches!(built, EventBody::DecisionRecorded { decision: other } if other.id == decision.id)
                });
            if taken {
                return Err(ApiError::new(
                    ErrorCode::Invalid,
                    format!("id: decision \"{id}\" is already used"),
                )
                .with_field("id"));
            }
        }
        self.add_in_thread(&thread, event);
        Ok(id)
    }

    /// How many levels below its topic the thread `id` is, from the snapshot and the threads
    /// this request opened before; counting stops past the limit, so a deep chain costs
    /// little.
    fn depth_of(&self, id: &str) -> usize {
        let mut depth = 0;
        let mut current = id.to_owned();
        while depth <= limits::MAX_THREAD_DEPTH {
            let opened_here = self.events.iter().find_map(|event| match event {
                EventBody::ThreadOpened { thread } if thread.id.as_str() == current => {
                    Some(thread.parent.clone())
                }
                _ => None,
            });
            let parent = match opened_here {
                Some(parent) => parent,
                None => self
                    .snapshot
                    .thread_index(&current.as_str().into())
                    .and_then(|index| self.snapshot.parent_of(index))
                    .map(|index| self.snapshot.threads[index].spec.id.clone()),
            };
            match parent {
                Some(parent) => {
                    depth += 1;
                    current = parent.to_string();
                }
                None => break,
            }
        }
        depth
    }

    fn main_thread_is_open(&self) -> bool {
        self.snapshot.thread(&MAIN_THREAD.into()).is_some()
            || self.events.iter().any(|event| {
                matches!(event, EventBody::ThreadOpened { thread } if thread.id.as_str() == MAIN_THREAD)
            })
    }
}

/// Takes `thread_id` from a body, setting it to the main thread when it names none.
pub fn thread_of(map: &mut Map<String, Value>) -> String {
    let thread = map
        .entry("thread_id")
        .or_insert_with(|| Value::String(MAIN_THREAD.to_owned()));
    thread.as_str().unwrap_or(MAIN_THREAD).to_owned()
}

/// A body as the model type it must be, or a 400 naming what is wrong.
pub fn typed<T: serde::de::DeserializeOwned>(map: Map<String, Value>) -> Result<T, ApiError> {
    serde_json::from_value(Value::Object(map))
        .map_err(|error| ApiError::new(ErrorCode::Invalid, error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    fn build(
        snapshot: &Snapshot,
        entries: Value,
    ) -> Result<(Vec<String>, Vec<EventBody>), ApiError> {
        let mut build = MirrorBuild::new(snapshot, "s");
        let ids = build.add_entries(Mirrored::list(object(json!({ "events": entries })))?)?;
        Ok((ids, build.finish()))
    }

    #[test]
    fn the_main_thread_is_opened_once_and_nodes_are_named_after_their_seq() {
        let snapshot = Snapshot::default();
        let (ids, events) = build(
            &snapshot,
            json!([
                {"type": "message", "role": "agent", "text": "one"},
                {"type": "chunk", "message_id": "m-3", "text": " more"},
                {"type": "decision", "text": "go"},
                {"type": "message", "role": "agent", "text": "two", "id": "mine"},
            ]),
        )
        .unwrap();
        // A new session: session_started (1) and the main thread (2) come first.
        assert_eq!(ids, ["m-3", "m-3", "d-5", "mine"]);
        let opened = events
            .iter()
            .filter(|event| matches!(event, EventBody::ThreadOpened { .. }))
            .count();
        assert_eq!((events.len(), opened), (5, 1));
    }

    #[test]
    fn threads_default_to_topic_or_branch_by_parent() {
        let snapshot = Snapshot::default();
        let (_, events) = build(
            &snapshot,
            json!([
                {"type": "thread", "id": "t", "title": "T"},
                {"type": "thread", "id": "b", "title": "B", "parent": "t"},
            ]),
        )
        .unwrap();
        let kinds: Vec<ThreadKind> = events
            .iter()
            .map(|event| match event {
                EventBody::ThreadOpened { thread } => thread.kind,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(kinds, [ThreadKind::Topic, ThreadKind::Branch]);
    }

    #[test]
    fn a_bad_entry_is_named_by_its_index_and_field() {
        let snapshot = Snapshot::default();
        let error = build(
            &snapshot,
            json!([
                {"type": "message", "role": "agent", "text": "fine"},
                {"type": "chunk", "text": "no message"},
            ]),
        )
        .unwrap_err();
        assert_eq!(error.field.as_deref(), Some("events[1].message_id"));
        assert!(
            error.message.starts_with("events[1]: message_id"),
            "{}",
            error.message
        );
        let error = build(&snapshot, json!([{"type": "thread", "title": "no id"}])).unwrap_err();
        assert!(
            error.message.starts_with("events[0]: missing field `id`"),
            "{}",
            error.message
        );
        let error = build(&snapshot, json!([{"type": "poll"}])).unwrap_err();
        assert!(
            error.message.contains("\"poll\" is not one of"),
            "{}",
            error.message
        );
        let error = build(&snapshot, json!([])).unwrap_err();
        assert_eq!(error.field.as_deref(), Some("events"));
        let error = build(&snapshot, json!([1])).unwrap_err();
        assert_eq!(error.field.as_deref(), Some("events[0]"));
    }

    #[test]
    fn empty_ids_and_a_decision_id_used_twice_are_refused() {
        let snapshot = Snapshot::default();
        let error = build(
            &snapshot,
            json!([{"type": "message", "id": " ", "role": "agent", "text": "x"}]),
        )
        .unwrap_err();
        assert_eq!(error.field.as_deref(), Some("events[0].id"), "{error:?}");
        let error = build(
            &snapshot,
            json!([
                {"type": "decision", "id": "d", "text": "Yes."},
                {"type": "decision", "id": "d", "text": "No."}
            ]),
        )
        .unwrap_err();
        assert_eq!(error.field.as_deref(), Some("events[1].id"), "{error:?}");
        assert!(error.message.contains("already used"), "{}", error.message);
    }

    #[test]
    fn a_session_holds_at_most_ten_thousand_threads() {
        let topics = |range: std::ops::Range<usize>| -> Value {
            range
                .map(|n| json!({"type": "thread", "id": format!("t{n}"), "title": "T"}))
                .collect()
        };
        let mut snapshot = Snapshot::default();
        // A request carries at most 1,000 entries.
        for start in (0..limits::MAX_THREADS - 1).step_by(1000) {
            let end = (start + 1000).min(limits::MAX_THREADS - 1);
            let (_, events) = build(&snapshot, topics(start..end)).unwrap();
            for event in events {
                let seq = snapshot.last_seq + 1;
                let at = "2026-12-04T00:00:00Z".into();
                let event = chatsurface_model::Event {
                    v: 1,
                    seq,
                    at,
                    body: event,
                };
                snapshot.apply(event).unwrap();
            }
        }
        assert_eq!(snapshot.threads.len(), limits::MAX_THREADS - 1);
        let error = build(&snapshot, topics(20_000..20_002)).unwrap_err();
        assert_eq!(error.field.as_deref(), Some("events[1].id"), "{error:?}");
        assert!(
            error.message.contains("at most 10000 threads"),
            "{}",
            error.message
        );
        assert!(
            build(&snapshot, topics(20_000..20_001)).is_ok(),
            "the last one fits"
        );
    }

    #[test]
    fn threads_nest_at_most_sixty_four_levels() {
        let snapshot = Snapshot::default();
        let mut entries = vec![json!({"type": "thread", "id": "t0", "title": "Topic"})];
        for level in 1..=64 {
            entries.push(json!({"type": "thread", "id": format!("t{level}"), "title": "Deeper", "parent": format!("t{}", level - 1)}));
        }
        assert!(build(&snapshot, Value::Array(entries.clone())).is_ok());
        entries.push(json!({"type": "thread", "id": "t65", "title": "Too deep", "parent": "t64"}));
        let error = build(&snapshot, Value::Array(entries)).unwrap_err();
        assert_eq!(
            error.field.as_deref(),
            Some("events[65].parent"),
            "{error:?}"
        );
    }
}
