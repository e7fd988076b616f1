//! The events a reader builds, each with the time it happened: a small builder shared by the
//! agents' readers, so message and thread ids are chosen one way (`m1`, `m2`, …) and an
//! event without a time of its own takes the time of the one before.

use chatsurface_model::{
    BatchSpec, ClarificationItem, EventBody, MessageSpec, Role, ThreadKind, ThreadSpec,
    ThreadStatus,
};

/// The events being built, each with the time it happened.
#[derive(Default)]
pub(crate) struct Events {
    /// The events so far.
    pub(crate) list: Vec<(String, EventBody)>,
    /// Messages appended so far (the last one is `m{messages}`).
    pub(crate) messages: usize,
    last_at: String,
}

impl Events {
    /// Appends an event at `at` (the previous event's time when `None`).
    pub(crate) fn push(&mut self, at: Option<String>, body: EventBody) {
        if let Some(at) = at {
            self.last_at = at;
        }
        let at = if self.last_at.is_empty() {
            "1970-01-01T00:00:00Z".to_owned()
        } else {
            self.last_at.clone()
        };
        self.list.push((at, body));
    }

    /// Opens a thread; its title is cut to the title limit.
    pub(crate) fn open_thread(
        &mut self,
        at: Option<String>,
        id: &str,
        parent: Option<&str>,
        title: &str,
        kind: ThreadKind,
    ) {
        let thread = ThreadSpec {
            id: id.into(),
            parent: parent.map(Into::into),
            title: super::title_of(title),
            kind,
        };
        self.push(at, EventBody::ThreadOpened { thread });
    }

    /// Opens a branch thread of `parent` that the agent left (a rewind, a revert, a turn
    /// rolled back): parked from the start.
    pub(crate) fn open_parked_branch(
        &mut self,
        at: Option<String>,
        id: &str,
        parent: &str,
        title: &str,
    ) {
        self.open_thread(at.clone(), id, Some(parent), title, ThreadKind::Branch);
        self.status(at, id, ThreadStatus::Parked);
    }

    /// Sets a thread's status.
    pub(crate) fn status(&mut self, at: Option<String>, thread: &str, status: ThreadStatus) {
        self.push(
            at,
            EventBody::ThreadStatusChanged {
                thread_id: thread.into(),
                status,
            },
        );
    }

    /// Opens a clarification batch of `items` (the questions an agent's tool call asked),
    /// under the call's id.
    pub(crate) fn open_batch(
        &mut self,
        at: Option<String>,
        id: &str,
        thread: &str,
        items: Vec<ClarificationItem>,
    ) {
        let batch = BatchSpec {
            held: false,
            id: id.into(),
            thread_id: thread.into(),
            title: None,
            items,
            general_field: false,
            timeout_s: None,
            attachment: None,
        };
        self.push(at, EventBody::ClarificationBatchOpened { batch });
    }

    /// Appends a message; returns its id.
    pub(crate) fn message(
        &mut self,
        at: Option<String>,
        thread: &str,
        role: Role,
        text: String,
    ) -> String {
        self.messages += 1;
        let id = format!("m{}", self.messages);
        let message = MessageSpec {
            id: id.as_str().into(),
            thread_id: thread.into(),
            role,
            text,
        };
        self.push(at, EventBody::MessageAppended { message });
        id
    }
}
