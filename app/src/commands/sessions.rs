//! `chatsurface sessions [--json]`: every session on this machine, newest first.

use super::print;
use crate::agents::catalog::{self, Folders};
use crate::error::AppError;

/// Prints the list: a line per session (agent, last activity, messages, open questions,
/// title, project folder, path), or one JSON array with `--json`.
pub(super) fn run(json: bool) -> Result<(), AppError> {
    let entries = catalog::list(&Folders::of_this_machine());
    if json {
        let text = serde_json::to_string_pretty(&entries)
            .map_err(|error| AppError::Internal(format!("cannot encode the list: {error}")))?;
        return print(&format!("{text}\n"));
    }
    let lines: String = entries
        .iter()
        .map(|entry| {
            format!(
                "{:<12} {}  {:>4} msgs  {:>2} open  {}  ({})  {}\n",
                entry.agent,
                entry.last_activity,
                entry.messages,
                entry.open_questions,
                entry.title,
                entry.project.as_deref().unwrap_or("-"),
                entry.path.display()
            )
        })
        .collect();
    print(&lines)
}
