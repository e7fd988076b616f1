//! Reading and appending the v1 event log on disk.
//!
//! The log is sacred: it is only ever appended to, every append is fsynced before it is
//! acknowledged, a torn last line (a crash mid-write) is tolerated with a warning, and a broken
//! line anywhere else is an error that names the file, the line and what is wrong. This module
//! owns the file; the rules about what events mean belong to the fold.
//!
//! An fsync costs a quarter of a millisecond on a quiet disk and several on a busy one, far
//! more than folding and writing a line, so appenders share them (group commit). Each appender folds and writes its lines in turn, under the
//! writer's lock, so seq numbers and the rules stay in order; then, with the lock released, it
//! waits at its [`SyncPoint`] until an fsync that began after its lines were written has
//! returned. One appender runs that fsync and it covers every line written so far, so the
//! appenders that queued up meanwhile are acknowledged together by one fsync instead of taking
//! one each. Acknowledged still means fsynced.
//!
//! A failed fsync is final for a writer: what follows the last good fsync may be lost whatever
//! the page cache says, so every appender whose lines it did not cover is refused, the file and
//! the snapshot are cut back to what was fsynced ([`LogWriter::discard_unsynced`]), and the
//! writer takes no more events until the log is opened again.

use crate::event::{Event, EventBody, EVENT_LOG_VERSION};
use crate::io_reason::{io_reason, io_reason_for};
use crate::log_line::{overlong, parse_line, LineOutcome, ParsedLine};
use crate::parallel_parse::{fold_lines_in_order, BATCH_BYTES};
use crate::snapshot::Snapshot;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::ops::ControlFlow;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// What kind of failure a [`LogError`] is, for callers that map failures to exit codes or
/// statuses: they match on this, never on the message's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogErrorKind {
    /// The file could not be opened, read, locked or written.
    Io(std::io::ErrorKind),
    /// A line is not a v1 event (broken JSON, a wrong envelope).
    Parse,
    /// An event breaks a rule of the fold (a reference to nothing, a sequence out of order),
    /// or a new event was refused for one.
    Fold,
    /// An fsync failed: what was written since the last one is not on disk, and the writer
    /// stops until the log is reopened.
    Durability,
}

/// A log that could not be read or written: the file, the line when there is one, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogError {
    /// The log file.
    pub path: PathBuf,
    /// The 1-based line, when the problem is in one line.
    pub line: Option<usize>,
    /// What kind of failure it is.
    pub kind: LogErrorKind,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.path.display(), line, self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for LogError {}

/// A log read from disk and folded.
#[derive(Debug)]
pub struct LoadedLog {
    /// The folded snapshot.
    pub snapshot: Snapshot,
    /// Things worth telling the user that did not stop the fold (a torn last line).
    pub warnings: Vec<String>,
    /// Bytes of the file that hold whole, folded lines; anything after is a torn tail.
    pub intact_len: u64,
}

/// The UTF-8 byte-order mark, tolerated at the start of a log.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Folds the text of a log. `path` is used only to name the file in errors.
///
/// The lines are parsed on all cores and folded in order ([`crate::parallel_parse`]): the
/// result, warnings and errors are those of a fold that reads one line at a time.
pub fn fold_log_bytes(path: &Path, bytes: &[u8]) -> Result<LoadedLog, LogError> {
    fold_log_bytes_in_batches(path, bytes, BATCH_BYTES)
}

/// [`fold_log_bytes`] with batches of at least `batch_bytes` parsed ahead: tests compare
/// batch sizes down to one line at a time.
fn fold_log_bytes_in_batches(
    path: &Path,
    bytes: &[u8],
    batch_bytes: usize,
) -> Result<LoadedLog, LogError> {
    fold_log_tail(path, bytes, FoldStart::beginning(bytes), batch_bytes).map(|tail| tail.loaded)
}

/// Where a fold of a log's bytes begins.
pub(crate) struct FoldStart {
    /// The snapshot the bytes before `offset` fold into.
    pub(crate) snapshot: Snapshot,
    /// The first byte to fold: just after a line's newline, or after the byte-order mark.
    pub(crate) offset: usize,
    /// How many lines lie before `offset`, so that the lines after it keep their numbers.
    pub(crate) lines_before: usize,
}

impl FoldStart {
    /// The start of a whole log: an empty snapshot, after the byte-order mark if there is one.
    pub(crate) fn beginning(bytes: &[u8]) -> FoldStart {
        // A byte-order mark some editors write is not part of the first line.
        let offset = if bytes.starts_with(UTF8_BOM) {
            UTF8_BOM.len()
        } else {
            0
        };
        FoldStart {
            snapshot: Snapshot::default(),
            offset,
            lines_before: 0,
        }
    }
}

/// A fold of a log's bytes, and how many lines its intact bytes hold.
pub(crate) struct FoldedTail {
    /// The snapshot, warnings and intact length.
    pub(crate) loaded: LoadedLog,
    /// The lines in the intact bytes, counted from the start of the log.
    pub(crate) intact_lines: usize,
}

/// Folds the lines of `bytes` from `start` on into `start`'s snapshot.
pub(crate) fn fold_log_tail(
    path: &Path,
    bytes: &[u8],
    start: FoldStart,
    batch_bytes: usize,
) -> Result<FoldedTail, LogError> {
    let error = |line: usize, kind: LogErrorKind, message: String| LogError {
        path: path.to_owned(),
        line: Some(line),
        kind,
        message,
    };
    let FoldStart {
        mut snapshot,
        offset,
        lines_before,
    } = start;
    let mut warnings = Vec::new();
    let mut intact = offset;
    let mut intact_lines = lines_before;
    // Breaks with the error that ends the fold, or with none at a torn last line.
    let flow = fold_lines_in_order(bytes, offset, lines_before, batch_bytes, |line| {
        let number = line.number;
        let folded = match line.outcome {
            LineOutcome::Blank => Ok(()),
            LineOutcome::Parsed(ParsedLine::Unknown { seq }) => snapshot.skip_unknown(seq),
            LineOutcome::Parsed(ParsedLine::Known(event)) => snapshot.apply(*event),
            LineOutcome::Overlong(message) => {
                return ControlFlow::Break(Some(error(number, LogErrorKind::Parse, message)));
            }
            // Our writers never put a CR outside a line's JSON escapes, so a tail holding one
            // is lines broken by CR alone (an old Mac editor), not a line cut short: cutting it
            // off as torn would throw the whole log away.
            LineOutcome::Broken(_) if !line.terminated && line.raw.contains(&b'\r') => {
                return ControlFlow::Break(Some(error(
                    number,
                    LogErrorKind::Parse,
                    "lines end with a carriage return (CR) alone; a v1 log ends each line with \
                     LF (\\n)"
                        .to_owned(),
                )));
            }
            LineOutcome::Broken(_) if !line.terminated => {
                warnings.push(format!(
                    "{}:{number}: the last line is cut short (a crash mid-write?); kept the {} events before it",
                    path.display(),
                    snapshot.last_seq
                ));
                return ControlFlow::Break(None);
            }
            LineOutcome::Broken(message) => {
                return ControlFlow::Break(Some(error(number, LogErrorKind::Parse, message)));
            }
        };
        match folded {
            Ok(()) => {
                intact = line.end;
                intact_lines = number;
                ControlFlow::Continue(())
            }
            Err(fold) => {
                ControlFlow::Break(Some(error(number, LogErrorKind::Fold, fold.to_string())))
            }
        }
    });
    if let ControlFlow::Break(Some(error)) = flow {
        return Err(error);
    }
    Ok(FoldedTail {
        loaded: LoadedLog {
            snapshot,
            warnings,
            intact_len: intact as u64,
        },
        intact_lines,
    })
}

/// Reads and folds the log at `path`.
pub fn read_log(path: &Path) -> Result<LoadedLog, LogError> {
    let bytes = std::fs::read(path).map_err(|io| read_error(path, &io))?;
    fold_log_bytes(path, &bytes)
}

/// The log at `path` could not be read.
pub(crate) fn read_error(path: &Path, io: &std::io::Error) -> LogError {
    LogError {
        path: path.to_owned(),
        line: None,
        kind: LogErrorKind::Io(io.kind()),
        message: format!("cannot read the log: {}", io_reason(io)),
    }
}

/// Locks a mutex whose holder may have panicked. Every value behind these locks is changed by
/// whole assignments, so a poisoned one is still consistent.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How far a log's bytes have got: written (in the page cache), fsynced, or lost to a failed
/// fsync.
#[derive(Debug)]
struct Progress {
    /// Bytes of whole lines written.
    written: u64,
    /// Bytes an fsync has made durable; never more than `written`, never goes back.
    synced: u64,
    /// Whether an fsync is running; callers that need one meanwhile wait for it to end.
    syncing: bool,
    /// Why the log stopped taking events: an fsync failed, so what follows `synced` may be
    /// lost, whatever the page cache says.
    failed: Option<String>,
}

/// The part of a log that appenders share outside the writer's lock: the file, for fsync, and
/// how far it is durable. A writer that let its file go ([`LogWriter::release_file`]) has a
/// `Durability` without one, and nothing in it left to fsync.
#[derive(Debug)]
struct Durability {
    path: PathBuf,
    file: Option<Arc<File>>,
    progress: Mutex<Progress>,
    /// Signalled whenever an fsync ends, waking every caller waiting for one at once.
    fsync_ended: Condvar,
    /// Makes the next fsync fail, to test what a failed fsync leaves behind.
    #[cfg(test)]
    fail_next_sync: std::sync::atomic::AtomicBool,
}

impl Durability {
    /// The durability of a log whose first `len` bytes are fsynced and nothing else written.
    fn synced_to(path: &Path, file: Option<Arc<File>>, len: u64) -> Durability {
        Durability {
            path: path.to_owned(),
            file,
            progress: Mutex::new(Progress {
                written: len,
                synced: len,
                syncing: false,
                failed: None,
            }),
            fsync_ended: Condvar::new(),
            #[cfg(test)]
            fail_next_sync: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn progress(&self) -> MutexGuard<'_, Progress> {
        lock(&self.progress)
    }

    fn fsync(&self) -> std::io::Result<()> {
        #[cfg(test)]
        if self
            .fail_next_sync
            .swap(false, std::sync::atomic::Ordering::SeqCst)
        {
            return Err(std::io::Error::other("injected fsync failure"));
        }
        // Without a file there is nothing written that is not already durable.
        self.file.as_ref().map_or(Ok(()), |file| file.sync_data())
    }

    fn error(&self, message: &str) -> LogError {
        LogError {
            path: self.path.clone(),
            line: None,
            kind: LogErrorKind::Durability,
            message: message.to_owned(),
        }
    }
}

/// Releases a log's file lock when dropped.
struct Unlock<'f>(&'f File);

impl Drop for Unlock<'_> {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

/// A place in a log: everything written before it is acknowledged only once an fsync has
/// covered it. Returned by [`LogWriter::append_all_unsynced`] and [`LogWriter::sync_point`].
#[derive(Clone, Debug)]
pub struct SyncPoint {
    end: u64,
    log: Arc<Durability>,
}

impl SyncPoint {
    /// Whether an fsync has covered this point (never blocks).
    pub fn is_synced(&self) -> bool {
        self.log.progress().synced >= self.end
    }

    /// Where this point stands, without blocking or running an fsync: `Some(Ok(()))` once an
    /// fsync has covered it, `Some(Err(_))` once an fsync failed first (it never will be),
    /// `None` while it waits. For callers that wait on their own terms (an async task woken
    /// whenever an fsync ends) rather than in [`SyncPoint::sync`].
    pub fn outcome(&self) -> Option<Result<(), LogError>> {
        let progress = self.log.progress();
        if progress.synced >= self.end {
            Some(Ok(()))
        } else {
            progress
                .failed
                .as_ref()
                .map(|message| Err(self.log.error(message)))
        }
    }

    /// Returns once an fsync that began after this point was written has returned, running
    /// that fsync itself when none is running. Blocking.
    ///
    /// Callers that queue up while one fsync runs are covered by the next one together, so
    /// concurrent appenders share fsyncs (group commit). An error means the bytes before this
    /// point may not be on disk: the fsync failed, now or earlier, and the log takes no more
    /// events (see [`LogWriter::discard_unsynced`]).
    pub fn sync(&self) -> Result<(), LogError> {
        let log = &self.log;
        let mut progress = log.progress();
        loop {
            if progress.synced >= self.end {
                return Ok(());
            }
            if let Some(message) = &progress.failed {
                return Err(log.error(message));
            }
            if progress.syncing {
                // That fsync may have begun before this point was written; once it ends, look
                // again, and run the next one if it did not cover this point.
                progress = log
                    .fsync_ended
                    .wait(progress)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            // Everything written so far, not only this point: the fsync covers it all anyway,
            // and `target >= self.end`, since this point was written before it was handed out.
            let target = progress.written;
            progress.syncing = true;
            drop(progress);
            let result = log.fsync();
            progress = log.progress();
            progress.syncing = false;
            match result {
                Ok(()) => progress.synced = progress.synced.max(target),
                Err(io) => {
                    progress.failed = Some(format!(
                        "cannot make the log durable: fsync failed ({}); the events after byte \
                         {} are not acknowledged and are cut off, and the log takes no more \
                         events until it is opened again",
                        io_reason(&io),
                        progress.synced
                    ));
                }
            }
            log.fsync_ended.notify_all();
        }
    }
}

/// Appends events to a log, keeping its snapshot in step, with group commit.
///
/// An append is two steps. [`LogWriter::append_all_unsynced`] folds the events (so an event
/// that breaks a rule is never written) and writes them as lines; it takes `&mut self`, so
/// its callers take turns (a mutex around the writer), which keeps seq numbers and the rules
/// in order. The [`SyncPoint`] it returns is then waited on with the writer free for the next
/// appender, and the events are acknowledged only once it is synced. [`LogWriter::append_all`]
/// does both at once, for a caller that is alone with its writer.
///
/// The snapshot is that of everything written, so it can be ahead of the disk by the lines
/// whose fsync is still running; [`LogWriter::sync_point`] says how far a reader must wait
/// before it may treat what it read as durable.
#[derive(Debug)]
pub struct LogWriter {
    path: PathBuf,
    snapshot: Snapshot,
    /// Bytes of whole lines written (durable or not); `Progress::written` follows it.
    len: u64,
    /// The open file, or `None` once released while idle; opened again when needed.
    file: Option<Arc<File>>,
    log: Arc<Durability>,
    /// What opening the log found worth saying (a torn last line, cut off).
    open_warnings: Vec<String>,
}

impl LogWriter {
    /// Opens a log for appending, creating it when missing. A torn last line is cut off first,
    /// so the next event starts on a line of its own.
    pub fn open(path: &Path) -> Result<Self, LogError> {
        let fail = |io: &std::io::Error, message: String| LogError {
            path: path.to_owned(),
            line: None,
            kind: LogErrorKind::Io(io.kind()),
            message,
        };
        // A log holds what the human and the agents said: readable by its owner alone.
        let file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .mode(0o600)
            .open(path)
            .map_err(|io| {
                fail(
                    &io,
                    format!(
                        "cannot open the log for appending: {}",
                        io_reason_for(path, &io)
                    ),
                )
            })?;
        // Other writers hold the file lock while they write a line, so under it a line
        // without its newline is really torn (a crash mid-write), never one being written.
        file.lock()
            .map_err(|io| fail(&io, format!("cannot lock the log: {}", io_reason(&io))))?;
        let unlock = Unlock(&file);
        let loaded = read_log(path)?;
        let on_disk = file
            .metadata()
            .map_err(|io| fail(&io, io_reason(&io)))?
            .len();
        if on_disk > loaded.intact_len {
            file.set_len(loaded.intact_len)
                .and_then(|()| file.sync_all())
                .map_err(|io| {
                    fail(
                        &io,
                        format!("cannot cut off the torn last line: {}", io_reason(&io)),
                    )
                })?;
        }
        drop(unlock);
        let file = Arc::new(file);
        let log = Arc::new(Durability::synced_to(
            path,
            Some(file.clone()),
            loaded.intact_len,
        ));
        Ok(Self {
            path: path.to_owned(),
            snapshot: loaded.snapshot,
            len: loaded.intact_len,
            file: Some(file),
            log,
            open_warnings: loaded.warnings,
        })
    }

    /// Closes the file while the writer is idle, keeping the snapshot, so that a process
    /// following thousands of logs holds a file handle only for those in use. The next
    /// append, or a look that finds the log grown, opens it again. Returns false, and keeps
    /// the file, while an fsync is running or after one failed (the writer must stay
    /// stopped). Lines folded from other writers and not yet fsynced here are fsynced first,
    /// so nothing read from the log is taken for durable before it is: blocking.
    pub fn release_file(&mut self) -> bool {
        if self.file.is_none() {
            return true;
        }
        {
            let progress = self.log.progress();
            if progress.syncing || progress.failed.is_some() {
                return false;
            }
        }
        if self.sync_point().sync().is_err() {
            return false;
        }
        // Sync points handed out before keep the old `Durability`, all of them covered.
        self.file = None;
        self.log = Arc::new(Durability::synced_to(&self.path, None, self.len));
        true
    }

    /// Whether the writer holds its file open now (see [`LogWriter::release_file`]).
    pub fn holds_file(&self) -> bool {
        self.file.is_some()
    }

    /// The open file, opening it again if it was released. It is never created here: a log
    /// that vanished while released is an error, not a fresh empty log.
    fn file(&mut self) -> Result<Arc<File>, LogError> {
        if let Some(file) = &self.file {
            return Ok(file.clone());
        }
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(&self.path)
            .map_err(|io| {
                self.error(
                    LogErrorKind::Io(io.kind()),
                    format!("cannot open the log again: {}", io_reason(&io)),
                )
            })?;
        let file = Arc::new(file);
        self.file = Some(file.clone());
        self.log = Arc::new(Durability::synced_to(
            &self.path,
            Some(file.clone()),
            self.len,
        ));
        Ok(file)
    }

    /// What opening the log found worth telling the user, such as a torn last line that was
    /// cut off, so a caller need not read the log a second time to learn it.
    pub fn open_warnings(&self) -> &[String] {
        &self.open_warnings
    }

    /// The snapshot of everything written so far, which may include lines whose fsync is
    /// still running (see [`LogWriter::sync_point`]).
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Folds the whole lines that another writer appended since this writer last wrote or
    /// looked, and returns their events. A line still being written (no newline
    /// yet) is left for the next look. Appends call it (under the file lock) before they
    /// write, so this writer's sequence numbers follow the others'; a reader that follows a
    /// growing log calls it to see what is new.
    pub fn catch_up(&mut self) -> Result<Vec<Event>, LogError> {
        use std::os::unix::fs::FileExt;
        // A released file is looked at by path, so a log that has not grown stays closed.
        let metadata = match &self.file {
            Some(file) => file.metadata(),
            None => std::fs::metadata(&self.path),
        };
        let end = metadata
            .map_err(|io| {
                self.error(
                    LogErrorKind::Io(io.kind()),
                    format!("cannot read the log: {}", io_reason(&io)),
                )
            })?
            .len();
        if end <= self.len {
            return Ok(Vec::new());
        }
        let file = self.file()?;
        let mut bytes = vec![0; usize::try_from(end - self.len).unwrap_or(usize::MAX)];
        file.read_exact_at(&mut bytes, self.len).map_err(|io| {
            self.error(
                LogErrorKind::Io(io.kind()),
                format!("cannot read the log: {}", io_reason(&io)),
            )
        })?;
        let mut folded = Vec::new();
        let mut offset = 0usize;
        while let Some(end) = memchr::memchr(b'\n', &bytes[offset..]) {
            let raw = &bytes[offset..offset + end];
            let at = self.len + offset as u64;
            let parsed = match parse_line(raw) {
                LineOutcome::Blank => None,
                LineOutcome::Parsed(parsed) => Some(parsed),
                LineOutcome::Overlong(message) | LineOutcome::Broken(message) => {
                    return Err(self.error(
                        LogErrorKind::Parse,
                        format!("the line at byte {at}: {message}"),
                    ));
                }
            };
            match parsed {
                None => {}
                Some(ParsedLine::Unknown { seq }) => {
                    self.snapshot.skip_unknown(seq).map_err(|fold| {
                        self.error(LogErrorKind::Fold, format!("the line at byte {at}: {fold}"))
                    })?;
                }
                Some(ParsedLine::Known(event)) => {
                    self.snapshot.apply((*event).clone()).map_err(|fold| {
                        self.error(LogErrorKind::Fold, format!("the line at byte {at}: {fold}"))
                    })?;
                    folded.push(*event);
                }
            }
            offset += end + 1;
        }
        // A line still being written that is already too long never becomes an event: say so
        // now rather than read it again, longer, at every look.
        if let Some(message) = overlong(bytes.len() - offset) {
            let at = self.len + offset as u64;
            return Err(self.error(
                LogErrorKind::Parse,
                format!("the line at byte {at}: {message}"),
            ));
        }
        self.len += offset as u64;
        let mut progress = self.log.progress();
        progress.written = progress.written.max(self.len);
        Ok(folded)
    }

    /// The point just after everything written so far: once it is synced, all that
    /// [`LogWriter::snapshot`] shows now is on disk.
    pub fn sync_point(&self) -> SyncPoint {
        SyncPoint {
            end: self.len,
            log: self.log.clone(),
        }
    }

    /// Folds, writes and fsyncs one event; returns it as written.
    pub fn append(&mut self, body: EventBody) -> Result<Event, LogError> {
        let mut written = self.append_all([body])?;
        Ok(written
            .pop()
            .expect("append_all returns one event per body"))
    }

    /// Folds and writes many events, with one fsync at the end (for bulk writers such as the
    /// generator). Nothing is acknowledged until that fsync returns, and when any event breaks a
    /// rule, none of them is written.
    pub fn append_all(
        &mut self,
        bodies: impl IntoIterator<Item = EventBody>,
    ) -> Result<Vec<Event>, LogError> {
        let (written, point) = self.append_all_unsynced(bodies)?;
        if let Err(error) = point.sync() {
            self.discard_unsynced();
            return Err(error);
        }
        Ok(written)
    }

    /// Folds and writes events without waiting for the disk: they may be acknowledged only
    /// once the returned point is synced ([`SyncPoint::sync`]), and the writer can take the
    /// next append meanwhile. When any event breaks a rule, none is written; after a failed
    /// fsync, nothing is.
    pub fn append_all_unsynced(
        &mut self,
        bodies: impl IntoIterator<Item = EventBody>,
    ) -> Result<(Vec<Event>, SyncPoint), LogError> {
        let failed = self.log.progress().failed.clone();
        if let Some(message) = failed {
            self.discard_unsynced();
            return Err(self.error(LogErrorKind::Durability, message));
        }
        // Any number of writers, in any processes, may append to one log: each holds an
        // exclusive lock on the file while it folds what the others wrote and writes its own
        // lines, so lines never interleave and sequence numbers never repeat.
        let file = self.file()?;
        file.lock().map_err(|io| {
            self.error(
                LogErrorKind::Io(io.kind()),
                format!("cannot lock the log: {}", io_reason(&io)),
            )
        })?;
        let _unlock = Unlock(&file);
        self.catch_up()?;
        let at = OffsetDateTime::now_utc()
            .format(&Rfc3339)
            .map_err(|error| {
                self.error(
                    LogErrorKind::Io(std::io::ErrorKind::Other),
                    format!("cannot format the time: {error}"),
                )
            })?;
        let mut text = String::new();
        let mut written = Vec::new();
        for body in bodies {
            let event = Event {
                v: EVENT_LOG_VERSION,
                seq: self.snapshot.last_seq + 1,
                at: at.clone(),
                body,
            };
            text.push_str(&event.to_line());
            text.push('\n');
            if let Err(fold) = self.snapshot.apply(event.clone()) {
                // Nothing reached the file, and a refused event leaves the snapshot as it was;
                // only the events of this call before it must be taken back out.
                if !written.is_empty() {
                    self.reload();
                }
                return Err(self.error(LogErrorKind::Fold, fold.to_string()));
            }
            written.push(event);
        }
        if !text.is_empty() {
            if let Err(io) = (&*file).write_all(text.as_bytes()) {
                // Cut off whatever part of the lines got written; the lines before them stay,
                // whether their fsync has run yet or not.
                let _ = file.set_len(self.len).and_then(|()| file.sync_all());
                self.reload();
                return Err(self.error(
                    LogErrorKind::Io(io.kind()),
                    format!("cannot append to the log: {}", io_reason(&io)),
                ));
            }
            self.len += text.len() as u64;
            self.log.progress().written = self.len;
        }
        Ok((written, self.sync_point()))
    }

    /// After a failed fsync, cuts the file back to its last fsynced byte and the snapshot
    /// with it, so neither shows an event that was not acknowledged. Does nothing otherwise.
    ///
    /// The log takes no more events afterwards: once an fsync has failed, the kernel may have
    /// dropped pages it reported written, so a later fsync that succeeds proves nothing about
    /// them. Opening the log again (a restart) reads what is really there.
    pub fn discard_unsynced(&mut self) {
        let synced = {
            let mut progress = self.log.progress();
            if progress.failed.is_none() || progress.synced == self.len {
                return;
            }
            progress.written = progress.synced;
            progress.synced
        };
        // Best effort: if the cut fails, the snapshot still shows only the durable bytes. A
        // failed fsync needs the file, so a writer with one to discard still holds it.
        if let Some(file) = &self.file {
            let _ = file.set_len(synced).and_then(|()| file.sync_all());
        }
        self.len = synced;
        self.reload();
    }

    fn error(&self, kind: LogErrorKind, message: String) -> LogError {
        LogError {
            path: self.path.clone(),
            line: None,
            kind,
            message,
        }
    }

    /// Folds the snapshot again from the first `len` bytes of the file, so memory and the
    /// file agree after an append that did not go through. Keeps the old snapshot when the
    /// file cannot be read.
    fn reload(&mut self) {
        let len = usize::try_from(self.len).unwrap_or(usize::MAX);
        if let Ok(bytes) = std::fs::read(&self.path) {
            if let Some(Ok(loaded)) = bytes
                .get(..len)
                .map(|kept| fold_log_bytes(&self.path, kept))
            {
                self.snapshot = loaded.snapshot;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log_line::MAX_LINE_BYTES;
    use crate::nodes::{MessageSpec, Role, ThreadKind, ThreadSpec};

    const HEAD: &str = concat!(
        r#"{"v":1,"seq":1,"at":"2026-11-30T09:00:00Z","type":"session_started","session":{"id":"s","title":"T"}}"#,
        "\n",
        r#"{"v":1,"seq":2,"at":"2026-11-30T09:00:01Z","type":"thread_opened","thread":{"id":"t1","parent":null,"title":"Main","kind":"topic"}}"#,
        "\n",
    );

    fn message_line(seq: u64, id: &str) -> String {
        format!(
            r#"{{"v":1,"seq":{seq},"at":"2026-11-30T09:00:0{seq}Z","type":"message_appended","message":{{"id":"{id}","thread_id":"t1","role":"agent","text":"hi"}}}}"#
        )
    }

    #[test]
    fn torn_last_line_is_a_warning_and_keeps_what_came_before() {
        let text = format!(
            "{HEAD}{}\n{}",
            message_line(3, "m1"),
            &message_line(4, "m2")[..40]
        );
        let loaded = fold_log_bytes(Path::new("s.jsonl"), text.as_bytes()).unwrap();
        assert_eq!(loaded.snapshot.messages.len(), 1);
        assert_eq!(loaded.warnings.len(), 1);
        assert!(
            loaded.warnings[0].starts_with("s.jsonl:4:"),
            "{:?}",
            loaded.warnings
        );
        assert_eq!(loaded.intact_len as usize, text.len() - 40);
    }

    #[test]
    fn broken_middle_line_names_file_and_line() {
        let text = format!("{HEAD}{{\"v\":1,\"seq\":3\n{}\n", message_line(4, "m2"));
        let error = fold_log_bytes(Path::new("s.jsonl"), text.as_bytes()).unwrap_err();
        assert_eq!(error.line, Some(3));
        assert!(
            error.to_string().starts_with("s.jsonl:3: not a v1 event"),
            "{error}"
        );
    }

    #[test]
    fn unknown_event_types_are_kept_and_skipped() {
        let text = format!(
            "{HEAD}{}\n{}\n",
            r#"{"v":1,"seq":3,"at":"2026-11-30T09:00:03Z","type":"reaction_added","emoji":"+1"}"#,
            message_line(4, "m1")
        );
        let loaded = fold_log_bytes(Path::new("s.jsonl"), text.as_bytes()).unwrap();
        assert_eq!(loaded.snapshot.unknown_events, 1);
        assert_eq!(loaded.snapshot.last_seq, 4);
        assert!(loaded.warnings.is_empty());
    }

    #[test]
    fn an_unknown_type_is_no_way_around_the_seq_order() {
        let text = format!(
            "{HEAD}{}\n{}\n",
            message_line(3, "m1"),
            r#"{"v":1,"seq":2,"at":"2026-11-30T09:00:03Z","type":"reaction_added","emoji":"+1"}"#,
        );
        let error = fold_log_bytes(Path::new("s.jsonl"), text.as_bytes()).unwrap_err();
        assert_eq!(error.line, Some(4));
        assert!(
            error.message.contains("seq 2 does not follow seq 3"),
            "{error}"
        );
    }

    #[test]
    fn a_bad_timestamp_or_version_is_named() {
        let text = format!(
            "{HEAD}{}\n",
            message_line(3, "m1").replace("2026-11-30T09:00:03Z", "yesterday")
        );
        let error = fold_log_bytes(Path::new("s.jsonl"), text.as_bytes()).unwrap_err();
        assert!(error.message.contains("RFC 3339"), "{error}");
        let text = format!(
            "{HEAD}{}\n",
            message_line(3, "m1").replace("\"v\":1", "\"v\":2")
        );
        let error = fold_log_bytes(Path::new("s.jsonl"), text.as_bytes()).unwrap_err();
        assert!(error.message.contains("v=2"), "{error}");
    }

    fn temp_log(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("chatsurface-model-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log.jsonl");
        let _ = std::fs::remove_file(&path);
        path
    }

    fn message(id: &str) -> EventBody {
        EventBody::MessageAppended {
            message: MessageSpec {
                id: id.into(),
                thread_id: "t1".into(),
                role: Role::User,
                text: "ok".into(),
            },
        }
    }

    #[test]
    fn writer_cuts_a_torn_tail_then_appends_whole_lines() {
        let path = temp_log("torn");
        std::fs::write(&path, format!("{HEAD}{}", &message_line(3, "m1")[..30])).unwrap();
        let mut writer = LogWriter::open(&path).unwrap();
        assert_eq!(writer.open_warnings().len(), 1, "the cut is reported");
        assert!(writer.open_warnings()[0].contains("cut short"));
        let event = writer.append(message("m9")).unwrap();
        assert_eq!(event.seq, 3);
        let reread = read_log(&path).unwrap();
        assert!(reread.warnings.is_empty());
        assert_eq!(reread.snapshot.messages[0].spec.id.as_str(), "m9");
    }

    #[test]
    fn opening_a_log_while_another_writer_appends_cuts_nothing() {
        let path = temp_log("open-while-writing");
        std::fs::write(&path, HEAD).unwrap();
        let writing = {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut writer = LogWriter::open(&path).unwrap();
                for index in 0..400 {
                    writer.append(message(&format!("w{index}"))).unwrap();
                }
            })
        };
        while !writing.is_finished() {
            drop(LogWriter::open(&path).unwrap());
        }
        writing.join().unwrap();
        let loaded = read_log(&path).unwrap();
        assert_eq!(
            loaded.snapshot.messages.len(),
            400,
            "every acknowledged line is kept"
        );
    }

    #[test]
    fn two_writers_on_one_log_take_turns_and_never_repeat_a_sequence_number() {
        let path = temp_log("two-writers");
        std::fs::write(&path, HEAD).unwrap();
        let threads: Vec<_> = ["a", "b"]
            .into_iter()
            .map(|name| {
                let path = path.clone();
                std::thread::spawn(move || {
                    let mut writer = LogWriter::open(&path).unwrap();
                    for index in 0..150 {
                        writer.append(message(&format!("{name}{index}"))).unwrap();
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        let loaded = read_log(&path).unwrap();
        assert!(loaded.warnings.is_empty());
        assert_eq!(loaded.snapshot.messages.len(), 300);
        assert_eq!(loaded.snapshot.last_seq, 302);
    }

    #[test]
    fn catch_up_folds_lines_another_writer_appended_and_waits_for_a_partial_one() {
        let path = temp_log("catch-up");
        std::fs::write(&path, HEAD).unwrap();
        let mut window = LogWriter::open(&path).unwrap();
        window.append(message("m1")).unwrap();
        let mut agent = LogWriter::open(&path).unwrap();
        agent.append(message("m2")).unwrap();
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        let partial = message_line(5, "m3");
        file.write_all(&partial.as_bytes()[..10]).unwrap();
        assert_eq!(window.catch_up().unwrap().len(), 1);
        assert_eq!(window.snapshot().messages.len(), 2);
        file.write_all(&partial.as_bytes()[10..]).unwrap();
        file.write_all(b"\n").unwrap();
        assert_eq!(window.catch_up().unwrap().len(), 1);
        let written = window.append(message("m4")).unwrap();
        assert_eq!(
            written.seq, 6,
            "the window's next event follows the agent's"
        );
        assert_eq!(read_log(&path).unwrap().snapshot.messages.len(), 4);
    }

    /// A message line whose text makes it `len` bytes long.
    fn line_of(seq: u64, len: usize) -> String {
        let short = message_line(seq, "long");
        short.replace(
            "\"hi\"",
            &format!("\"{}\"", "x".repeat(len - short.len() + 2)),
        )
    }

    #[test]
    fn a_line_over_the_cap_is_refused_by_its_number_and_one_at_the_cap_folds() {
        let at_cap = format!("{HEAD}{}\n", line_of(3, MAX_LINE_BYTES));
        let loaded = fold_log_bytes(Path::new("s.jsonl"), at_cap.as_bytes()).unwrap();
        assert_eq!(loaded.snapshot.messages.len(), 1);
        for terminated in ["\n", ""] {
            let over = format!("{HEAD}{}{terminated}", line_of(3, MAX_LINE_BYTES + 1));
            let error = fold_log_bytes(Path::new("s.jsonl"), over.as_bytes()).unwrap_err();
            assert_eq!((error.line, error.kind), (Some(3), LogErrorKind::Parse));
            assert!(
                error
                    .to_string()
                    .starts_with("s.jsonl:3: a line of 16.0 MiB")
                    && error.message.contains("at most 16 MiB"),
                "{error}"
            );
        }
    }

    #[test]
    fn catch_up_refuses_a_line_that_grows_past_the_cap_before_it_ends() {
        let path = temp_log("endless");
        std::fs::write(&path, HEAD).unwrap();
        let mut window = LogWriter::open(&path).unwrap();
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(&vec![b'{'; MAX_LINE_BYTES]).unwrap();
        assert!(window.catch_up().unwrap().is_empty(), "not too long yet");
        file.write_all(b"{").unwrap();
        let error = window.catch_up().unwrap_err();
        assert_eq!(error.kind, LogErrorKind::Parse);
        assert!(
            error
                .message
                .contains(&format!("the line at byte {}", HEAD.len()))
                && error.message.contains("at most 16 MiB"),
            "{error}"
        );
    }

    #[test]
    fn writer_refuses_a_rule_breaking_event_and_writes_nothing() {
        let path = temp_log("refuse");
        let mut writer = LogWriter::open(&path).unwrap();
        open_topic(&mut writer);
        let before = std::fs::read(&path).unwrap();
        let orphan = EventBody::MessageAppended {
            message: MessageSpec {
                id: "m1".into(),
                thread_id: "nope".into(),
                role: Role::Agent,
                text: "x".into(),
            },
        };
        let error = writer.append_all([message("m0"), orphan]).unwrap_err();
        assert!(error.message.contains("names no opened thread"), "{error}");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            before,
            "a refused append leaves the file as it was"
        );
        assert_eq!(writer.snapshot().messages.len(), 0, "and the snapshot too");
        writer.append(message("m1")).unwrap();
        assert_eq!(read_log(&path).unwrap().snapshot.messages.len(), 1);
    }

    fn open_topic(writer: &mut LogWriter) {
        writer
            .append(EventBody::ThreadOpened {
                thread: ThreadSpec {
                    id: "t1".into(),
                    parent: None,
                    title: "Main".into(),
                    kind: ThreadKind::Topic,
                },
            })
            .unwrap();
    }

    fn snapshot_json(snapshot: &Snapshot) -> serde_json::Value {
        serde_json::to_value(snapshot).unwrap()
    }

    #[test]
    fn one_fsync_covers_every_line_written_before_it() {
        let path = temp_log("group");
        let mut writer = LogWriter::open(&path).unwrap();
        open_topic(&mut writer);
        let (_, first) = writer.append_all_unsynced([message("m1")]).unwrap();
        let (_, second) = writer.append_all_unsynced([message("m2")]).unwrap();
        assert!(!first.is_synced() && !second.is_synced());
        assert!(
            first.outcome().is_none(),
            "waiting, and asking runs no fsync"
        );
        first.sync().unwrap();
        assert!(matches!(second.outcome(), Some(Ok(()))));
        assert!(
            second.is_synced(),
            "the fsync for the first covered the second, written before it began"
        );
        assert!(writer.sync_point().is_synced());
        assert_eq!(read_log(&path).unwrap().snapshot.messages.len(), 2);
    }

    #[test]
    fn concurrent_appenders_each_land_once_in_seq_order() {
        let path = temp_log("concurrent");
        let mut writer = LogWriter::open(&path).unwrap();
        open_topic(&mut writer);
        let writer = Mutex::new(writer);
        let acknowledged: Vec<(u64, String)> = std::thread::scope(|scope| {
            let appenders: Vec<_> = (0..8)
                .map(|thread| {
                    let writer = &writer;
                    scope.spawn(move || {
                        let mut mine = Vec::new();
                        for index in 0..40 {
                            let id = format!("m{thread}-{index}");
                            // Every fifth append of every appender breaks a rule.
                            let body = if index % 5 == 4 {
                                EventBody::MessageAppended {
                                    message: MessageSpec {
                                        id: id.as_str().into(),
                                        thread_id: "nope".into(),
                                        role: Role::Agent,
                                        text: "x".into(),
                                    },
                                }
                            } else {
                                message(&id)
                            };
                            let written = lock(writer).append_all_unsynced([body]);
                            match written {
                                Ok((events, point)) => {
                                    point.sync().unwrap();
                                    mine.push((events[0].seq, id));
                                }
                                Err(error) => {
                                    assert_eq!(index % 5, 4, "{error}");
                                    assert!(error.message.contains("names no opened thread"));
                                }
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
        assert_eq!(acknowledged.len(), 8 * 32);
        let reread = read_log(&path).unwrap();
        let on_disk: Vec<(u64, String)> = reread
            .snapshot
            .timeline
            .iter()
            .filter_map(|entry| match entry.node {
                crate::NodeRef::Message(index) => Some((
                    entry.seq,
                    reread.snapshot.messages[index].spec.id.to_string(),
                )),
                _ => None,
            })
            .collect();
        let mut expected = acknowledged;
        expected.sort();
        assert_eq!(
            on_disk, expected,
            "every acknowledged event, once, in seq order"
        );
        assert_eq!(reread.snapshot.last_seq, 1 + 8 * 32);
        let writer = writer.into_inner().unwrap();
        assert_eq!(
            snapshot_json(&reread.snapshot),
            snapshot_json(writer.snapshot())
        );
    }

    #[test]
    fn a_failed_fsync_refuses_what_it_did_not_cover_and_cuts_back_to_what_it_did() {
        let path = temp_log("failed-sync");
        let mut writer = LogWriter::open(&path).unwrap();
        open_topic(&mut writer);
        writer.append(message("m1")).unwrap();
        let durable = std::fs::read(&path).unwrap();
        let synced = writer.sync_point();
        let (_, second) = writer.append_all_unsynced([message("m2")]).unwrap();
        let (_, third) = writer.append_all_unsynced([message("m3")]).unwrap();
        writer
            .log
            .fail_next_sync
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let error = third.sync().unwrap_err();
        assert!(
            error
                .message
                .starts_with("cannot make the log durable: fsync failed"),
            "{error}"
        );
        assert!(second.sync().is_err(), "the second was not covered either");
        assert_eq!(
            second.outcome().unwrap().unwrap_err().message,
            error.message
        );
        assert!(matches!(synced.outcome(), Some(Ok(()))));
        assert!(
            synced.sync().is_ok(),
            "what was fsynced before stays acknowledged"
        );
        let refused = writer.append(message("m4")).unwrap_err();
        assert_eq!(refused.message, error.message);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            durable,
            "cut back to the fsynced bytes"
        );
        assert_eq!(
            writer.snapshot().messages.len(),
            1,
            "and the snapshot with it"
        );
        assert!(writer.sync_point().is_synced());
        assert_eq!(
            snapshot_json(&read_log(&path).unwrap().snapshot),
            snapshot_json(writer.snapshot())
        );
        assert!(
            writer.append(message("m5")).is_err(),
            "and it takes no more"
        );
    }

    #[test]
    fn a_byte_order_mark_is_skipped_and_cr_only_lines_are_an_error_never_a_torn_tail() {
        let path = temp_log("bom-and-cr");
        let line = message_line(3, "m1");
        std::fs::write(&path, format!("\u{feff}{HEAD}{line}")).unwrap();
        let loaded = read_log(&path).unwrap();
        assert_eq!(loaded.snapshot.last_seq, 3);
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);

        let cr_only = format!("{HEAD}{line}").replace('\n', "\r");
        std::fs::write(&path, &cr_only).unwrap();
        let error = read_log(&path).unwrap_err();
        assert_eq!(error.kind, LogErrorKind::Parse);
        assert!(
            error.message.contains("carriage return (CR) alone"),
            "{error}"
        );
        assert!(LogWriter::open(&path).is_err());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            cr_only,
            "nothing cut off"
        );
    }

    /// Whether this process has `path` open, read from /proc/self/fd.
    fn process_holds(path: &Path) -> bool {
        std::fs::read_dir("/proc/self/fd")
            .unwrap()
            .filter_map(|entry| std::fs::read_link(entry.ok()?.path()).ok())
            .any(|target| target == path)
    }

    #[test]
    fn a_released_file_is_closed_and_opened_again_only_when_needed() {
        let path = temp_log("released");
        let mut writer = LogWriter::open(&path).unwrap();
        open_topic(&mut writer);
        let (_, unsynced) = writer.append_all_unsynced([message("m1")]).unwrap();
        assert!(writer.release_file(), "after the fsync it runs");
        assert!(!writer.holds_file());
        assert!(
            unsynced.is_synced(),
            "points handed out before stay covered"
        );
        drop(unsynced);
        assert!(!process_holds(&path), "the handle is closed");

        // A look at a log that has not grown keeps it closed.
        assert!(writer.catch_up().unwrap().is_empty());
        assert!(!process_holds(&path));

        // Another writer appends; the released one folds that, then appends after it.
        let mut other = LogWriter::open(&path).unwrap();
        other.append(message("m2")).unwrap();
        drop(other);
        assert_eq!(writer.catch_up().unwrap().len(), 1);
        assert!(writer.release_file());
        assert_eq!(
            writer.append(message("m3")).unwrap().seq,
            4,
            "after m2, seq 3"
        );
        assert!(writer.holds_file());
        let reread = read_log(&path).unwrap().snapshot;
        let ids: Vec<_> = reread.messages.iter().map(|m| m.spec.id.as_str()).collect();
        assert_eq!(ids, ["m1", "m2", "m3"]);
    }

    #[test]
    fn a_log_removed_while_released_is_an_error_not_a_new_log() {
        let path = temp_log("removed");
        let mut writer = LogWriter::open(&path).unwrap();
        open_topic(&mut writer);
        assert!(writer.release_file());
        std::fs::remove_file(&path).unwrap();
        let error = writer.append(message("m1")).unwrap_err();
        assert!(
            error.message.contains("cannot open the log again"),
            "{error}"
        );
        assert!(!path.exists());
    }

    /// A log of `messages` messages over a few threads, with escapes and Russian text, long
    /// enough that its lines are parsed in many batches on the pool.
    fn long_log(messages: u64) -> String {
        let mut text = HEAD.to_owned();
        text.push_str(concat!(
            r#"{"v":1,"seq":3,"at":"2026-11-30T09:00:03Z","type":"thread_opened","thread":{"id":"t2","parent":"t1","title":"Ветка","kind":"branch"}}"#,
            "\n"
        ));
        for n in 0..messages {
            let seq = n + 4;
            let thread = if n % 3 == 0 { "t2" } else { "t1" };
            text.push_str(&format!(
                r#"{{"v":1,"seq":{seq},"at":"2026-11-30T{:02}:{:02}:{:02}Z","type":"message_appended","message":{{"id":"m{n}","thread_id":"{thread}","role":"agent","text":"сообщение {n} \"quoted\"\n"}}}}"#,
                10 + seq / 3600 % 10,
                seq / 60 % 60,
                seq % 60
            ));
            text.push('\n');
        }
        text
    }

    /// What a fold gave, in a form two folds can be compared by: the snapshot (with its
    /// timeline, which serde skips), the warnings and the intact length, or the error.
    fn fold_result(bytes: &[u8], batch_bytes: usize) -> Result<String, LogError> {
        fold_log_bytes_in_batches(Path::new("s.jsonl"), bytes, batch_bytes).map(|loaded| {
            format!(
                "{}\n{:?}\n{:?}\n{}",
                snapshot_json(&loaded.snapshot),
                loaded.snapshot.timeline,
                loaded.warnings,
                loaded.intact_len
            )
        })
    }

    /// Logs spoiled at pseudo-random places: a byte changed, the file cut short, a line
    /// written twice, two lines swapped, a line emptied.
    fn mutations(text: &str, count: usize) -> Vec<Vec<u8>> {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below as u64) as usize
        };
        let bytes = text.as_bytes();
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        (0..count)
            .map(|n| match n % 5 {
                0 => {
                    let mut spoiled = bytes.to_vec();
                    let replacements = b"\"{}\n\r,x\xFF9";
                    spoiled[next(bytes.len())] = replacements[next(replacements.len())];
                    spoiled
                }
                1 => bytes[..next(bytes.len())].to_vec(),
                2 => {
                    let mut lines = lines.clone();
                    let at = next(lines.len());
                    lines.insert(at, lines[at]);
                    lines.concat().into_bytes()
                }
                3 => {
                    let mut lines = lines.clone();
                    let (a, b) = (next(lines.len()), next(lines.len()));
                    lines.swap(a, b);
                    lines.concat().into_bytes()
                }
                _ => {
                    let mut lines = lines.clone();
                    let at = next(lines.len());
                    lines[at] = "\n";
                    lines.concat().into_bytes()
                }
            })
            .collect()
    }

    #[test]
    fn batches_parsed_on_the_pool_fold_as_one_line_at_a_time() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut logs = vec![long_log(3_000)];
        for folder in ["examples/sessions", "tests/fixtures"] {
            for entry in std::fs::read_dir(root.join(folder)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|ext| ext == "jsonl") {
                    logs.push(std::fs::read_to_string(&path).unwrap());
                }
            }
        }
        assert!(logs.len() >= 8, "the fixtures were found: {}", logs.len());
        let mut errors = 0;
        for log in &logs {
            let mut cases = mutations(log, 40);
            cases.push(log.clone().into_bytes());
            for case in cases {
                let one_at_a_time = fold_result(&case, 1);
                errors += usize::from(one_at_a_time.is_err());
                for batch_bytes in [300, 64 << 10, BATCH_BYTES] {
                    assert_eq!(
                        fold_result(&case, batch_bytes),
                        one_at_a_time,
                        "batches of {batch_bytes} bytes"
                    );
                }
            }
        }
        // The mutations reach the errors, not only the happy path.
        assert!(errors > 100, "{errors} of the spoiled logs failed to fold");
    }

    #[test]
    fn an_error_far_into_a_long_log_names_its_line() {
        let mut lines: Vec<String> = long_log(30_000).lines().map(str::to_owned).collect();
        lines[25_000] = lines[24_999].clone();
        let text = lines.join("\n") + "\n";
        assert!(text.len() > 2 * BATCH_BYTES, "{} bytes", text.len());
        let error = fold_log_bytes(Path::new("s.jsonl"), text.as_bytes()).unwrap_err();
        assert_eq!(error.line, Some(25_001));
        assert_eq!(error.kind, LogErrorKind::Fold);
        let whole = fold_log_bytes(Path::new("s.jsonl"), long_log(30_000).as_bytes()).unwrap();
        assert_eq!(whole.snapshot.messages.len(), 30_000);
        assert_eq!(whole.snapshot.messages[29_999].spec.id.as_str(), "m29999");
    }
}
