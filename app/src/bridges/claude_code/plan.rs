//! Where the plan an `ExitPlanMode` asks to approve was written.
//!
//! Claude Code hands the hook `ExitPlanMode` with an empty input (seen with 2.1.328): in plan
//! mode the model writes its plan to a file in `<Claude Code's config dir>/plans/`, named in
//! its instructions, and the terminal shows that file. So the hook finds in the transcript
//! the last file the session wrote or edited in that folder, and shows it. Only a file
//! directly in that folder is taken, so a transcript cannot make the hook read anything else.
//! This module reads the bytes it is given; the files are the hook command's to read.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The plans folder beside the `projects` folder a transcript is in
/// (`<config>/projects/<project>/<session>.jsonl` → `<config>/plans`).
pub fn plans_dir(transcript: &Path) -> Option<PathBuf> {
    let projects = transcript.parent()?.parent()?;
    (projects.file_name()? == "projects").then(|| projects.parent().map(|c| c.join("plans")))?
}

/// The last plan file the transcript shows written or edited in `plans_dir`.
pub fn last_plan_file(transcript: &[u8], plans_dir: &Path) -> Option<PathBuf> {
    transcript
        .split(|&byte| byte == b'\n')
        .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
        .flat_map(|record| {
            let blocks = record
                .get("message")
                .and_then(|message| message.get("content"))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            blocks.into_iter().filter_map(|block| {
                let writes = matches!(
                    block.get("name").and_then(Value::as_str),
                    Some("Write" | "Edit" | "MultiEdit")
                );
                let path = block.get("input")?.get("file_path")?.as_str()?;
                let path = Path::new(path);
                (block.get("type")? == "tool_use"
                    && writes
                    && path.parent() == Some(plans_dir)
                    && path.extension().is_some_and(|extension| extension == "md"))
                .then(|| path.to_path_buf())
            })
        })
        .last()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn write(path: &str) -> String {
        json!({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": "t", "name": "Write",
             "input": {"file_path": path, "content": "## Plan"}}]}})
        .to_string()
    }

    #[test]
    fn the_plans_folder_sits_beside_projects() {
        assert_eq!(
            plans_dir(Path::new("/h/.claude/projects/-p/s.jsonl")),
            Some(PathBuf::from("/h/.claude/plans"))
        );
        assert_eq!(plans_dir(Path::new("/h/elsewhere/-p/s.jsonl")), None);
    }

    #[test]
    fn the_last_plan_written_in_the_folder_is_taken_and_nothing_outside_it() {
        let plans = Path::new("/h/.claude/plans");
        let transcript = [
            write("/h/.claude/plans/first.md"),
            "not json".into(),
            write("/h/.claude/plans/second.md"),
            write("/h/.claude/plans/../../../etc/passwd.md"),
            write("/h/project/notes.md"),
            write("/h/.claude/plans/run.sh"),
        ]
        .join("\n");
        assert_eq!(
            last_plan_file(transcript.as_bytes(), plans),
            Some(PathBuf::from("/h/.claude/plans/second.md"))
        );
        assert_eq!(last_plan_file(write("/h/x.md").as_bytes(), plans), None);
    }
}
