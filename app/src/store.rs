//! The live session store: one v1 event log per session, shared by the API and the window.
//!
//! Each session is `<data dir>/sessions/<session id>.jsonl`. Every event goes through the
//! session's [`LogWriter`], which folds it (a rule-breaking event is refused and nothing is
//! written) and fsyncs it before [`LiveSession::append`] returns, so whatever the API
//! acknowledges survives a crash. Appended events are broadcast to subscribers (waiting
//! dialogs, event streams). This module owns the files and the fan-out; it knows nothing of
//! HTTP, tokens or dialogs.

use chatsurface_model::{read_log, Event, EventBody, LogError, LogWriter, Session, Snapshot};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::broadcast;

/// Events buffered per subscriber before a slow one is told it lagged.
const BROADCAST_CAPACITY: usize = 1024;

/// A store operation that failed: one line naming the file or id and the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// A session id that cannot name a file.
    #[error("session id \"{0}\" is not allowed: use 1–128 of A–Z a–z 0–9 . _ -, starting with a letter or digit")]
    BadSessionId(String),
    /// No session has this id.
    #[error("no session \"{0}\"")]
    NoSession(String),
    /// The log refused or failed (the message names the file and, for a bad line, the line).
    #[error("{0}")]
    Log(#[from] LogError),
    /// The data directory cannot be used.
    #[error("{path}: {message}")]
    Io {
        /// The path.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// Checks that a session id is safe to use as a file name.
pub fn validate_session_id(id: &str) -> Result<(), StoreError> {
    let mut chars = id.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if first_ok && rest_ok && id.len() <= 128 {
        Ok(())
    } else {
        Err(StoreError::BadSessionId(id.to_owned()))
    }
}

/// One session: its writer (and so its snapshot) and the stream of its new events.
#[derive(Debug)]
pub struct LiveSession {
    writer: Mutex<LogWriter>,
    events: broadcast::Sender<Event>,
    /// Written as `session_started` ahead of the first events, if the log has none yet.
    start: Session,
}

impl LiveSession {
    fn new(writer: LogWriter, start: Session) -> LiveSession {
        let (events, _) = broadcast::channel(BROADCAST_CAPACITY);
        LiveSession {
            writer: Mutex::new(writer),
            events,
            start,
        }
    }

    fn lock(&self) -> MutexGuard<'_, LogWriter> {
        // A panic while holding the lock cannot leave the writer half-changed: LogWriter rolls
        // back its own failures, so the poisoned value is still consistent.
        self.writer
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Folds, writes and fsyncs events, then tells subscribers. Blocking (fsync): call it from
    /// a blocking task in async code.
    pub fn append_all(&self, bodies: Vec<EventBody>) -> Result<Vec<Event>, StoreError> {
        self.append_with(|_| Ok::<_, StoreError>(bodies))
    }

    /// Builds events from the snapshot and appends them under one lock, so what `build` reads
    /// (the next free id, whether a thread is open yet) cannot change before they are written.
    pub fn append_with<E: From<StoreError>>(
        &self,
        build: impl FnOnce(&Snapshot) -> Result<Vec<EventBody>, E>,
    ) -> Result<Vec<Event>, E> {
        let mut writer = self.lock();
        let mut bodies = build(writer.snapshot())?;
        // A new session's log starts with the session, but only once there is something to
        // write: a refused first request leaves no trace.
        if !bodies.is_empty() && writer.snapshot().session.is_none() {
            bodies.insert(
                0,
                EventBody::SessionStarted {
                    session: self.start.clone(),
                },
            );
        }
        let written = writer
            .append_all(bodies)
            .map_err(|error| E::from(StoreError::from(error)))?;
        drop(writer);
        for event in &written {
            // No subscriber is not an error: nobody is waiting.
            let _ = self.events.send(event.clone());
        }
        Ok(written)
    }

    /// Folds, writes and fsyncs one event (see [`LiveSession::append_all`]).
    pub fn append(&self, body: EventBody) -> Result<Event, StoreError> {
        let mut written = self.append_all(vec![body])?;
        Ok(written
            .pop()
            .expect("append_all returns one event per body"))
    }

    /// Reads the snapshot.
    pub fn read<R>(&self, read: impl FnOnce(&Snapshot) -> R) -> R {
        read(self.lock().snapshot())
    }

    /// A stream of the events appended from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    /// Waits until `settled` finds what it looks for in the snapshot, or `timeout` passes.
    /// Subscribes before the first look, so an event landing in between is not missed.
    pub async fn wait_for<T>(
        &self,
        timeout: Duration,
        settled: impl Fn(&Snapshot) -> Option<T>,
    ) -> Option<T> {
        let mut events = self.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if let Some(found) = self.read(&settled) {
                return Some(found);
            }
            match tokio::time::timeout_at(deadline, events.recv()).await {
                Err(_) => return None,
                Ok(Err(broadcast::error::RecvError::Closed)) => return self.read(&settled),
                Ok(_) => {}
            }
        }
    }
}

/// Every session under a data directory.
#[derive(Debug)]
pub struct SessionStore {
    dir: PathBuf,
    sessions: Mutex<BTreeMap<String, Arc<LiveSession>>>,
}

impl SessionStore {
    /// Opens (creating if needed) `<data dir>/sessions` and every log in it. A log that does
    /// not open is an error naming it: an old log must always open, so a failure is news.
    pub fn open(data_dir: &Path) -> Result<SessionStore, StoreError> {
        let dir = data_dir.join("sessions");
        let io = |error: std::io::Error| StoreError::Io {
            path: dir.clone(),
            message: error.to_string(),
        };
        std::fs::create_dir_all(&dir).map_err(io)?;
        let mut sessions = BTreeMap::new();
        for entry in std::fs::read_dir(&dir).map_err(io)? {
            let path = entry.map_err(io)?.path();
            let Some(id) = path
                .file_stem()
                .and_then(|stem| stem.to_str())
                .map(str::to_owned)
            else {
                continue;
            };
            if path
                .extension()
                .is_some_and(|extension| extension == "jsonl")
                && validate_session_id(&id).is_ok()
            {
                let start = Session {
                    id: id.as_str().into(),
                    title: id.clone(),
                    agent: None,
                };
                sessions.insert(
                    id,
                    Arc::new(LiveSession::new(LogWriter::open(&path)?, start)),
                );
            }
        }
        Ok(SessionStore {
            dir,
            sessions: Mutex::new(sessions),
        })
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, Arc<LiveSession>>> {
        self.sessions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The log file of a session id.
    pub fn path_of(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.jsonl"))
    }

    /// A session by id.
    pub fn get(&self, id: &str) -> Result<Arc<LiveSession>, StoreError> {
        validate_session_id(id)?;
        self.lock()
            .get(id)
            .cloned()
            .ok_or_else(|| StoreError::NoSession(id.to_owned()))
    }

    /// A session by id, created when missing; its `session_started` event is written with its
    /// first events.
    pub fn get_or_create(&self, id: &str, title: &str) -> Result<Arc<LiveSession>, StoreError> {
        validate_session_id(id)?;
        let mut sessions = self.lock();
        if let Some(session) = sessions.get(id) {
            return Ok(session.clone());
        }
        let start = Session {
            id: id.into(),
            title: title.to_owned(),
            agent: None,
        };
        let session = Arc::new(LiveSession::new(LogWriter::open(&self.path_of(id))?, start));
        sessions.insert(id.to_owned(), session.clone());
        Ok(session)
    }

    /// Every session, by id.
    pub fn all(&self) -> Vec<(String, Arc<LiveSession>)> {
        self.lock()
            .iter()
            .map(|(id, session)| (id.clone(), session.clone()))
            .collect()
    }

    /// The most recently written session log, if any (what the window opens by default).
    pub fn most_recent(&self) -> Option<PathBuf> {
        self.all()
            .into_iter()
            .map(|(id, _)| self.path_of(&id))
            .filter_map(|path| Some((std::fs::metadata(&path).ok()?.modified().ok()?, path)))
            .max()
            .map(|(_, path)| path)
    }

    /// Reads a session's log from disk again (to check what survived, in tests and tools).
    pub fn reread(&self, id: &str) -> Result<Snapshot, StoreError> {
        Ok(read_log(&self.path_of(id))?.snapshot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chatsurface_model::{MessageSpec, Role, ThreadKind, ThreadSpec};

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("chatsurface-store-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn topic(id: &str) -> EventBody {
        EventBody::ThreadOpened {
            thread: ThreadSpec {
                id: id.into(),
                parent: None,
                title: id.into(),
                kind: ThreadKind::Topic,
            },
        }
    }

    #[test]
    fn session_ids_that_could_escape_the_directory_are_refused() {
        for bad in ["", "../x", "a/b", ".hidden", "a b", &"x".repeat(129)] {
            assert!(validate_session_id(bad).is_err(), "{bad:?}");
        }
        assert!(validate_session_id("deploy-4.12_x").is_ok());
    }

    #[test]
    fn sessions_are_created_once_and_reopen_from_disk() {
        let dir = temp_dir("reopen");
        let store = SessionStore::open(&dir).unwrap();
        let session = store.get_or_create("deploy", "Deploy").unwrap();
        session.append(topic("t")).unwrap();
        store.get_or_create("deploy", "ignored").unwrap();
        drop(store);
        let reopened = SessionStore::open(&dir).unwrap();
        let snapshot = reopened.reread("deploy").unwrap();
        assert_eq!(snapshot.title(), "Deploy");
        assert_eq!(snapshot.threads.len(), 1);
        assert_eq!(reopened.all().len(), 1);
        assert!(matches!(
            reopened.get("nope"),
            Err(StoreError::NoSession(_))
        ));
    }

    #[test]
    fn a_refused_event_is_not_written_and_not_broadcast() {
        let store = SessionStore::open(&temp_dir("refused")).unwrap();
        let session = store.get_or_create("s", "S").unwrap();
        let mut events = session.subscribe();
        let orphan = EventBody::MessageAppended {
            message: MessageSpec {
                id: "m".into(),
                thread_id: "missing".into(),
                role: Role::Agent,
                text: "x".into(),
            },
        };
        let error = session.append(orphan).unwrap_err();
        assert!(
            error.to_string().contains("names no opened thread"),
            "{error}"
        );
        assert!(events.try_recv().is_err());
        assert_eq!(
            store.reread("s").unwrap().last_seq,
            0,
            "not even session_started is on disk"
        );
    }

    #[tokio::test]
    async fn a_waiter_sees_an_event_appended_after_it_started_waiting() {
        let store = SessionStore::open(&temp_dir("wait")).unwrap();
        let session = store.get_or_create("s", "S").unwrap();
        let writer = session.clone();
        let waiting = tokio::spawn(async move {
            session
                .wait_for(Duration::from_secs(5), |snapshot| {
                    (!snapshot.threads.is_empty()).then_some(snapshot.last_seq)
                })
                .await
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        tokio::task::spawn_blocking(move || writer.append(topic("t")).unwrap())
            .await
            .unwrap();
        assert_eq!(waiting.await.unwrap(), Some(2));
    }

    #[tokio::test]
    async fn a_waiter_gives_up_at_its_timeout() {
        let store = SessionStore::open(&temp_dir("timeout")).unwrap();
        let session = store.get_or_create("s", "S").unwrap();
        let found = session
            .wait_for(Duration::from_millis(30), |snapshot| {
                (snapshot.last_seq > 5).then_some(())
            })
            .await;
        assert_eq!(found, None);
    }
}
