//! Whether the human answered a permission prompt in Claude Code's terminal, read from the
//! transcript Claude Code writes.
//!
//! Claude Code does not stop a `PermissionRequest` hook when its own prompt is answered
//! (seen with 2.1.328: the hook runs on until Claude Code exits), so the hook would hold a
//! question on the surface that nobody waits for any more. What Claude Code does do is write
//! the tool call and its result into the session's transcript once the prompt is answered,
//! whichever way. So the hook watches the transcript: a call of the same tool with the same
//! input that gets its `tool_result` after the hook started was decided elsewhere, and the
//! hook leaves, which withdraws its question from the surface.
//!
//! This module reads bytes it is given; the file is the hook command's to read.

use super::permission::HookEvent;
use serde_json::Value;
use std::collections::HashSet;

/// The longest transcript line kept while it is still being written; a longer one (a huge
/// tool result) is skipped to its end, as it cannot be the result the watch waits for.
const MAX_LINE_BYTES: usize = 64 << 20;

/// Follows a transcript for the result of one tool call.
#[derive(Debug)]
pub struct TerminalAnswerWatch {
    tool_name: String,
    tool_input: Value,
    /// Ids of matching calls that have no result yet.
    unanswered: HashSet<String>,
    /// The start of a line whose end has not been read yet.
    partial: Vec<u8>,
    /// Whether the rest of an over-long line is being skipped.
    skipping: bool,
}

impl TerminalAnswerWatch {
    /// A watch for the call `event` asks about.
    pub fn new(event: &HookEvent) -> TerminalAnswerWatch {
        TerminalAnswerWatch {
            tool_name: event.tool_name.clone(),
            tool_input: event.tool_input.clone(),
            unanswered: HashSet::new(),
            partial: Vec::new(),
            skipping: false,
        }
    }

    /// Reads what the transcript held when the hook started: calls already answered then
    /// are not this prompt's.
    pub fn read_past(&mut self, bytes: &[u8]) {
        self.read(bytes);
    }

    /// Reads what was appended since; true once a matching call got its result.
    pub fn read_new(&mut self, bytes: &[u8]) -> bool {
        self.read(bytes)
    }

    fn read(&mut self, mut bytes: &[u8]) -> bool {
        let mut answered = false;
        while let Some(end) = bytes.iter().position(|&byte| byte == b'\n') {
            if self.skipping {
                self.skipping = false;
            } else {
                self.partial.extend_from_slice(&bytes[..end]);
                let line = std::mem::take(&mut self.partial);
                answered |= self.read_line(&line);
            }
            bytes = &bytes[end + 1..];
        }
        if !self.skipping {
            self.partial.extend_from_slice(bytes);
            if self.partial.len() > MAX_LINE_BYTES {
                self.partial.clear();
                self.skipping = true;
            }
        }
        answered
    }

    /// One record: a matching call is remembered; a result for one is the answer.
    fn read_line(&mut self, line: &[u8]) -> bool {
        let Ok(record) = serde_json::from_slice::<Value>(line) else {
            return false;
        };
        let Some(blocks) = record
            .get("message")
            .and_then(|message| message.get("content"))
            .and_then(Value::as_array)
        else {
            return false;
        };
        let mut answered = false;
        for block in blocks {
            let id = |field: &str| block.get(field).and_then(Value::as_str).map(str::to_owned);
            match block.get("type").and_then(Value::as_str) {
                Some("tool_use")
                    if block.get("name").and_then(Value::as_str) == Some(&self.tool_name)
                        && block.get("input") == Some(&self.tool_input) =>
                {
                    self.unanswered.extend(id("id"));
                }
                Some("tool_result") => {
                    answered |= id("tool_use_id").is_some_and(|id| self.unanswered.remove(&id));
                }
                _ => {}
            }
        }
        answered
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event() -> HookEvent {
        serde_json::from_value(json!({
            "session_id": "s", "hook_event_name": "PermissionRequest", "tool_name": "Bash",
            "tool_input": {"command": "touch ./x", "description": "Mark"},
        }))
        .unwrap()
    }

    fn call(id: &str, command: &str) -> String {
        json!({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": "Bash",
             "input": {"command": command, "description": "Mark"}}]}})
        .to_string()
            + "\n"
    }

    fn result(id: &str) -> String {
        json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": "ok"}]}})
        .to_string()
            + "\n"
    }

    #[test]
    fn the_matching_calls_result_after_the_start_is_the_terminals_answer() {
        let mut watch = TerminalAnswerWatch::new(&event());
        watch.read_past(format!("{}{}", call("t1", "touch ./x"), result("t1")).as_bytes());
        assert!(!watch.read_new(call("t2", "touch ./x").as_bytes()));
        assert!(
            !watch.read_new(result("t1").as_bytes()),
            "answered before the hook"
        );
        assert!(watch.read_new(result("t2").as_bytes()));
    }

    #[test]
    fn another_calls_result_and_a_line_split_across_reads_are_read_right() {
        let mut watch = TerminalAnswerWatch::new(&event());
        watch.read_past(b"");
        let both = format!("{}{}", call("t3", "rm -rf /"), result("t3"));
        assert!(!watch.read_new(both.as_bytes()), "another command");
        let ours = format!("{}{}", call("t4", "touch ./x"), result("t4"));
        let (head, tail) = ours.as_bytes().split_at(ours.len() - 20);
        assert!(!watch.read_new(head));
        assert!(watch.read_new(tail));
    }

    #[test]
    fn an_unanswered_call_at_the_start_is_watched_and_junk_is_skipped() {
        let mut watch = TerminalAnswerWatch::new(&event());
        watch.read_past(format!("not json\n{}", call("t5", "touch ./x")).as_bytes());
        assert!(!watch.read_new(b"{\"type\":\"user\"}\n"));
        assert!(watch.read_new(result("t5").as_bytes()));
    }
}
