//! Writing a file so that it is either whole or absent, the one way every command, the token
//! store and the window write files that are not logs.
//!
//! The bytes go to a temporary file beside the target (created new, with the mode asked
//! for), which is fsynced and renamed over the target; then the directory is fsynced, so the
//! rename survives a crash. A failure removes the temporary file and leaves the target as it
//! was. Logs are not written here: they are appended to by `chatsurface_model::LogWriter`.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Which step of an atomic write failed, on which file.
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot {step}: {source}", .path.display())]
pub struct AtomicWriteError {
    /// The file the step was on (the temporary file, the target or its directory).
    pub path: PathBuf,
    /// The step: "write", "replace" or "sync the directory".
    pub step: &'static str,
    /// What the system said.
    #[source]
    pub source: io::Error,
}

/// Writes `bytes` to `path` whole or not at all; a new file gets `mode` (e.g. `0o600`).
pub fn write_atomically(path: &Path, bytes: &[u8], mode: u32) -> Result<(), AtomicWriteError> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let failed = |path: &Path, step, source| AtomicWriteError {
        path: path.to_path_buf(),
        step,
        source,
    };
    let name = path.file_name().ok_or_else(|| {
        failed(
            path,
            "write",
            io::Error::new(io::ErrorKind::InvalidInput, "not a file name"),
        )
    })?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let temporary = dir.join(format!(
        ".{}.{}-{}.tmp",
        name.to_string_lossy(),
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(&temporary)
        .and_then(|mut file| {
            file.write_all(bytes)?;
            file.sync_all()
        })
        .map_err(|source| failed(&temporary, "write", source))
        .and_then(|()| {
            fs::rename(&temporary, path).map_err(|source| failed(path, "replace", source))
        });
    if written.is_err() {
        // The temporary file may not exist; either way the target is untouched.
        let _ = fs::remove_file(&temporary);
    }
    written?;
    File::open(dir)
        .and_then(|dir| dir.sync_all())
        .map_err(|source| failed(dir, "sync the directory", source))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_write_replaces_the_file_whole_with_the_mode_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens.json");
        write_atomically(&path, b"old", 0o600).unwrap();
        write_atomically(&path, b"new", 0o600).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let leftovers = fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
    }

    #[test]
    fn a_failed_write_leaves_the_target_as_it_was_and_names_the_step() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing-dir").join("frame.png");
        let error = write_atomically(&path, b"x", 0o644).unwrap_err();
        assert_eq!(error.step, "write");
        assert!(!path.exists());
    }
}
