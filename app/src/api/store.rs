//! The live session store: one v1 event log per session, shared by the API and the window.
//!
//! Each session is `<data dir>/sessions/<session id>.jsonl`. Every event goes through the
//! session's [`LogWriter`], which folds it (a rule-breaking event is refused and nothing is
//! written) and fsyncs it before [`LiveSession::append`] returns, so whatever the API
//! acknowledges survives a crash. Appended events are broadcast to subscribers (waiting
//! dialogs, event streams). This module owns the files and the fan-out; it knows nothing of
//! HTTP, tokens or dialogs.
//!
//! Appends to one session share fsyncs (group commit, see `chatsurface_model::LogWriter`):
//! each request folds and writes its events under the session's lock, releases it, and waits
//! for an fsync that covers its lines, so requests that arrive while one fsync runs are made
//! durable together by the next. Two rules keep that invisible to clients:
//!
//! - Events are broadcast only once fsynced, and in log order: written events wait in a queue
//!   until an fsync covers them, and whoever finds them covered sends them.
//! - The snapshot under the lock is that of everything *written*, so it can be ahead of the
//!   disk by the group whose fsync is running. That is what an append must build on (ids and
//!   rules follow the log), and [`LiveSession::read`] gives it for deciding what to write.
//!   Whatever is shown to a client ([`LiveSession::read_durable`], [`LiveSession::wait_for`])
//!   waits until everything the read saw is fsynced, so no client learns of an event, such as
//!   an answer, that a crash could still take back.
//!
//! If an fsync fails, every request it did not cover is refused, the log and its snapshot are
//! cut back to what was fsynced, the events that were not are never broadcast, and the
//! session takes no more events until the server opens its log again.

use chatsurface_model::{
    read_log, Event, EventBody, LogError, LogWriter, Session, Snapshot, SyncPoint,
};
use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::sync::{broadcast, watch};

/// Events buffered per subscriber before a slow one is told it lagged.
const BROADCAST_CAPACITY: usize = 1024;

/// The most session logs the store holds open at once. Every session stays folded in
/// memory; only the file handles of the least recently used idle ones are closed, and opened
/// again when written or when the log grows. Far below a login shell's 1,024 open files, so
/// sessions never take the handles that connections need.
pub const MAX_OPEN_LOGS: usize = 128;

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
    /// Events written but not yet broadcast, in log order, each batch with the point an fsync
    /// must reach before it may be sent.
    unsent: Mutex<VecDeque<(SyncPoint, Vec<Event>)>>,
    events: broadcast::Sender<Event>,
    /// Counts ended fsync rounds; async waiters wake on each to look at their own point.
    fsyncs_ended: watch::Sender<u64>,
    /// Whether a blocking task is running fsync rounds (see [`LiveSession::durable`]).
    syncing: AtomicBool,
    /// Written as `session_started` ahead of the first events, if the log has none yet.
    start: Session,
    /// The last error following the log gave, so it is reported once, not at every look.
    follow_error: Mutex<Option<String>>,
    /// The store's clock when the session was last asked for, to close the least recently
    /// used logs first.
    last_used: AtomicU64,
}

/// Locks a mutex whose holder may have panicked. A panic while holding the writer cannot
/// leave it half-changed (LogWriter rolls back its own failures), nor the queue of unsent
/// events (it is changed by whole pushes and pops), so a poisoned value is still consistent.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl LiveSession {
    fn new(writer: LogWriter, start: Session) -> LiveSession {
        let (events, _) = broadcast::channel(BROADCAST_CAPACITY);
        LiveSession {
            writer: Mutex::new(writer),
            unsent: Mutex::new(VecDeque::new()),
            events,
            fsyncs_ended: watch::channel(0).0,
            syncing: AtomicBool::new(false),
            start,
            follow_error: Mutex::new(None),
            last_used: AtomicU64::new(0),
        }
    }

    /// Closes the log's file if nobody is using the writer now and all it wrote is fsynced
    /// (see `LogWriter::release_file`); returns whether it is closed. Blocking (it may
    /// fsync lines another writer appended).
    fn release_file_if_idle(&self) -> bool {
        match self.writer.try_lock() {
            Ok(mut writer) => writer.release_file(),
            Err(std::sync::TryLockError::Poisoned(poisoned)) => {
                poisoned.into_inner().release_file()
            }
            Err(std::sync::TryLockError::WouldBlock) => false,
        }
    }

    /// Whether the session's log is open now.
    pub fn holds_file(&self) -> bool {
        self.lock().holds_file()
    }

    fn lock(&self) -> MutexGuard<'_, LogWriter> {
        lock(&self.writer)
    }

    /// Whether nothing at all has been written to the session's log.
    fn is_unwritten(&self) -> bool {
        let writer = self.lock();
        writer.snapshot().session.is_none() && writer.sync_point().is_synced() && {
            std::fs::metadata(writer.path()).is_ok_and(|metadata| metadata.len() == 0)
        }
    }

    /// The integration that created the session: as its log says, or, before its first
    /// events are written, as the one who asked for it first.
    pub fn created_by(&self) -> Option<String> {
        match &self.lock().snapshot().session {
            Some(session) => session.created_by.clone(),
            None => self.start.created_by.clone(),
        }
    }

    /// Folds, writes and fsyncs events, then tells subscribers. Blocking (fsync): async code
    /// calls [`LiveSession::append_with`] instead.
    pub fn append_all(&self, bodies: Vec<EventBody>) -> Result<Vec<Event>, StoreError> {
        let (written, point, ()) = self.write(|_| Ok::<_, StoreError>((bodies, ())))?;
        self.settle(&point)?;
        Ok(written)
    }

    /// Builds events from the snapshot and appends them under one lock, so what `build` reads
    /// (the next free id, whether a thread is open yet) cannot change before they are written;
    /// `build` also returns what the caller wants to know of what it built (the ids it chose).
    /// Returns once the events are fsynced and broadcast, sharing that fsync with every
    /// append written meanwhile.
    ///
    /// The write itself runs on the calling task: it is a few microseconds under the
    /// session's lock (fold, `flock`, a `write` into the page cache), cheaper than handing it
    /// to a blocking thread. Only the fsync runs on a blocking thread, one per group of
    /// appends, while the tasks that wrote them wait without holding a thread.
    pub async fn append_with<T, E: From<StoreError>>(
        self: &Arc<Self>,
        build: impl FnOnce(&Snapshot) -> Result<(Vec<EventBody>, T), E>,
    ) -> Result<(Vec<Event>, T), E> {
        let (written, point, built) = self.write(build)?;
        self.durable(point)
            .await
            .map_err(|error| E::from(StoreError::from(error)))?;
        Ok((written, built))
    }

    /// The first half of an append: builds, folds and writes the events under the writer's
    /// lock and queues them to be broadcast once fsynced. Returns the point to wait for.
    fn write<T, E: From<StoreError>>(
        &self,
        build: impl FnOnce(&Snapshot) -> Result<(Vec<EventBody>, T), E>,
    ) -> Result<(Vec<Event>, SyncPoint, T), E> {
        let mut writer = self.lock();
        let (mut bodies, built) = build(writer.snapshot())?;
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
        let (written, point) = writer
            .append_all_unsynced(bodies)
            .map_err(|error| E::from(StoreError::from(error)))?;
        if !written.is_empty() {
            // Queued under the writer's lock, so the queue is in log order.
            lock(&self.unsent).push_back((point.clone(), written.clone()));
        }
        Ok((written, point, built))
    }

    /// Waits until `point` is fsynced (running the fsync if no one else is), then broadcasts
    /// every queued event that is now durable, in log order. After a failed fsync, cuts the
    /// session back to what is durable and drops the events that are not, unsent. Either way
    /// it tells async waiters to look again. Blocking.
    fn settle(&self, point: &SyncPoint) -> Result<(), LogError> {
        let result = point.sync();
        {
            let mut unsent = lock(&self.unsent);
            while unsent.front().is_some_and(|(queued, _)| queued.is_synced()) {
                let (_, events) = unsent.pop_front().expect("checked above");
                for event in events {
                    // No subscriber is not an error: nobody is waiting.
                    let _ = self.events.send(event);
                }
            }
        }
        if result.is_err() {
            // Nothing is synced after a failed fsync, so whatever is still queued is lost.
            self.lock().discard_unsynced();
            lock(&self.unsent).clear();
        }
        self.fsyncs_ended.send_modify(|ended| *ended += 1);
        result
    }

    /// Waits, without holding a thread, until `point` is fsynced; an error when the fsync
    /// failed (the session is then cut back to what is durable).
    ///
    /// The fsync runs on a blocking task that settles rounds for as long as anything queued
    /// waits; at most one such task runs per session, started by whichever waiter finds none.
    /// Every settle (this task's or a blocking appender's) ends by waking the waiters, who
    /// look at their own point again.
    async fn durable(self: &Arc<Self>, point: SyncPoint) -> Result<(), LogError> {
        // Subscribed before the first look, so a round that ends after it wakes this task.
        let mut ended = self.fsyncs_ended.subscribe();
        loop {
            if let Some(outcome) = point.outcome() {
                return outcome;
            }
            // Again after every wake: the task may have ended without covering this point
            // (the point can hold bytes no queued append does, such as lines another
            // process wrote and `follow` folded), and then this waiter starts the next.
            self.ensure_syncing(point.clone());
            if ended.changed().await.is_err() {
                // Cannot happen while this task holds the session; sync here, not spin.
                return self.settle(&point);
            }
        }
    }

    /// Starts the blocking task that runs fsync rounds, unless one runs already.
    fn ensure_syncing(self: &Arc<Self>, first: SyncPoint) {
        if self.syncing.swap(true, Ordering::SeqCst) {
            return;
        }
        let session = self.clone();
        let rounds = move || {
            let mut point = first;
            loop {
                // A failed round is reported to its waiters through their points.
                let _ = session.settle(&point);
                session.syncing.store(false, Ordering::SeqCst);
                // Appended after the round began, or after the flag was seen set: take it on,
                // unless a new task already did. Checked after clearing the flag, so an
                // append that saw it set is never left without a round.
                let next = lock(&session.unsent)
                    .back()
                    .map(|(queued, _)| queued.clone());
                match next {
                    Some(queued) if !session.syncing.swap(true, Ordering::SeqCst) => point = queued,
                    _ => {
                        // Woken once more with the flag clear, a waiter this round did not
                        // cover starts a task of its own.
                        session.fsyncs_ended.send_modify(|ended| *ended += 1);
                        return;
                    }
                }
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(rounds)),
            // Outside a runtime (a test, a shutdown): run the rounds right here.
            Err(_) => rounds(),
        }
    }

    /// Folds what other writers (the window, another process) appended to the log since the
    /// last look, and tells subscribers; returns how many events that was. Blocking (reads).
    pub fn follow(&self) -> Result<usize, StoreError> {
        let events = self.lock().catch_up()?;
        for event in &events {
            let _ = self.events.send(event.clone());
        }
        Ok(events.len())
    }

    /// Folds, writes and fsyncs one event (see [`LiveSession::append_all`]).
    pub fn append(&self, body: EventBody) -> Result<Event, StoreError> {
        let mut written = self.append_all(vec![body])?;
        Ok(written
            .pop()
            .expect("append_all returns one event per body"))
    }

    /// Reads the snapshot of everything written, which may include events whose fsync is
    /// still running: use it to decide what to write, not to tell a client what happened
    /// (that is [`LiveSession::read_durable`]).
    pub fn read<R>(&self, read: impl FnOnce(&Snapshot) -> R) -> R {
        read(self.lock().snapshot())
    }

    /// Reads the snapshot and returns once everything the read saw is fsynced, so the result
    /// may be shown to a client. Usually nothing is in flight and it returns at once;
    /// otherwise it waits for (or runs) the fsync of the group in flight. If that fsync
    /// fails, it reads again what is left.
    pub async fn read_durable<R>(self: &Arc<Self>, read: impl Fn(&Snapshot) -> R) -> R {
        loop {
            let (value, point) = self.read_at(&read);
            if self.durable(point).await.is_ok() {
                return value;
            }
        }
    }

    /// Reads the snapshot, with the point an fsync must reach before the result is durable.
    fn read_at<R>(&self, read: impl FnOnce(&Snapshot) -> R) -> (R, SyncPoint) {
        let writer = self.lock();
        (read(writer.snapshot()), writer.sync_point())
    }

    /// A stream of the events appended from now on, each sent once fsynced, in log order.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    /// Waits until `settled` finds what it looks for in the snapshot, or `timeout` passes.
    /// Subscribes before the first look, so an event landing in between is not missed; what
    /// it finds is returned only once fsynced, like [`LiveSession::read_durable`].
    pub async fn wait_for<T>(
        self: &Arc<Self>,
        timeout: Duration,
        settled: impl Fn(&Snapshot) -> Option<T>,
    ) -> Option<T> {
        let mut events = self.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            // Only a find must be durable: "not yet" is safe to act on as it stands.
            let (found, point) = self.read_at(&settled);
            if let Some(found) = found {
                if self.durable(point).await.is_ok() {
                    return Some(found);
                }
                // The fsync failed and the session was cut back: look again.
                continue;
            }
            match tokio::time::timeout_at(deadline, events.recv()).await {
                Err(_) => return None,
                Ok(Err(broadcast::error::RecvError::Closed)) => {
                    return self.read_durable(&settled).await
                }
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
    /// Ticks at every `get`, for [`LiveSession::last_used`].
    clock: AtomicU64,
}

impl SessionStore {
    /// Opens (creating if needed) `<data dir>/sessions` and every log in it. A log that does
    /// not open is an error naming it: an old log must always open, so a failure is news.
    /// Each file is closed again once folded, so any number of logs opens within a few file
    /// handles; they are opened again as they are used.
    pub fn open(data_dir: &Path) -> Result<SessionStore, StoreError> {
        let dir = data_dir.join("sessions");
        let io = |error: std::io::Error| StoreError::Io {
            path: dir.clone(),
            message: error.to_string(),
        };
        // Private to its owner, as the logs in it are, whatever the umask.
        crate::fsutil::create_private_dir(&dir).map_err(io)?;
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
                    created_by: None,
                };
                let mut writer = LogWriter::open(&path)?;
                writer.release_file();
                sessions.insert(id, Arc::new(LiveSession::new(writer, start)));
            }
        }
        Ok(SessionStore {
            dir,
            sessions: Mutex::new(sessions),
            clock: AtomicU64::new(0),
        })
    }

    /// Notes that a session is in use now, for [`SessionStore::close_idle_logs`].
    fn touch(&self, session: &LiveSession) {
        let now = self.clock.fetch_add(1, Ordering::Relaxed) + 1;
        session.last_used.store(now, Ordering::Relaxed);
    }

    /// Closes the files of the least recently used sessions until at most [`MAX_OPEN_LOGS`]
    /// are open, skipping any in use this moment. Runs after each session asked for (when
    /// there are more sessions than the limit) and at each follow round; the fsyncs it may run
    /// happen outside the store's lock. Returns how many logs are open afterwards.
    pub fn close_idle_logs(&self) -> usize {
        // Only sessions holding a file are cloned out (a writer busy now counts as holding
        // one), so the others' handles stay single and the lock is held for a scan, no fsync.
        let mut open: Vec<Arc<LiveSession>> = {
            let sessions = self.lock();
            if sessions.len() <= MAX_OPEN_LOGS {
                return sessions.len();
            }
            sessions
                .values()
                .filter(|session| {
                    session
                        .writer
                        .try_lock()
                        .map_or(true, |writer| writer.holds_file())
                })
                .cloned()
                .collect()
        };
        if open.len() <= MAX_OPEN_LOGS {
            return open.len();
        }
        open.sort_by_key(|session| session.last_used.load(Ordering::Relaxed));
        let excess = open.len() - MAX_OPEN_LOGS;
        let closed = open
            .iter()
            .take(excess)
            .filter(|session| session.release_file_if_idle())
            .count();
        open.len() - closed
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
        let session = self
            .lock()
            .get(id)
            .cloned()
            .ok_or_else(|| StoreError::NoSession(id.to_owned()))?;
        self.touch(&session);
        self.close_idle_logs();
        Ok(session)
    }

    /// A session by id, created when missing (by `created_by`, the integration asking, if
    /// any); its `session_started` event is written with its first events.
    pub fn get_or_create(
        &self,
        id: &str,
        title: &str,
        created_by: Option<&str>,
    ) -> Result<Arc<LiveSession>, StoreError> {
        validate_session_id(id)?;
        let session = self.get_or_create_unlimited(id, title, created_by)?;
        self.touch(&session);
        self.close_idle_logs();
        Ok(session)
    }

    fn get_or_create_unlimited(
        &self,
        id: &str,
        title: &str,
        created_by: Option<&str>,
    ) -> Result<Arc<LiveSession>, StoreError> {
        let mut sessions = self.lock();
        if let Some(session) = sessions.get(id) {
            return Ok(session.clone());
        }
        let start = Session {
            id: id.into(),
            title: title.to_owned(),
            agent: None,
            created_by: created_by.map(str::to_owned),
        };
        let session = Arc::new(LiveSession::new(LogWriter::open(&self.path_of(id))?, start));
        sessions.insert(id.to_owned(), session.clone());
        Ok(session)
    }

    /// Forgets a session that a refused request created and nothing was written to, and
    /// removes its empty log, so a refused request leaves no file and holds no file handle.
    /// A session someone else also holds (another request on its way) is kept: all handles
    /// to a session are taken under the store's lock, so none can appear meanwhile.
    pub fn forget_if_unwritten(&self, id: &str, session: Arc<LiveSession>) {
        let mut sessions = self.lock();
        let ours = sessions
            .get(id)
            .is_some_and(|held| Arc::ptr_eq(held, &session));
        // One handle in the map, one here: nobody else has it.
        if ours && Arc::strong_count(&session) == 2 && session.is_unwritten() {
            sessions.remove(id);
            drop(session);
            let path = self.path_of(id);
            if let Err(error) = std::fs::remove_file(&path) {
                tracing::warn!("{}: cannot remove the empty log: {error}", path.display());
            }
        }
    }

    /// Lets every session fold what other writers appended to its log (see
    /// [`LiveSession::follow`]). A session whose log cannot be followed (another writer
    /// appended a bad line) is named on stderr once, not at every look, and again only when
    /// what is wrong changes; its reads go on. Returns the lines it reported.
    pub fn follow_all(&self) -> Vec<String> {
        let mut reported = Vec::new();
        for (id, session) in self.all() {
            let now = session.follow().err().map(|error| error.to_string());
            let mut last = lock(&session.follow_error);
            if let Some(error) = now.as_ref().filter(|error| last.as_ref() != Some(*error)) {
                let line = format!(
                    "session {id}: {error}; it takes no more events until that line is mended"
                );
                tracing::warn!("{line}");
                reported.push(line);
            }
            *last = now;
        }
        self.close_idle_logs();
        reported
    }

    /// Every session, by id.
    pub fn all(&self) -> Vec<(String, Arc<LiveSession>)> {
        self.lock()
            .iter()
            .map(|(id, session)| (id.clone(), session.clone()))
            .collect()
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
    fn only_the_most_recently_used_logs_stay_open() {
        let dir = temp_dir("lru");
        let store = SessionStore::open(&dir).unwrap();
        let count = MAX_OPEN_LOGS + 40;
        for number in 0..count {
            let session = store
                .get_or_create(&format!("s{number}"), "S", None)
                .unwrap();
            session.append(topic("t")).unwrap();
        }
        store.close_idle_logs();
        let open: Vec<_> = store
            .all()
            .into_iter()
            .filter(|(_, session)| session.holds_file())
            .map(|(id, _)| id)
            .collect();
        assert_eq!(open.len(), MAX_OPEN_LOGS);
        assert!(!open.contains(&"s0".to_owned()), "the oldest was closed");
        assert!(
            open.contains(&format!("s{}", count - 1)),
            "the newest is open"
        );

        // A closed log takes events again, after whatever another writer appended meanwhile.
        let mut other = LogWriter::open(&store.path_of("s0")).unwrap();
        other.append(topic("from-elsewhere")).unwrap();
        drop(other);
        let first = store.get("s0").unwrap();
        let event = first.append(topic("again")).unwrap();
        assert_eq!(event.seq, 4, "after the other writer's seq 3");
        assert_eq!(store.reread("s0").unwrap().threads.len(), 3);

        // Reopening the store holds none of them open.
        drop((first, store));
        let reopened = SessionStore::open(&dir).unwrap();
        assert!(reopened
            .all()
            .iter()
            .all(|(_, session)| !session.holds_file()));
        assert_eq!(reopened.all().len(), count);
    }

    #[test]
    fn sessions_are_created_once_and_reopen_from_disk() {
        let dir = temp_dir("reopen");
        let store = SessionStore::open(&dir).unwrap();
        let session = store.get_or_create("deploy", "Deploy", None).unwrap();
        session.append(topic("t")).unwrap();
        store.get_or_create("deploy", "ignored", None).unwrap();
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
        let session = store.get_or_create("s", "S", None).unwrap();
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
        let session = store.get_or_create("s", "S", None).unwrap();
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
        let session = store.get_or_create("s", "S", None).unwrap();
        let found = session
            .wait_for(Duration::from_millis(30), |snapshot| {
                (snapshot.last_seq > 5).then_some(())
            })
            .await;
        assert_eq!(found, None);
    }

    #[test]
    fn concurrent_appends_are_broadcast_once_fsynced_in_log_order() {
        let store = SessionStore::open(&temp_dir("concurrent")).unwrap();
        let session = store.get_or_create("s", "S", None).unwrap();
        session.append(topic("t")).unwrap();
        let mut events = session.subscribe();
        let acknowledged: Vec<Event> = std::thread::scope(|scope| {
            let appenders: Vec<_> = (0..8)
                .map(|appender| {
                    let session = &session;
                    scope.spawn(move || {
                        let mut mine = Vec::new();
                        for index in 0..30 {
                            // Every fourth append of every appender names no open thread.
                            let thread = if index % 4 == 3 { "missing" } else { "t" };
                            let body = EventBody::MessageAppended {
                                message: MessageSpec {
                                    id: format!("m{appender}-{index}").as_str().into(),
                                    thread_id: thread.into(),
                                    role: Role::Agent,
                                    text: "x".into(),
                                },
                            };
                            match session.append(body) {
                                Ok(event) => mine.push(event),
                                Err(error) => assert!(
                                    index % 4 == 3
                                        && error.to_string().contains("names no opened thread"),
                                    "{error}"
                                ),
                            }
                        }
                        mine
                    })
                })
                .collect();
            appenders
                .into_iter()
                .flat_map(|appender| appender.join().unwrap())
                .collect()
        });
        assert_eq!(acknowledged.len(), 8 * 23);
        let mut broadcast = Vec::new();
        while let Ok(event) = events.try_recv() {
            broadcast.push(event);
        }
        let mut expected = acknowledged;
        expected.sort_by_key(|event| event.seq);
        assert_eq!(
            broadcast.iter().map(|event| event.seq).collect::<Vec<_>>(),
            expected.iter().map(|event| event.seq).collect::<Vec<_>>(),
            "each acknowledged event is broadcast once, in log order"
        );
        let reread = store.reread("s").unwrap();
        let on_disk: Vec<&str> = reread
            .messages
            .iter()
            .map(|message| message.spec.id.as_str())
            .collect();
        let sent: Vec<String> = expected
            .iter()
            .map(|event| match &event.body {
                EventBody::MessageAppended { message } => message.id.to_string(),
                other => panic!("only messages were appended: {other:?}"),
            })
            .collect();
        assert_eq!(
            on_disk, sent,
            "every acknowledged event is on disk, once, in order"
        );
        assert_eq!(
            serde_json::to_value(&reread).unwrap(),
            session.read(|snapshot| serde_json::to_value(snapshot).unwrap()),
            "the log folds to the live snapshot"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn async_and_blocking_appenders_all_land_once_and_none_waits_forever() {
        let store = SessionStore::open(&temp_dir("async")).unwrap();
        let session = store.get_or_create("s", "S", None).unwrap();
        session.append(topic("t")).unwrap();
        let mut events = session.subscribe();
        let message = |id: String| EventBody::MessageAppended {
            message: MessageSpec {
                id: id.as_str().into(),
                thread_id: "t".into(),
                role: Role::Agent,
                text: "x".into(),
            },
        };
        let tasks: Vec<_> = (0..64)
            .map(|task| {
                let session = session.clone();
                tokio::spawn(async move {
                    let mut seqs = Vec::new();
                    for index in 0..10 {
                        let body = message(format!("a{task}-{index}"));
                        let (written, ()) = session
                            .append_with(|_| Ok::<_, StoreError>((vec![body], ())))
                            .await
                            .unwrap();
                        seqs.push(written[0].seq);
                    }
                    seqs
                })
            })
            .collect();
        // Blocking appenders settle rounds of their own meanwhile, which must wake the
        // async waiters their fsyncs covered.
        let blocking: Vec<_> = (0..4)
            .map(|thread| {
                let session = session.clone();
                tokio::task::spawn_blocking(move || {
                    (0..20)
                        .map(|index| {
                            session
                                .append(message(format!("b{thread}-{index}")))
                                .unwrap()
                                .seq
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut acknowledged = Vec::new();
        for task in tasks {
            let seqs = tokio::time::timeout(Duration::from_secs(30), task)
                .await
                .expect("no async appender waits forever")
                .unwrap();
            acknowledged.extend(seqs);
        }
        for thread in blocking {
            acknowledged.extend(thread.await.unwrap());
        }
        acknowledged.sort_unstable();
        assert_eq!(acknowledged.len(), 64 * 10 + 4 * 20);
        let mut broadcast = Vec::new();
        while let Ok(event) = events.try_recv() {
            broadcast.push(event.seq);
        }
        assert_eq!(broadcast, acknowledged, "each broadcast once, in log order");
        let on_disk = store.reread("s").unwrap();
        assert_eq!(on_disk.messages.len(), acknowledged.len());
        assert_eq!(on_disk.last_seq, *acknowledged.last().unwrap());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_durable_read_of_lines_another_writer_left_unsynced_returns_once_synced() {
        let store = SessionStore::open(&temp_dir("other-writer")).unwrap();
        let session = store.get_or_create("s", "S", None).unwrap();
        session.append(topic("t")).unwrap();
        // Another process writes a line and has not fsynced it yet; this server folds it.
        let mut other = LogWriter::open(&store.path_of("s")).unwrap();
        let (_, unsynced) = other.append_all_unsynced([topic("u")]).unwrap();
        assert_eq!(session.follow().unwrap(), 1);
        assert!(!session.lock().sync_point().is_synced());
        let threads = tokio::time::timeout(
            Duration::from_secs(10),
            session.read_durable(|snapshot| snapshot.threads.len()),
        )
        .await
        .expect("no queued append covers that line, and the read still gets its fsync");
        assert_eq!(threads, 2);
        assert!(session.lock().sync_point().is_synced());
        drop(unsynced);
    }

    #[tokio::test]
    async fn a_durable_read_waits_for_the_fsync_of_what_it_saw() {
        let store = SessionStore::open(&temp_dir("durable")).unwrap();
        let session = store.get_or_create("s", "S", None).unwrap();
        session.append(topic("t")).unwrap();
        let mut events = session.subscribe();
        // The first half of an append: written and queued, its fsync not run yet.
        {
            let mut writer = session.lock();
            let (written, point) = writer.append_all_unsynced([topic("u")]).unwrap();
            lock(&session.unsent).push_back((point, written));
        }
        assert!(!session.lock().sync_point().is_synced());
        assert!(events.try_recv().is_err(), "not broadcast before its fsync");
        let threads = session
            .read_durable(|snapshot| snapshot.threads.len())
            .await;
        assert_eq!(threads, 2, "the read saw the written event");
        assert!(
            session.lock().sync_point().is_synced(),
            "and returned only once it was fsynced"
        );
        assert_eq!(events.try_recv().unwrap().seq, 3, "which also sent it");
    }

    #[test]
    fn a_bad_line_from_another_writer_is_reported_once_and_reads_go_on() {
        let dir = temp_dir("bad-line-once");
        let store = SessionStore::open(&dir).unwrap();
        let session = store.get_or_create("s", "S", None).unwrap();
        session.append(topic("main")).unwrap();
        let log = store.path_of("s");
        let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        std::io::Write::write_all(&mut file, b"{not json}\n").unwrap();
        let first = store.follow_all();
        assert_eq!(first.len(), 1, "{first:?}");
        assert!(first[0].starts_with("session s: "), "{first:?}");
        for _ in 0..10 {
            assert!(store.follow_all().is_empty(), "said once only");
        }
        assert_eq!(session.read(|snapshot| snapshot.threads.len()), 1);
    }
}
