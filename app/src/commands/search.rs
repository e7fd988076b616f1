//! `chatsurface search QUERY [--agent A] [--since WHEN] [--json]`: words said in any session
//! on this machine, through the search index (`search_index.rs`).

use super::print;
use crate::agents::catalog::Folders;
use crate::cli::SearchArgs;
use crate::error::AppError;
use crate::search_index::{Found, SearchIndex};
use std::time::UNIX_EPOCH;

/// Brings the index up to date, searches it and prints the results, best first.
pub(super) fn run(args: &SearchArgs) -> Result<(), AppError> {
    if let Some(agent) = &args.agent {
        let known = ["chatsurface", "claude-code", "codex", "gemini"];
        if !known.contains(&agent.as_str()) {
            return Err(AppError::Usage(format!(
                "--agent: \"{agent}\" is none of {}",
                known.join(", ")
            )));
        }
    }
    let since = args.since.map(|since| {
        since
            .duration_since(UNIX_EPOCH)
            .map_or(0, |after| after.as_secs() as i64)
    });
    let keep = |found: &Found| {
        args.agent
            .as_deref()
            .is_none_or(|agent| found.agent == agent)
            && since.is_none_or(|since| found.modified >= since)
    };
    let query = args.query.join(" ");
    let dir = crate::paths::data_dir().join("search-index");
    let folders = Folders::of_this_machine();
    let index = SearchIndex::open_current(&dir, &folders)?;
    let found = match index.search(&query, args.limit.max(1), keep) {
        Ok(found) => found,
        Err(error) => {
            // An index whose files broke after it opened is rebuilt once from the logs.
            eprintln!(
                "note: {}: {error}; rebuilding the search index",
                dir.display()
            );
            drop(index);
            std::fs::remove_dir_all(&dir)
                .map_err(|error| AppError::CannotCreate(format!("{}: {error}", dir.display())))?;
            SearchIndex::open_current(&dir, &folders)?.search(&query, args.limit.max(1), keep)?
        }
    };
    if args.json {
        let text = serde_json::to_string_pretty(&found)
            .map_err(|error| AppError::Internal(format!("cannot encode the results: {error}")))?;
        return print(&format!("{text}\n"));
    }
    let lines: String = found
        .iter()
        .map(|found| {
            format!(
                "{}  {} › {}  ({})\n    {}\n    {}\n",
                found.agent,
                chatsurface_compositor::one_line(&found.session, 80),
                chatsurface_compositor::one_line(&found.thread, 60),
                found.node,
                found.snippet,
                found.path.display()
            )
        })
        .collect();
    print(&lines)
}
