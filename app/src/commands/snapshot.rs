//! `chatsurface snapshot LOG`: the folded snapshot as JSON on stdout.

use super::{load, print};
use crate::error::AppError;
use std::path::Path;

/// Prints the snapshot of the log at `path`.
pub(super) fn run(path: &Path, format: Option<crate::agents::Format>) -> Result<(), AppError> {
    let loaded = load(path, format)?;
    let json = serde_json::to_string_pretty(&loaded.snapshot).map_err(|error| {
        AppError::BadInput(format!(
            "{}: cannot encode the snapshot: {error}",
            path.display()
        ))
    })?;
    print(&format!("{json}\n"))
}
