//! Writing a file so that it is either whole or absent, the one way every command, the token
//! store and the window write files that are not logs.
//!
//! The bytes go to a temporary file beside the target (created new, with the mode asked
//! for), which is fsynced and renamed over the target; then the directory is fsynced, so the
//! rename survives a crash. A failure removes the temporary file and leaves the target as it
//! was. Only a missing target or a regular file is replaced: a symlink, a FIFO or a device
//! node at the path is refused (renaming over it would silently put a file where the user
//! pointed at something else, `/dev/full` say). Logs are not written here: they are appended
//! to by `chatsurface_model::LogWriter`.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Which step of an atomic write failed, on which file.
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot {step}: {}", .path.display(), chatsurface_model::io_reason_for(.path, .source))]
pub struct AtomicWriteError {
    /// The target, or its directory for the last step (never the temporary file, which the
    /// user did not name).
    pub path: PathBuf,
    /// The step: "check the target", "write", "replace" or "sync the directory".
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
    match fs::symlink_metadata(path) {
        Ok(metadata) if !metadata.file_type().is_file() => {
            return Err(failed(
                path,
                "check the target",
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "it is {}; only a new file or a regular file is written",
                        kind_of(&metadata.file_type())
                    ),
                ),
            ));
        }
        Ok(_) => {}
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => return Err(failed(path, "check the target", error)),
    }
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
        .map_err(|source| failed(path, "write", source))
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

/// Creates `dir` and any missing parents with mode 0700 (what exists already is left as it
/// is): the folders that hold sessions and tokens are their owner's alone, whatever the umask.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// What a file that is not a regular file is, in words.
pub(crate) fn kind_of(file_type: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_symlink() {
        "a symbolic link"
    } else if file_type.is_dir() {
        "a directory"
    } else if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_char_device() || file_type.is_block_device() {
        "a device"
    } else if file_type.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
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

    #[test]
    fn a_symlink_or_a_fifo_at_the_target_is_refused_and_left_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.png");
        fs::write(&real, b"keep").unwrap();
        let link = dir.path().join("link.png");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let error = write_atomically(&link, b"x", 0o644).unwrap_err();
        assert_eq!(error.step, "check the target");
        assert!(error.to_string().contains("a symbolic link"), "{error}");
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&real).unwrap(), b"keep");

        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let error = write_atomically(&fifo, b"x", 0o644).unwrap_err();
        assert!(error.to_string().contains("a FIFO"), "{error}");
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    }
}
