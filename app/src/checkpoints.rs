//! Where the checkpoints of long logs are kept, and when one is written.
//!
//! A checkpoint ([`chatsurface_model::read_log_with_checkpoint`]) lets a long log open by
//! folding only what was appended since. They live in the data directory
//! (`checkpoints/<device>-<inode>.idx`), never beside a log: a log may sit in a folder the
//! user keeps under version control, or one chatsurface should not write into. The name is
//! the log's identity on this machine, which two files that exist at once cannot share; a
//! file that later takes a removed log's inode is told apart by the checkpoint's own checks.
//! Logs shorter than [`CHECKPOINT_MIN_BYTES`] fold in a few milliseconds and get none.
//!
//! A checkpoint is a cache: one that cannot be written is worth a debug line, not an error,
//! and one that does not match its log is ignored and rebuilt with one `note:` line. This
//! module decides where and when; the format and the checks belong to the model.

use chatsurface_model::{
    read_log, read_log_with_checkpoint, CheckpointUse, LoadedLog, LogError, PendingCheckpoint,
    Snapshot,
};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Logs at least this long are checkpointed, and a checkpoint is written again once this much
/// was folded after it.
pub const CHECKPOINT_MIN_BYTES: u64 = 1 << 20;

/// The folder of checkpoints in the data directory `data_dir`.
pub fn checkpoint_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("checkpoints")
}

/// Where the checkpoint of the log with `metadata` is kept.
fn checkpoint_path(data_dir: &Path, metadata: &std::fs::Metadata) -> PathBuf {
    checkpoint_dir(data_dir).join(format!("{}-{}.idx", metadata.dev(), metadata.ino()))
}

/// Reads and folds the v1 log at `log` as [`read_log`] does, starting from its checkpoint in
/// `data_dir` when one matches, and writes a new checkpoint when enough was folded. Says what
/// became of the checkpoint; `None` for a log too short to have one.
pub fn read_log_checkpointed(
    log: &Path,
    data_dir: &Path,
) -> Result<(LoadedLog, Option<CheckpointUse>), LogError> {
    let metadata = match std::fs::metadata(log) {
        Ok(metadata) if metadata.len() >= CHECKPOINT_MIN_BYTES => metadata,
        _ => return read_log(log).map(|loaded| (loaded, None)),
    };
    let checkpoint = checkpoint_path(data_dir, &metadata);
    let opened = read_log_with_checkpoint(log, &checkpoint)?;
    match &opened.checkpoint {
        CheckpointUse::Ignored(mismatch) => eprintln!(
            "note: {}: ignored the checkpoint of {}: {mismatch}; folded the whole log and \
             rebuilt it",
            checkpoint.display(),
            log.display()
        ),
        CheckpointUse::Reused {
            covered_lines,
            tail_lines,
        } => tracing::debug!(
            "{}: {covered_lines} lines from the checkpoint, {tail_lines} folded after it",
            log.display()
        ),
        CheckpointUse::Absent => tracing::debug!("{}: no checkpoint yet", log.display()),
    }
    if opened.pending.folded_bytes() >= CHECKPOINT_MIN_BYTES {
        save(&opened.pending, &opened.loaded.snapshot, &checkpoint);
    }
    Ok((opened.loaded, Some(opened.checkpoint)))
}

fn save(pending: &PendingCheckpoint, snapshot: &Snapshot, checkpoint: &Path) {
    let saved = checkpoint
        .parent()
        .map_or(Ok(()), crate::fsutil::create_private_dir)
        .map_err(|error| format!("{}: {error}", checkpoint.display()))
        .and_then(|()| {
            pending
                .save(snapshot, checkpoint)
                .map_err(|error| error.to_string())
        });
    if let Err(error) = saved {
        tracing::debug!("no checkpoint written: {error}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dev::generate::{generate, GeneratorConfig};
    use chatsurface_model::{CheckpointMismatch, LogWriter};

    fn json(loaded: &LoadedLog) -> String {
        serde_json::to_string(&loaded.snapshot).unwrap()
    }

    fn only_checkpoint(data_dir: &Path) -> PathBuf {
        let mut files: Vec<PathBuf> = std::fs::read_dir(checkpoint_dir(data_dir))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        files.remove(0)
    }

    #[test]
    fn a_long_log_is_checkpointed_reused_and_rebuilt_when_the_checkpoint_lies() {
        let dir = tempfile::tempdir().unwrap();
        let (log, data_dir) = (dir.path().join("s.jsonl"), dir.path().join("data"));
        let config = GeneratorConfig {
            messages: 3_000,
            threads: 6,
            batches: 20,
            seed: 7,
        };
        LogWriter::open(&log)
            .unwrap()
            .append_all(generate(&config))
            .unwrap();
        assert!(std::fs::metadata(&log).unwrap().len() >= CHECKPOINT_MIN_BYTES);
        let whole = json(&read_log(&log).unwrap());

        let (first, used) = read_log_checkpointed(&log, &data_dir).unwrap();
        assert_eq!(used, Some(CheckpointUse::Absent));
        assert_eq!(json(&first), whole);
        let checkpoint = only_checkpoint(&data_dir);

        let (second, used) = read_log_checkpointed(&log, &data_dir).unwrap();
        assert!(
            matches!(used, Some(CheckpointUse::Reused { tail_lines: 0, .. })),
            "{used:?}"
        );
        assert_eq!(json(&second), whole);

        let mut bytes = std::fs::read(&checkpoint).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x20;
        std::fs::write(&checkpoint, &bytes).unwrap();
        let (third, used) = read_log_checkpointed(&log, &data_dir).unwrap();
        assert_eq!(
            used,
            Some(CheckpointUse::Ignored(CheckpointMismatch::Corrupt))
        );
        assert_eq!(json(&third), whole);
        // Rebuilt: the next open reuses it again.
        let (_, used) = read_log_checkpointed(&log, &data_dir).unwrap();
        assert!(
            matches!(used, Some(CheckpointUse::Reused { .. })),
            "{used:?}"
        );
    }

    #[test]
    fn a_short_log_gets_no_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let (log, data_dir) = (dir.path().join("s.jsonl"), dir.path().join("data"));
        let example = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/sessions/deploy-review-en.jsonl");
        std::fs::copy(example, &log).unwrap();
        let (loaded, used) = read_log_checkpointed(&log, &data_dir).unwrap();
        assert_eq!(used, None);
        assert_eq!(json(&loaded), json(&read_log(&log).unwrap()));
        assert!(!checkpoint_dir(&data_dir).exists());
    }
}
