//! Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/session-*.jsonl`) read into the
//! canonical events.
//!
//! The file starts with the session's metadata line; then each message is a line with an
//! `id`, and a message written again with the same `id` (a turn whose tool calls and their
//! results came in) replaces the earlier copy where it stood. `$set` lines update the
//! metadata, or set the message list whole (the context Gemini CLI starts with). Shown: the
//! human's messages (not `<session_context>`, nor the function responses sent back as the
//! user), Gemini's, each tool call with its result as one tool message, and `info` / `error`
//! lines as system messages. Because a message can be replaced, a session that grew is
//! folded anew when an earlier message changed (see `AgentTranscript::follow`).
//!
//! Not read yet: `$rewindTo` (what it removes, as a parked branch), `ask_user` calls and the
//! older whole-file `.json` sessions; no fixture written by the real Gemini CLI holds them.
//!
//! This module reads; it must not write to the agent's files, nor know about the window.

use super::events::Events;
use super::{cut, output_block, title_of, ReadTranscript};
use chatsurface_model::{EventBody, Role, Session, ThreadKind};
use serde_json::Value;
use std::path::Path;

/// The thread every message of a session is in.
const MAIN_THREAD: &str = "main";

/// Whether a record (one of a file's first) is a Gemini CLI session line: its metadata line
/// (`sessionId` and `projectHash`) or a `$set`.
pub(crate) fn looks_like(record: &Value) -> bool {
    (record.get("sessionId").is_some() && record.get("projectHash").is_some())
        || record.get("$set").is_some_and(Value::is_object)
}

/// The folder the session worked in, from the context Gemini CLI wrote first.
pub(crate) fn project_of(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let after = text.split("Workspace Directories:**\\n  - ").nth(1)?;
    Some(after.split("\\n").next()?.to_owned())
}

/// Reads a session into events.
pub(crate) fn read(path: &Path, bytes: &[u8]) -> ReadTranscript {
    let mut warnings = Vec::new();
    let lines = super::json_lines(path, bytes, "Gemini CLI session line", &mut warnings);
    let mut session_id = None;
    let mut messages: Vec<Value> = Vec::new();
    for line in lines {
        if let Some(set) = line.get("$set") {
            if let Some(Value::Array(list)) = set.get("messages") {
                messages = list.clone();
            }
            continue;
        }
        if line.get("projectHash").is_some() {
            session_id = line
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_owned);
            continue;
        }
        let Some(id) = line.get("id").and_then(Value::as_str) else {
            continue;
        };
        match messages
            .iter_mut()
            .find(|message| message.get("id").and_then(Value::as_str) == Some(id))
        {
            Some(earlier) => *earlier = line,
            None => messages.push(line),
        }
    }
    let session_id = session_id
        .or_else(|| {
            path.file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "gemini".to_owned());
    let title = messages
        .iter()
        .filter(|message| kind_of(message) == Some("user"))
        .find_map(human_text)
        .unwrap_or_else(|| "Gemini CLI session".to_owned());
    let mut events = Events::default();
    let started = messages.first().and_then(timestamp);
    events.push(
        started.clone(),
        EventBody::SessionStarted {
            session: Session {
                id: session_id.as_str().into(),
                title: title_of(&title),
                agent: Some("gemini".to_owned()),
                created_by: None,
            },
        },
    );
    events.open_thread(started, MAIN_THREAD, None, &title, ThreadKind::Topic);
    for message in &messages {
        let at = timestamp(message);
        match kind_of(message) {
            Some("user") => {
                if let Some(text) = human_text(message) {
                    events.message(at, MAIN_THREAD, Role::User, text);
                }
            }
            Some("gemini") => {
                let text = content_text(message.get("content"));
                if !text.trim().is_empty() {
                    events.message(at.clone(), MAIN_THREAD, Role::Agent, text);
                }
                for call in message
                    .get("toolCalls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    events.message(at.clone(), MAIN_THREAD, Role::Tool, tool_message(call));
                }
            }
            Some("info" | "error" | "warning") => {
                let text = content_text(message.get("content"));
                if !text.trim().is_empty() {
                    events.message(at, MAIN_THREAD, Role::System, text);
                }
            }
            _ => {}
        }
    }
    ReadTranscript {
        events: events.list,
        warnings,
        read_beside: Vec::new(),
    }
}

fn kind_of(message: &Value) -> Option<&str> {
    message.get("type").and_then(Value::as_str)
}

fn timestamp(message: &Value) -> Option<String> {
    message
        .get("timestamp")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The text of a message's content: a string, or the `text` of its parts.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n\n"),
        _ => String::new(),
    }
}

/// What the human typed, or `None` for the context Gemini CLI sends as the user and for the
/// function responses it sends back.
fn human_text(message: &Value) -> Option<String> {
    let text = content_text(message.get("content"));
    let trimmed = text.trim();
    (!trimmed.is_empty() && !trimmed.starts_with("<session_context>")).then(|| trimmed.to_owned())
}

/// A tool call and its result as one message: the tool, its command or file, the output.
fn tool_message(call: &Value) -> String {
    let name = call.get("name").and_then(Value::as_str).unwrap_or("tool");
    let args = call.get("args").cloned().unwrap_or(Value::Null);
    let field = |key: &str| args.get(key).and_then(Value::as_str);
    let what = field("command")
        .or_else(|| field("file_path"))
        .or_else(|| field("dir_path"))
        .or_else(|| field("pattern"))
        .map(|what| format!("`{}`", cut(&what.replace('\n', " "), 300)))
        .unwrap_or_else(|| cut(&args.to_string(), 300));
    let output: Vec<String> = call
        .get("result")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|part| {
            let response = part.get("functionResponse")?.get("response")?;
            Some(
                match response.get("output").or_else(|| response.get("error")) {
                    Some(Value::String(text)) => text.clone(),
                    Some(other) => other.to_string(),
                    None => response.to_string(),
                },
            )
        })
        .collect();
    // A call whose result has not come yet shows the call alone.
    if output.is_empty() {
        return format!("**{name}** {what}");
    }
    format!(
        "**{name}** {what}{}",
        output_block(&shell_output(&output.join("\n")))
    )
}

/// A shell tool's output without the wrapper Gemini CLI puts around it for the model
/// (`<untrusted_context>`, `Output: `, the process group line).
fn shell_output(output: &str) -> String {
    let inner = output
        .trim()
        .strip_prefix("<untrusted_context>")
        .and_then(|rest| rest.strip_suffix("</untrusted_context>"))
        .unwrap_or(output);
    inner
        .trim()
        .lines()
        .filter(|line| !line.starts_with("Process Group PGID:"))
        .map(|line| line.strip_prefix("Output: ").unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests;
