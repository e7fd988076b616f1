//! The app's errors: one line each, with the exit code a script can branch on.
//!
//! Codes follow sysexits(3): 64 bad usage, 65 bad input data, 66 missing input, 73 cannot
//! create the output, 69 a service (a display, a GPU) is unavailable, 70 an internal error.

use std::fmt;

/// A failure of a command, shown to the user as one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppError {
    /// A flag or argument is not acceptable.
    Usage(String),
    /// The input exists but breaks a rule (a malformed log line).
    BadInput(String),
    /// The input file cannot be read.
    NoInput(String),
    /// The output cannot be written.
    CannotCreate(String),
    /// Something the command needs is not there: a display, a GPU.
    Unavailable(String),
    /// A bug: a part of the program failed in a way it should never have (a panic caught).
    Internal(String),
}

impl AppError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            AppError::Usage(_) => 64,
            AppError::BadInput(_) => 65,
            AppError::NoInput(_) => 66,
            AppError::CannotCreate(_) => 73,
            AppError::Unavailable(_) => 69,
            AppError::Internal(_) => 70,
        }
    }
}

impl fmt::Display for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (AppError::Usage(message)
        | AppError::BadInput(message)
        | AppError::NoInput(message)
        | AppError::CannotCreate(message)
        | AppError::Unavailable(message)
        | AppError::Internal(message)) = self;
        f.write_str(message)
    }
}

impl std::error::Error for AppError {}

impl From<chatsurface_model::LogError> for AppError {
    /// By the error's kind, never its words: a log that cannot be opened or read is missing
    /// input (66), a broken line or a refused event bad input (65), a failed fsync output that
    /// could not be made durable (73).
    fn from(error: chatsurface_model::LogError) -> Self {
        use chatsurface_model::LogErrorKind;
        match error.kind {
            LogErrorKind::Io(_) => AppError::NoInput(error.to_string()),
            LogErrorKind::Parse | LogErrorKind::Fold => AppError::BadInput(error.to_string()),
            LogErrorKind::Durability => AppError::CannotCreate(error.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chatsurface_model::{read_log, LogErrorKind};

    #[test]
    fn log_errors_map_to_exit_codes_by_kind() {
        let missing = read_log(std::path::Path::new("/nonexistent/log.jsonl")).unwrap_err();
        assert_eq!(missing.kind, LogErrorKind::Io(std::io::ErrorKind::NotFound));
        assert_eq!(AppError::from(missing).exit_code(), 66);
        let dir = tempfile::tempdir().unwrap();
        let broken = dir.path().join("broken.jsonl");
        std::fs::write(&broken, "{not json}\n").unwrap();
        let parse = read_log(&broken).unwrap_err();
        assert_eq!(parse.kind, LogErrorKind::Parse);
        assert_eq!(AppError::from(parse.clone()).exit_code(), 65);
        // Rewording a message changes nothing: only the kind counts.
        let reworded = chatsurface_model::LogError {
            message: "cannot read anything at all".to_owned(),
            ..parse
        };
        assert_eq!(AppError::from(reworded).exit_code(), 65);
    }
}
