//! Checkpoints: a log's fold saved, so that opening the log again folds only what came after.
//!
//! A checkpoint holds the snapshot that the first `covered_len` bytes of a log fold into, and
//! what ties it to those bytes: the log's device and inode, the covered length and line count,
//! and an xxh3-128 hash of the covered bytes. Opening a log with [`read_log_with_checkpoint`]
//! believes the checkpoint only when its magic, version and checksum are this build's and the
//! log, as it is now, is the same file, at least that long, and hashes to the same value over
//! those bytes; then only the lines after them are folded. Anything else (the log replaced,
//! truncated or edited, a checkpoint cut short, overwritten or of another version) is a
//! [`CheckpointMismatch`]: the checkpoint is ignored and the whole log folded, so a checkpoint
//! can make opening faster but can never make it say something the log does not.
//!
//! The file is a 32-byte header (magic, version, an xxh3-128 checksum of the rest) and an rkyv
//! archive, checked by rkyv's validator before it is read. The header lets a checkpoint of
//! another version be told apart before its layout is trusted; the checksum catches a flipped
//! bit that the validator would take for text.
//!
//! This module owns the checkpoint's format and the checks; where checkpoints are kept and
//! when one is worth writing is the caller's choice, and the rules of the fold stay in
//! `fold.rs` and `log.rs`.

use crate::log::{fold_log_tail, read_error, FoldStart, LoadedLog, LogError, LogErrorKind};
use crate::parallel_parse::BATCH_BYTES;
use crate::snapshot::{History, Snapshot};
use std::fmt;
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;
use xxhash_rust::xxh3::{xxh3_128, Xxh3};

/// The first bytes of every checkpoint file.
const MAGIC: [u8; 8] = *b"CSCKPT\r\n";

/// Bumped whenever an archived type changes (a field of a node, the snapshot, `Stored`):
/// a checkpoint of another version is never read as this one's.
pub const CHECKPOINT_VERSION: u32 = 1;

/// Magic, version, four reserved bytes and the checksum: 32 bytes, so the archive after it
/// stays aligned for rkyv.
const HEADER_LEN: usize = 32;

/// The file a checkpoint is of: its device and inode, as `fstat` gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
struct LogIdentity {
    device: u64,
    inode: u64,
}

/// What a checkpoint file's archive holds. It is written from a borrowed snapshot and read
/// back field by field, so no snapshot is copied to write it.
#[derive(rkyv::Archive, rkyv::Serialize)]
struct Stored<'a> {
    /// The log it was made from.
    identity: LogIdentity,
    /// How many bytes of the log it covers: whole lines, each ended by a newline.
    covered_len: u64,
    /// How many lines those bytes hold.
    covered_lines: u64,
    /// The xxh3-128 hash of those bytes.
    covered_hash: u128,
    /// The fold of those bytes.
    #[rkyv(with = rkyv::with::Inline)]
    snapshot: &'a Snapshot,
}

/// A checkpoint read back and found to match its log.
struct Matched {
    snapshot: Snapshot,
    covered_len: u64,
    covered_lines: u64,
    /// A hasher that has seen the covered bytes.
    hasher: Xxh3,
}

/// Why a checkpoint was not believed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckpointMismatch {
    /// It could not be read.
    Unreadable(std::io::ErrorKind),
    /// It does not start with a checkpoint's magic, or is shorter than its header.
    NotACheckpoint,
    /// It was written by a build with another checkpoint version.
    OtherVersion(u32),
    /// Its checksum or its archive is wrong: it was cut short or overwritten.
    Corrupt,
    /// It is of another file (the log was replaced by one with the same name).
    OtherFile,
    /// The log is now shorter than what it covers (the log was truncated).
    LogShorter,
    /// The log's bytes that it covers have changed (the log was edited or rewritten).
    LogChanged,
}

impl fmt::Display for CheckpointMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckpointMismatch::Unreadable(kind) => write!(f, "it cannot be read ({kind})"),
            CheckpointMismatch::NotACheckpoint => f.write_str("it is not a checkpoint"),
            CheckpointMismatch::OtherVersion(version) => write!(
                f,
                "it is of checkpoint version {version}, this build writes {CHECKPOINT_VERSION}"
            ),
            CheckpointMismatch::Corrupt => f.write_str("it is damaged (its checksum is wrong)"),
            CheckpointMismatch::OtherFile => f.write_str("it is of another file of that name"),
            CheckpointMismatch::LogShorter => {
                f.write_str("the log is shorter than the part it covers")
            }
            CheckpointMismatch::LogChanged => {
                f.write_str("the part of the log it covers has changed")
            }
        }
    }
}

/// What became of the checkpoint when a log was opened with one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckpointUse {
    /// There was none: the whole log was folded.
    Absent,
    /// It matched the log: only the lines after it were folded.
    Reused {
        /// Lines of the log the checkpoint covered.
        covered_lines: u64,
        /// Lines folded after them.
        tail_lines: u64,
    },
    /// It did not match the log and was ignored: the whole log was folded.
    Ignored(CheckpointMismatch),
}

/// A log opened with a checkpoint: the fold, what became of the checkpoint, and what a new
/// checkpoint of this fold needs.
#[derive(Debug)]
pub struct CheckpointedLog {
    /// The folded log, the same as [`crate::read_log`] gives.
    pub loaded: LoadedLog,
    /// Whether a checkpoint was used.
    pub checkpoint: CheckpointUse,
    /// What a checkpoint of this fold is written from.
    pub pending: PendingCheckpoint,
}

/// What ties a fold to the bytes it was folded from, kept until a checkpoint of it is
/// written.
#[derive(Debug)]
pub struct PendingCheckpoint {
    identity: LogIdentity,
    /// The fold it is of, and how far that fold had got: a snapshot folded further since
    /// (the window appended an answer) is not this fold, and is not checkpointed as it.
    history: History,
    last_seq: u64,
    intact_len: u64,
    intact_lines: u64,
    intact_hash: u128,
    /// Whether the intact bytes end with a newline: a checkpoint covers only whole lines, so
    /// a log whose last folded line has no newline yet (one may still come), or that has no
    /// line at all (a byte-order mark may be half written), gets none.
    ends_with_newline: bool,
    folded_bytes: u64,
}

impl PendingCheckpoint {
    /// Bytes of the log folded in this open: all of them without a checkpoint, the tail after
    /// one that matched.
    pub fn folded_bytes(&self) -> u64 {
        self.folded_bytes
    }

    /// Writes a checkpoint of `snapshot`, the fold this was made with, to `path`, replacing
    /// the file there in one rename, so a reader sees the old checkpoint or the new one, never
    /// half of one. Returns `false`, writing nothing, when it cannot be checkpointed: it holds
    /// no whole line, or `snapshot` is not that fold as it was (another snapshot, or one
    /// folded further since).
    ///
    /// It is not fsynced: a checkpoint is a cache, checked before it is believed, so one lost
    /// or torn in a crash costs a full fold, never a wrong snapshot.
    pub fn save(&self, snapshot: &Snapshot, path: &Path) -> Result<bool, LogError> {
        if !self.ends_with_newline
            || snapshot.history != self.history
            || snapshot.last_seq != self.last_seq
        {
            return Ok(false);
        }
        let stored = Stored {
            identity: self.identity,
            covered_len: self.intact_len,
            covered_lines: self.intact_lines,
            covered_hash: self.intact_hash,
            snapshot,
        };
        let archive = rkyv::to_bytes::<rkyv::rancor::Error>(&stored)
            .map_err(|error| write_error(path, std::io::ErrorKind::InvalidData, &error))?;
        let mut header = [0u8; HEADER_LEN];
        header[..8].copy_from_slice(&MAGIC);
        header[8..12].copy_from_slice(&CHECKPOINT_VERSION.to_le_bytes());
        header[16..].copy_from_slice(&xxh3_128(&archive).to_le_bytes());
        let temporary = path.with_extension(format!("tmp-{}", std::process::id()));
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&temporary)
            .and_then(|mut file| {
                file.write_all(&header)?;
                file.write_all(&archive)
            })
            .and_then(|()| std::fs::rename(&temporary, path));
        written.map_err(|error| {
            let _ = std::fs::remove_file(&temporary);
            write_error(path, error.kind(), &error)
        })?;
        Ok(true)
    }
}

fn write_error(path: &Path, kind: std::io::ErrorKind, error: &dyn fmt::Display) -> LogError {
    LogError {
        path: path.to_owned(),
        line: None,
        kind: LogErrorKind::Io(kind),
        message: format!("cannot write the checkpoint: {error}"),
    }
}

/// Reads and folds the log at `log`, starting from the checkpoint at `checkpoint` when it
/// matches the log (see the module's docs). The snapshot, warnings, intact length and errors
/// are those of [`crate::read_log`]; a line in error is named by its number in the log.
pub fn read_log_with_checkpoint(
    log: &Path,
    checkpoint: &Path,
) -> Result<CheckpointedLog, LogError> {
    let read_error = |io: std::io::Error| read_error(log, &io);
    let mut file = std::fs::File::open(log).map_err(read_error)?;
    let metadata = file.metadata().map_err(read_error)?;
    let identity = LogIdentity {
        device: metadata.dev(),
        inode: metadata.ino(),
    };
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.read_to_end(&mut bytes).map_err(read_error)?;

    let (start, hasher, checkpoint) = match matching_checkpoint(checkpoint, identity, &bytes) {
        Ok(Some(matched)) => (
            FoldStart {
                snapshot: matched.snapshot,
                offset: matched.covered_len as usize,
                lines_before: matched.covered_lines as usize,
            },
            matched.hasher,
            CheckpointUse::Reused {
                covered_lines: matched.covered_lines,
                tail_lines: 0,
            },
        ),
        Ok(None) => (
            FoldStart::beginning(&bytes),
            Xxh3::new(),
            CheckpointUse::Absent,
        ),
        Err(mismatch) => (
            FoldStart::beginning(&bytes),
            Xxh3::new(),
            CheckpointUse::Ignored(mismatch),
        ),
    };
    // The hasher has seen the bytes before the fold's start when a checkpoint is reused, and
    // none otherwise (the byte-order mark is hashed too).
    let hashed = if matches!(checkpoint, CheckpointUse::Reused { .. }) {
        start.offset
    } else {
        0
    };
    finish(log, &bytes, identity, start, (hasher, hashed), checkpoint)
}

/// Folds from `start`, and hashes the intact bytes on from the `hashed` bytes the hasher has
/// seen.
fn finish(
    log: &Path,
    bytes: &[u8],
    identity: LogIdentity,
    start: FoldStart,
    (mut hasher, hashed): (Xxh3, usize),
    mut checkpoint: CheckpointUse,
) -> Result<CheckpointedLog, LogError> {
    let offset = start.offset;
    let lines_before = start.lines_before as u64;
    let tail = fold_log_tail(log, bytes, start, BATCH_BYTES)?;
    let intact = tail.loaded.intact_len as usize;
    hasher.update(&bytes[hashed..intact]);
    if let CheckpointUse::Reused { tail_lines, .. } = &mut checkpoint {
        *tail_lines = tail.intact_lines as u64 - lines_before;
    }
    let snapshot = &tail.loaded.snapshot;
    Ok(CheckpointedLog {
        checkpoint,
        pending: PendingCheckpoint {
            identity,
            history: snapshot.history,
            last_seq: snapshot.last_seq,
            intact_len: intact as u64,
            intact_lines: tail.intact_lines as u64,
            intact_hash: hasher.digest128(),
            ends_with_newline: bytes[..intact].ends_with(b"\n"),
            folded_bytes: (intact - offset) as u64,
        },
        loaded: tail.loaded,
    })
}

/// The checkpoint at `path` when it matches `bytes` of the log `identity`, with a hasher that
/// has seen the bytes it covers; `None` when there is no checkpoint there.
fn matching_checkpoint(
    path: &Path,
    identity: LogIdentity,
    bytes: &[u8],
) -> Result<Option<Matched>, CheckpointMismatch> {
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(CheckpointMismatch::Unreadable(error.kind())),
    };
    let mut header = [0u8; HEADER_LEN];
    file.read_exact(&mut header)
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::UnexpectedEof => CheckpointMismatch::NotACheckpoint,
            kind => CheckpointMismatch::Unreadable(kind),
        })?;
    if header[..8] != MAGIC {
        return Err(CheckpointMismatch::NotACheckpoint);
    }
    let version = u32::from_le_bytes(header[8..12].try_into().unwrap_or_default());
    if version != CHECKPOINT_VERSION {
        return Err(CheckpointMismatch::OtherVersion(version));
    }
    let checksum = u128::from_le_bytes(header[16..].try_into().unwrap_or_default());
    let mut archive = rkyv::util::AlignedVec::<16>::new();
    archive
        .extend_from_reader(&mut file)
        .map_err(|error| CheckpointMismatch::Unreadable(error.kind()))?;
    if xxh3_128(&archive) != checksum {
        return Err(CheckpointMismatch::Corrupt);
    }
    let stored = rkyv::access::<ArchivedStored, rkyv::rancor::Error>(&archive)
        .map_err(|_| CheckpointMismatch::Corrupt)?;
    let archived_identity = LogIdentity {
        device: stored.identity.device.to_native(),
        inode: stored.identity.inode.to_native(),
    };
    if archived_identity != identity {
        return Err(CheckpointMismatch::OtherFile);
    }
    let covered = usize::try_from(stored.covered_len.to_native()).unwrap_or(usize::MAX);
    if covered > bytes.len() {
        return Err(CheckpointMismatch::LogShorter);
    }
    let mut hasher = Xxh3::new();
    hasher.update(&bytes[..covered]);
    if hasher.digest128() != stored.covered_hash.to_native() {
        return Err(CheckpointMismatch::LogChanged);
    }
    let mut snapshot = rkyv::deserialize::<Snapshot, rkyv::rancor::Error>(&stored.snapshot)
        .map_err(|_| CheckpointMismatch::Corrupt)?;
    snapshot.rebuild_index();
    Ok(Some(Matched {
        snapshot,
        covered_len: stored.covered_len.to_native(),
        covered_lines: stored.covered_lines.to_native(),
        hasher,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::fold_log_bytes;
    use proptest::prelude::*;
    use std::path::PathBuf;

    /// Every example and fixture log of the repository: together they hold every kind of
    /// event, answered and open batches, confirmations, chunks and decisions.
    fn repository_logs() -> Vec<Vec<u8>> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut paths = Vec::new();
        for folder in ["examples/sessions", "tests/fixtures"] {
            for entry in std::fs::read_dir(root.join(folder)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|ext| ext == "jsonl") {
                    paths.push(path);
                }
            }
        }
        // Sorted, so that a failing case names the same log on every run.
        paths.sort();
        assert!(paths.len() >= 7, "the fixtures were found: {}", paths.len());
        paths
            .iter()
            .map(|path| std::fs::read(path).unwrap())
            .collect()
    }

    /// All a fold says, in a form that compares: the snapshot (and the parts serde skips), its
    /// index, the warnings and the intact length; or the error.
    fn outcome(loaded: Result<&LoadedLog, &LogError>) -> String {
        let loaded = match loaded {
            Ok(loaded) => loaded,
            Err(error) => return format!("error: {error} ({:?})", error.kind),
        };
        let snapshot = &loaded.snapshot;
        let indexed = snapshot
            .messages
            .iter()
            .enumerate()
            .all(|(index, message)| snapshot.message_index(&message.spec.id) == Some(index))
            && snapshot
                .threads
                .iter()
                .enumerate()
                .all(|(index, thread)| snapshot.thread_index(&thread.spec.id) == Some(index))
            && snapshot
                .batches
                .iter()
                .all(|batch| snapshot.batch(&batch.spec.id) == Some(batch))
            && snapshot.confirmations.iter().all(|confirmation| {
                snapshot.confirmation(&confirmation.spec.id) == Some(confirmation)
            });
        format!(
            "{}\n{:?}\n{:?}\nindexed: {indexed}\n{:?}\n{}",
            serde_json::to_string(snapshot).unwrap(),
            snapshot.threads,
            snapshot.timeline,
            loaded.warnings,
            loaded.intact_len
        )
    }

    fn full_fold(bytes: &[u8], log: &Path) -> String {
        outcome(fold_log_bytes(log, bytes).as_ref())
    }

    struct Place {
        _dir: tempfile::TempDir,
        log: PathBuf,
        checkpoint: PathBuf,
    }

    fn place() -> Place {
        let dir = tempfile::tempdir().unwrap();
        Place {
            log: dir.path().join("s.jsonl"),
            checkpoint: dir.path().join("s.idx"),
            _dir: dir,
        }
    }

    /// Opens the log with its checkpoint and saves a new one, as the app does.
    fn open_and_save(place: &Place) -> Result<CheckpointedLog, LogError> {
        let opened = read_log_with_checkpoint(&place.log, &place.checkpoint)?;
        opened
            .pending
            .save(&opened.loaded.snapshot, &place.checkpoint)
            .unwrap();
        Ok(opened)
    }

    fn append(path: &Path, bytes: &[u8]) {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        file.write_all(bytes).unwrap();
    }

    #[test]
    fn a_checkpoint_is_reused_and_only_the_tail_is_folded() {
        let place = place();
        let log = &repository_logs()[0];
        let lines: Vec<&[u8]> = log.split_inclusive(|&byte| byte == b'\n').collect();
        let (head, tail) = lines.split_at(lines.len() / 2);
        std::fs::write(&place.log, head.concat()).unwrap();
        let first = open_and_save(&place).unwrap();
        assert_eq!(first.checkpoint, CheckpointUse::Absent);
        append(&place.log, &tail.concat());
        let second = open_and_save(&place).unwrap();
        assert_eq!(
            second.checkpoint,
            CheckpointUse::Reused {
                covered_lines: head.len() as u64,
                tail_lines: tail.len() as u64,
            }
        );
        assert_eq!(second.pending.folded_bytes(), tail.concat().len() as u64);
        assert_eq!(outcome(Ok(&second.loaded)), full_fold(log, &place.log));
        let third = read_log_with_checkpoint(&place.log, &place.checkpoint).unwrap();
        assert_eq!(
            third.checkpoint,
            CheckpointUse::Reused {
                covered_lines: lines.len() as u64,
                tail_lines: 0,
            }
        );
        assert_eq!(third.pending.folded_bytes(), 0);
        assert_eq!(outcome(Ok(&third.loaded)), full_fold(log, &place.log));
    }

    #[test]
    fn a_log_replaced_by_another_file_of_its_name_is_folded_whole() {
        let place = place();
        let logs = repository_logs();
        std::fs::write(&place.log, &logs[0]).unwrap();
        open_and_save(&place).unwrap();
        let replacement = place.log.with_extension("new");
        std::fs::write(&replacement, &logs[0]).unwrap();
        std::fs::rename(&replacement, &place.log).unwrap();
        let reopened = open_and_save(&place).unwrap();
        assert_eq!(
            reopened.checkpoint,
            CheckpointUse::Ignored(CheckpointMismatch::OtherFile)
        );
        assert_eq!(
            outcome(Ok(&reopened.loaded)),
            full_fold(&logs[0], &place.log)
        );
        // The checkpoint written after it is of the new file.
        let again = read_log_with_checkpoint(&place.log, &place.checkpoint).unwrap();
        assert!(matches!(again.checkpoint, CheckpointUse::Reused { .. }));
    }

    #[test]
    fn a_checkpoint_of_another_version_is_not_read() {
        let place = place();
        std::fs::write(&place.log, &repository_logs()[0]).unwrap();
        open_and_save(&place).unwrap();
        let mut bytes = std::fs::read(&place.checkpoint).unwrap();
        bytes[8..12].copy_from_slice(&(CHECKPOINT_VERSION + 1).to_le_bytes());
        std::fs::write(&place.checkpoint, &bytes).unwrap();
        let reopened = read_log_with_checkpoint(&place.log, &place.checkpoint).unwrap();
        assert_eq!(
            reopened.checkpoint,
            CheckpointUse::Ignored(CheckpointMismatch::OtherVersion(CHECKPOINT_VERSION + 1))
        );
    }

    #[test]
    fn a_log_without_a_final_newline_gets_no_checkpoint() {
        let place = place();
        let log = &repository_logs()[0];
        std::fs::write(&place.log, log.strip_suffix(b"\n").unwrap()).unwrap();
        let opened = read_log_with_checkpoint(&place.log, &place.checkpoint).unwrap();
        let saved = opened
            .pending
            .save(&opened.loaded.snapshot, &place.checkpoint);
        assert!(!saved.unwrap());
        assert!(!place.checkpoint.exists());
    }

    #[test]
    fn a_snapshot_folded_further_is_not_checkpointed_as_the_fold() {
        let place = place();
        std::fs::write(&place.log, &repository_logs()[0]).unwrap();
        let mut opened = read_log_with_checkpoint(&place.log, &place.checkpoint).unwrap();
        let other = fold_log_bytes(&place.log, &repository_logs()[0])
            .unwrap()
            .snapshot;
        assert!(!opened.pending.save(&other, &place.checkpoint).unwrap());
        let seq = opened.loaded.snapshot.last_seq + 1;
        opened.loaded.snapshot.skip_unknown(seq).unwrap();
        assert!(!opened
            .pending
            .save(&opened.loaded.snapshot, &place.checkpoint)
            .unwrap());
        assert!(!place.checkpoint.exists());
    }

    #[test]
    fn an_error_after_the_checkpoint_names_its_line_in_the_log() {
        let place = place();
        let log = &repository_logs()[0];
        std::fs::write(&place.log, log).unwrap();
        open_and_save(&place).unwrap();
        let lines = log.split_inclusive(|&byte| byte == b'\n').count();
        append(&place.log, b"{\"v\":1,\"seq\":1}\n");
        let error = read_log_with_checkpoint(&place.log, &place.checkpoint).unwrap_err();
        assert_eq!(error.line, Some(lines + 1));
        assert_eq!(
            format!("{error}"),
            format!(
                "{}",
                fold_log_bytes(&place.log, &std::fs::read(&place.log).unwrap()).unwrap_err()
            )
        );
    }

    /// What is done to the log or its checkpoint between two opens.
    #[derive(Clone, Debug)]
    enum Spoil {
        /// The log is cut to this share of its length (per mille).
        Truncate(u16),
        /// The log is cut, then written on to its old length with other bytes.
        Rewrite(u16),
        /// A byte of the checkpoint at this share of its length is changed.
        FlipCheckpointByte(u16, u8),
        /// The checkpoint is cut to this share of its length.
        TruncateCheckpoint(u16),
    }

    fn spoil() -> impl Strategy<Value = Spoil> {
        prop_oneof![
            (0u16..1000).prop_map(Spoil::Truncate),
            (0u16..1000).prop_map(Spoil::Rewrite),
            (0u16..1000, 1u8..=255).prop_map(|(at, xor)| Spoil::FlipCheckpointByte(at, xor)),
            (0u16..1000).prop_map(Spoil::TruncateCheckpoint),
        ]
    }

    fn share(len: usize, per_mille: u16) -> usize {
        len * usize::from(per_mille) / 1000
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// A log written up to a random byte, checkpointed, then written to its end by
        /// another writer, folds from the checkpoint and its tail into what a full fold gives.
        #[test]
        fn checkpoint_and_tail_fold_as_the_whole_log(which in 0usize..64, cut in 0u16..=1000) {
            let logs = repository_logs();
            let log = &logs[which % logs.len()];
            let place = place();
            let cut = share(log.len(), cut);
            std::fs::write(&place.log, &log[..cut]).unwrap();
            let first = open_and_save(&place);
            prop_assert_eq!(outcome(first.as_ref().map(|first| &first.loaded)), full_fold(&log[..cut], &place.log));
            append(&place.log, &log[cut..]);
            let second = read_log_with_checkpoint(&place.log, &place.checkpoint);
            prop_assert_eq!(outcome(second.as_ref().map(|second| &second.loaded)), full_fold(log, &place.log));
            if let Ok(second) = &second {
                // The checkpoint was used whenever one could be written: the prefix folded, and
                // its intact bytes end with a newline (a cut just before one leaves a whole
                // event unterminated, folded but not checkpointed).
                let written = first.as_ref().is_ok_and(|first| {
                    log[..first.loaded.intact_len as usize].ends_with(b"\n")
                });
                prop_assert_eq!(matches!(second.checkpoint, CheckpointUse::Reused { .. }), written);
            }
        }

        /// A checkpoint that no longer matches its log, or is damaged, is never believed: the
        /// open gives what a full fold of the log as it is gives.
        #[test]
        fn a_checkpoint_that_lies_is_never_believed(which in 0usize..64, spoil in spoil()) {
            let logs: Vec<Vec<u8>> = repository_logs()
                .into_iter()
                .filter(|log| fold_log_bytes(Path::new("s.jsonl"), log).is_ok())
                .collect();
            let log = &logs[which % logs.len()];
            let place = place();
            std::fs::write(&place.log, log).unwrap();
            let covered = open_and_save(&place).unwrap().loaded.intact_len as usize;
            let checkpoint = std::fs::read(&place.checkpoint).unwrap();
            let mut expected_use = None;
            match spoil {
                Spoil::Truncate(at) => {
                    let at = share(log.len(), at);
                    std::fs::write(&place.log, &log[..at]).unwrap();
                }
                Spoil::Rewrite(at) => {
                    let at = share(log.len(), at);
                    let mut bytes = log[..at].to_vec();
                    bytes.extend(log[at..].iter().map(|&byte| if byte == b' ' { b'\t' } else { byte }));
                    // Only a change inside the covered bytes is the checkpoint's business.
                    if bytes[..covered] != log[..covered] {
                        expected_use = Some(CheckpointUse::Ignored(CheckpointMismatch::LogChanged));
                    }
                    // Written in place, so the log keeps its inode.
                    let mut file = std::fs::OpenOptions::new().write(true).open(&place.log).unwrap();
                    std::io::Write::write_all(&mut file, &bytes).unwrap();
                }
                Spoil::FlipCheckpointByte(at, xor) => {
                    let mut bytes = checkpoint.clone();
                    let at = share(bytes.len(), at);
                    bytes[at] ^= xor;
                    std::fs::write(&place.checkpoint, &bytes).unwrap();
                }
                Spoil::TruncateCheckpoint(at) => {
                    std::fs::write(&place.checkpoint, &checkpoint[..share(checkpoint.len(), at)]).unwrap();
                }
            }
            let now = std::fs::read(&place.log).unwrap();
            let reopened = read_log_with_checkpoint(&place.log, &place.checkpoint);
            prop_assert_eq!(outcome(reopened.as_ref().map(|reopened| &reopened.loaded)), full_fold(&now, &place.log));
            if let Ok(reopened) = &reopened {
                let spoiled_checkpoint = std::fs::read(&place.checkpoint).unwrap() != checkpoint;
                let shorter = now.len() < covered;
                if spoiled_checkpoint || shorter {
                    prop_assert!(matches!(reopened.checkpoint, CheckpointUse::Ignored(_)), "{:?}", reopened.checkpoint);
                }
                if let Some(expected) = expected_use {
                    prop_assert_eq!(&reopened.checkpoint, &expected);
                }
            }
        }
    }
}
