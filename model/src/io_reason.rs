//! Why a file could not be read or written, in the words every error line uses, so that the
//! same failure reads the same from every command ("no such file", never "no such log" here
//! and "os error 2" there). Only the reason: the caller names the file and what it tried.

use std::io::{self, ErrorKind};
use std::path::Path;

/// Why an I/O call on a file failed.
pub fn io_reason(error: &io::Error) -> String {
    match error.kind() {
        ErrorKind::NotFound => "no such file".to_owned(),
        ErrorKind::PermissionDenied => "permission denied".to_owned(),
        ErrorKind::IsADirectory => "it is a directory".to_owned(),
        ErrorKind::NotADirectory => "a part of its path is a file, not a directory".to_owned(),
        ErrorKind::StorageFull => "the disk is full".to_owned(),
        ErrorKind::ReadOnlyFilesystem => "the file system is read-only".to_owned(),
        ErrorKind::QuotaExceeded => "the disk quota is exceeded".to_owned(),
        _ => without_os_code(&error.to_string()),
    }
}

/// Why opening or creating `path` failed: as [`io_reason`], except that a file that cannot be
/// created because its directory is missing names the directory.
pub fn io_reason_for(path: &Path, error: &io::Error) -> String {
    let parent = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty());
    match parent {
        Some(parent) if error.kind() == ErrorKind::NotFound && !parent.is_dir() => {
            format!("no such directory {}", parent.display())
        }
        _ => io_reason(error),
    }
}

/// The system's message without the " (os error N)" that means nothing to a reader.
fn without_os_code(message: &str) -> String {
    match message.rfind(" (os error ") {
        Some(at) if message.ends_with(')') => message[..at].to_owned(),
        _ => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_failure_reads_the_same_and_a_missing_directory_is_named() {
        let missing = io::Error::from_raw_os_error(2);
        assert_eq!(io_reason(&missing), "no such file");
        let in_tmp = std::env::temp_dir().join("chatsurface-io-reason-no-such-file");
        assert_eq!(io_reason_for(&in_tmp, &missing), "no such file");
        assert_eq!(
            io_reason_for(Path::new("/nonexistent/dir/frame.png"), &missing),
            "no such directory /nonexistent/dir"
        );
        assert_eq!(
            io_reason(&io::Error::from_raw_os_error(21)),
            "it is a directory"
        );
        // EMFILE has no kind of its own: the system's words stay, without the code.
        let reason = io_reason(&io::Error::from_raw_os_error(24));
        assert!(
            !reason.contains("os error") && !reason.is_empty(),
            "{reason}"
        );
    }
}
