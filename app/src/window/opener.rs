//! Opening a question's attachment (a diff, a plan, a log the agent points at) with the
//! desktop's default application.
//!
//! The path comes from an agent and is untrusted: it is opened only when it is absolute and
//! exists, and it is handed to the opener as one argument, never through a shell. The
//! `open` crate picks the platform's opener (`xdg-open` and its kin on Linux);
//! `CHATSURFACE_OPENER` names another program instead, for a viewer of the human's choice
//! (and for tests). The opener runs detached: the window never waits on it. This module
//! knows nothing of the window, only of paths and processes.

use std::path::Path;
use std::process::{Command, Stdio};

/// The environment variable naming a program to open attachments with.
pub(super) const OPENER_VARIABLE: &str = "CHATSURFACE_OPENER";

/// Opens `path` without waiting; returns a one-line status for the window, or why not.
pub(super) fn open_attachment(path: &str) -> Result<String, String> {
    let file = Path::new(path);
    if !file.is_absolute() {
        return Err(format!("cannot open {path:?}: not an absolute path"));
    }
    if !file.exists() {
        return Err(format!("cannot open {path}: it does not exist (any more)"));
    }
    let opened = match std::env::var_os(OPENER_VARIABLE).filter(|program| !program.is_empty()) {
        Some(program) => Command::new(&program)
            .arg(file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map(drop)
            .map_err(|error| format!("{}: {error}", program.to_string_lossy())),
        None => open::that_detached(file).map_err(|error| error.to_string()),
    };
    opened
        .map(|()| format!("opened {path}"))
        .map_err(|error| format!("cannot open {path}: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_or_missing_path_is_refused_with_a_reason() {
        let relative = open_attachment("notes/plan.md").unwrap_err();
        assert!(relative.contains("not an absolute path"), "{relative}");
        let missing = open_attachment("/no/such/chatsurface/file").unwrap_err();
        assert!(missing.contains("does not exist"), "{missing}");
    }
}
