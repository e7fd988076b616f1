//! Reading and appending the v1 event log on disk.
//!
//! The log is sacred: it is only ever appended to, every append is fsynced before it is
//! acknowledged, a torn last line (a crash mid-write) is tolerated with a warning, and a broken
//! line anywhere else is an error that names the file, the line and what is wrong. This module
//! owns the file; the rules about what events mean belong to the fold.

use crate::event::{Event, EventBody, EVENT_LOG_VERSION};
use crate::snapshot::Snapshot;
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// A log that could not be read or written: the file, the line when there is one, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogError {
    /// The log file.
    pub path: PathBuf,
    /// The 1-based line, when the problem is in one line.
    pub line: Option<usize>,
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

#[derive(Deserialize)]
struct Envelope<'a> {
    v: u32,
    seq: u64,
    #[serde(borrow)]
    at: Cow<'a, str>,
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
}

/// A line that parsed: a known event, or one of a type this build skips.
enum ParsedLine {
    Known(Box<Event>),
    Unknown { seq: u64 },
}

fn json_reason(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let reason = text.split(" at line ").next().unwrap_or(&text);
    format!("{reason} (column {})", error.column())
}

fn parse_line(line: &str) -> Result<ParsedLine, String> {
    let envelope: Envelope = serde_json::from_str(line)
        .map_err(|error| format!("not a v1 event: {}", json_reason(&error)))?;
    if envelope.v != EVENT_LOG_VERSION {
        return Err(format!(
            "event version v={} is not supported (this build reads v{EVENT_LOG_VERSION})",
            envelope.v
        ));
    }
    OffsetDateTime::parse(&envelope.at, &Rfc3339)
        .map_err(|_| format!("at: \"{}\" is not an RFC 3339 timestamp", envelope.at))?;
    let Some(body) = EventBody::from_json(&envelope.kind, line) else {
        return Ok(ParsedLine::Unknown { seq: envelope.seq });
    };
    let body = body.map_err(|error| format!("{}: {}", envelope.kind, json_reason(&error)))?;
    Ok(ParsedLine::Known(Box::new(Event {
        v: envelope.v,
        seq: envelope.seq,
        at: envelope.at.into_owned(),
        body,
    })))
}

/// Folds the text of a log. `path` is used only to name the file in errors.
pub fn fold_log_bytes(path: &Path, bytes: &[u8]) -> Result<LoadedLog, LogError> {
    let error = |line: usize, message: String| LogError {
        path: path.to_owned(),
        line: Some(line),
        message,
    };
    let mut snapshot = Snapshot::default();
    let mut warnings = Vec::new();
    let mut offset = 0usize;
    let mut line_number = 0usize;
    while offset < bytes.len() {
        line_number += 1;
        let rest = &bytes[offset..];
        let (raw, terminated) = match memchr::memchr(b'\n', rest) {
            Some(end) => (&rest[..end], true),
            None => (rest, false),
        };
        let next_offset = offset + raw.len() + usize::from(terminated);
        let parsed = std::str::from_utf8(raw)
            .map_err(|_| "not valid UTF-8".to_owned())
            .and_then(|line| {
                if line.trim().is_empty() {
                    Ok(None)
                } else {
                    parse_line(line).map(Some)
                }
            });
        match parsed {
            Ok(None) => {}
            Ok(Some(ParsedLine::Unknown { seq })) => snapshot.skip_unknown(seq),
            Ok(Some(ParsedLine::Known(event))) => {
                let event = *event;
                snapshot
                    .apply(event)
                    .map_err(|fold| error(line_number, fold.to_string()))?;
            }
            Err(_) if !terminated => {
                warnings.push(format!(
                    "{}:{line_number}: the last line is cut short (a crash mid-write?); kept the {} events before it",
                    path.display(),
                    snapshot.last_seq
                ));
                break;
            }
            Err(message) => return Err(error(line_number, message)),
        }
        offset = next_offset;
    }
    Ok(LoadedLog {
        snapshot,
        warnings,
        intact_len: offset as u64,
    })
}

/// Reads and folds the log at `path`.
pub fn read_log(path: &Path) -> Result<LoadedLog, LogError> {
    let bytes = std::fs::read(path).map_err(|io| LogError {
        path: path.to_owned(),
        line: None,
        message: format!("cannot read the log: {}", io_reason(&io)),
    })?;
    fold_log_bytes(path, &bytes)
}

fn io_reason(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => error.to_string(),
    }
}

/// Appends events to a log, keeping its snapshot in step.
///
/// Each event is folded first (so an event that breaks a rule is never written), then written
/// as one line and fsynced before `append` returns.
#[derive(Debug)]
pub struct LogWriter {
    path: PathBuf,
    file: File,
    snapshot: Snapshot,
    len: u64,
}

impl LogWriter {
    /// Opens a log for appending, creating it when missing. A torn last line is cut off first,
    /// so the next event starts on a line of its own.
    pub fn open(path: &Path) -> Result<Self, LogError> {
        let fail = |message: String| LogError {
            path: path.to_owned(),
            line: None,
            message,
        };
        let loaded = if path.exists() {
            read_log(path)?
        } else {
            LoadedLog {
                snapshot: Snapshot::default(),
                warnings: Vec::new(),
                intact_len: 0,
            }
        };
        let file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(|io| {
                fail(format!(
                    "cannot open the log for appending: {}",
                    io_reason(&io)
                ))
            })?;
        let on_disk = file.metadata().map_err(|io| fail(io_reason(&io)))?.len();
        if on_disk > loaded.intact_len {
            file.set_len(loaded.intact_len)
                .and_then(|()| file.sync_all())
                .map_err(|io| {
                    fail(format!(
                        "cannot cut off the torn last line: {}",
                        io_reason(&io)
                    ))
                })?;
        }
        Ok(Self {
            path: path.to_owned(),
            file,
            snapshot: loaded.snapshot,
            len: loaded.intact_len,
        })
    }

    /// The snapshot of everything written so far.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Folds the whole lines that another writer appended since this writer last wrote or
    /// looked, and returns how many events they held. A line still being written (no newline
    /// yet) is left for the next look. Call it before appending when another process may
    /// write to the same log, so this writer's sequence numbers follow theirs.
    pub fn catch_up(&mut self) -> Result<usize, LogError> {
        let mut bytes = Vec::new();
        let read = File::open(&self.path).and_then(|mut file| {
            file.seek(SeekFrom::Start(self.len))?;
            file.read_to_end(&mut bytes)
        });
        read.map_err(|io| self.error(format!("cannot read the log: {}", io_reason(&io))))?;
        let mut folded = 0;
        let mut offset = 0usize;
        while let Some(end) = memchr::memchr(b'\n', &bytes[offset..]) {
            let raw = &bytes[offset..offset + end];
            let at = self.len + offset as u64;
            let parsed = std::str::from_utf8(raw)
                .map_err(|_| "not valid UTF-8".to_owned())
                .and_then(|line| {
                    if line.trim().is_empty() {
                        Ok(None)
                    } else {
                        parse_line(line).map(Some)
                    }
                })
                .map_err(|message| self.error(format!("the line at byte {at}: {message}")))?;
            match parsed {
                None => {}
                Some(ParsedLine::Unknown { seq }) => self.snapshot.skip_unknown(seq),
                Some(ParsedLine::Known(event)) => {
                    self.snapshot
                        .apply(*event)
                        .map_err(|fold| self.error(format!("the line at byte {at}: {fold}")))?;
                    folded += 1;
                }
            }
            offset += end + 1;
        }
        self.len += offset as u64;
        Ok(folded)
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
        let at = OffsetDateTime::now_utc()
            .format(&Rfc3339)
            .map_err(|error| self.error(format!("cannot format the time: {error}")))?;
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
                return Err(self.roll_back(fold.to_string()));
            }
            written.push(event);
        }
        let result = (&self.file).write_all(text.as_bytes());
        if let Err(io) = result.and_then(|()| self.file.sync_data()) {
            return Err(self.roll_back(format!("cannot append to the log: {}", io_reason(&io))));
        }
        self.len += text.len() as u64;
        Ok(written)
    }

    fn error(&self, message: String) -> LogError {
        LogError {
            path: self.path.clone(),
            line: None,
            message,
        }
    }

    /// After a failed append, cut the file back to what was acknowledged and reload the
    /// snapshot from it, so memory and disk agree again.
    fn roll_back(&mut self, message: String) -> LogError {
        let _ = self
            .file
            .set_len(self.len)
            .and_then(|()| self.file.sync_all());
        if let Ok(loaded) = read_log(&self.path) {
            self.snapshot = loaded.snapshot;
        }
        self.error(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let event = writer.append(message("m9")).unwrap();
        assert_eq!(event.seq, 3);
        let reread = read_log(&path).unwrap();
        assert!(reread.warnings.is_empty());
        assert_eq!(reread.snapshot.messages[0].spec.id.as_str(), "m9");
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
        assert_eq!(window.catch_up().unwrap(), 1);
        assert_eq!(window.snapshot().messages.len(), 2);
        file.write_all(&partial.as_bytes()[10..]).unwrap();
        file.write_all(b"\n").unwrap();
        assert_eq!(window.catch_up().unwrap(), 1);
        let written = window.append(message("m4")).unwrap();
        assert_eq!(
            written.seq, 6,
            "the window's next event follows the agent's"
        );
        assert_eq!(read_log(&path).unwrap().snapshot.messages.len(), 4);
    }

    #[test]
    fn writer_refuses_a_rule_breaking_event_and_writes_nothing() {
        let path = temp_log("refuse");
        let mut writer = LogWriter::open(&path).unwrap();
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
}
