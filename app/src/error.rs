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
    fn from(error: chatsurface_model::LogError) -> Self {
        if error.line.is_none() && error.message.starts_with("cannot read") {
            AppError::NoInput(error.to_string())
        } else {
            AppError::BadInput(error.to_string())
        }
    }
}
