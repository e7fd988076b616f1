//! Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/session-*.jsonl`) read into the
//! canonical events.
//!
//! The file starts with the session's metadata line; the lines after it change the
//! session's message list (`history.rs` replays them). Shown: the human's messages (not
//! `<session_context>`, nor the function responses sent back as the user), Gemini's, each
//! tool call with its result as one tool message, an `ask_user` call as a clarification
//! batch (answered, withdrawn when dismissed, open while it waits), and `info` / `error`
//! lines as system messages. A sub-agent (an `invoke_agent` call, whose `agentId` names the
//! file Gemini CLI writes it to, `chats/<session id>/<agent id>.jsonl`) is an exploration
//! thread under the thread that called it, titled `<agent>: <prompt>`, resolved once the call
//! has its result, and followed as it grows. What the session dropped (a `/rewind`, an interrupted turn
//! rolled back, a dismissed question's turn) is a parked branch titled `↩ <its first
//! prompt>`, opened where it left the list. Because a message can be replaced, a session
//! that grew is folded anew when an earlier message changed (see `AgentTranscript::follow`).
//!
//! The older whole-file sessions (`session-*.json`, up to Gemini CLI 0.30) are read as the
//! lines they would be today (`whole_file.rs`); one caught while Gemini CLI rewrites it is
//! left for the next read.
//!
//! This module reads; it must not write to the agent's files, nor know about the window.

mod history;
mod whole_file;

use super::events::Events;
use super::questions::{answer_from_words, question_items};
use super::{cut, output_block, title_of, ReadTranscript};
use chatsurface_model::{BatchCloseReason, EventBody, Role, Session, ThreadKind, ThreadStatus};
use history::{id_of, History};
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The thread the messages the session holds now are in.
const MAIN_THREAD: &str = "main";

/// How deep sub-agents of sub-agents are read (a bound, so that files naming each other
/// cannot loop).
const MAX_SUBAGENT_DEPTH: usize = 4;

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

pub(crate) use whole_file::looks_like as looks_like_whole_file;

/// Reads a session (JSON Lines, or the older whole file) into events.
pub(crate) fn read(path: &Path, bytes: &[u8]) -> ReadTranscript {
    let mut warnings = Vec::new();
    let lines = match whole_file::read(bytes) {
        whole_file::WholeFile::Lines(lines) => lines,
        whole_file::WholeFile::Unfinished => {
            return ReadTranscript {
                unfinished: true,
                ..ReadTranscript::default()
            }
        }
        whole_file::WholeFile::No => {
            super::json_lines(path, bytes, "Gemini CLI session line", &mut warnings)
        }
    };
    let session_id = lines
        .iter()
        .filter(|line| line.get("projectHash").is_some())
        .find_map(|line| line.get("sessionId").and_then(Value::as_str))
        .map(str::to_owned)
        .or_else(|| {
            path.file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "gemini".to_owned());
    let history = History::replay(&lines);
    let title = first_prompt(&history.kept)
        .or_else(|| first_prompt(history.dropped.iter().flat_map(|run| &run.records)))
        .unwrap_or_else(|| "Gemini CLI session".to_owned());
    let chats = path.parent().map(Path::to_owned).unwrap_or_default();
    let mut reader = Reader {
        events: Events::default(),
        batches: HashSet::new(),
        subagents: chats.join(&session_id),
        depth: 0,
        read_beside: Vec::new(),
        warnings: Vec::new(),
    };
    let started = history
        .kept
        .iter()
        .chain(history.dropped.iter().flat_map(|run| &run.records))
        .filter_map(timestamp)
        .min();
    reader.events.push(
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
    reader
        .events
        .open_thread(started, MAIN_THREAD, None, &title, ThreadKind::Topic);
    let mut branches = 0;
    let mut branches_after = |after: Option<&str>, reader: &mut Reader| {
        for run in history
            .dropped
            .iter()
            .filter(|run| run.after.as_deref() == after)
        {
            if reader.branch(branches + 1, &run.records) {
                branches += 1;
            }
        }
    };
    branches_after(None, &mut reader);
    for record in &history.kept {
        reader.message(MAIN_THREAD, record);
        branches_after(id_of(record), &mut reader);
    }
    warnings.append(&mut reader.warnings);
    ReadTranscript {
        events: reader.events.list,
        warnings,
        read_beside: reader.read_beside,
        unfinished: false,
    }
}

/// The first thing the human typed among `records`.
fn first_prompt<'a>(records: impl IntoIterator<Item = &'a Value>) -> Option<String> {
    records
        .into_iter()
        .filter(|record| kind_of(record) == Some("user"))
        .find_map(human_text)
}

struct Reader {
    events: Events,
    /// The batches opened, by the id of the `ask_user` call (a call shows once).
    batches: HashSet<String>,
    /// The folder the session's sub-agents are written to (`chats/<session id>/`).
    subagents: PathBuf,
    /// How many sub-agents deep the records being read are.
    depth: usize,
    /// The sub-agents' files read, and their folder.
    read_beside: Vec<PathBuf>,
    warnings: Vec<String>,
}

impl Reader {
    /// The `number`th run the session dropped, as a parked branch of the main thread titled
    /// `↩ <its first prompt>`; a run without a prompt (the context, function responses) is
    /// no branch, and false is returned.
    fn branch(&mut self, number: usize, records: &[Value]) -> bool {
        let Some(prompt) = first_prompt(records) else {
            return false;
        };
        let thread = format!("dropped-{number}");
        let at = records.iter().find_map(timestamp);
        self.events
            .open_parked_branch(at, &thread, MAIN_THREAD, &format!("↩ {prompt}"));
        for record in records {
            self.message(&thread, record);
        }
        true
    }

    /// One record of the list, in `thread`.
    fn message(&mut self, thread: &str, record: &Value) {
        let at = timestamp(record);
        match kind_of(record) {
            Some("user") => {
                if let Some(text) = human_text(record) {
                    self.events.message(at, thread, Role::User, text);
                }
            }
            Some("gemini") => {
                let text = content_text(record.get("content"));
                if !text.trim().is_empty() {
                    self.events.message(at.clone(), thread, Role::Agent, text);
                }
                for call in record
                    .get("toolCalls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if call.get("name").and_then(Value::as_str) == Some("ask_user") {
                        self.ask(at.clone(), thread, call);
                    } else {
                        self.events
                            .message(at.clone(), thread, Role::Tool, tool_message(call));
                        self.subagent(at.clone(), thread, call);
                    }
                }
            }
            Some("info" | "error" | "warning") => {
                let text = content_text(record.get("content"));
                if !text.trim().is_empty() {
                    self.events.message(at, thread, Role::System, text);
                }
            }
            _ => {}
        }
    }

    /// The sub-agent a call ran (its `agentId`), read from its own file as an exploration
    /// thread under `thread`; resolved once the call has its result.
    fn subagent(&mut self, at: Option<String>, thread: &str, call: &Value) {
        let Some(agent) = call.get("agentId").and_then(Value::as_str) else {
            return;
        };
        if self.depth >= MAX_SUBAGENT_DEPTH || agent.contains(['/', '\\']) {
            return;
        }
        let path = self.subagents.join(format!("{agent}.jsonl"));
        if self.read_beside.contains(&path) {
            return;
        }
        if !self.read_beside.contains(&self.subagents) {
            self.read_beside.push(self.subagents.clone());
        }
        self.read_beside.push(path.clone());
        let lines = match std::fs::read(&path) {
            Ok(bytes) => {
                super::json_lines(&path, &bytes, "Gemini CLI session line", &mut self.warnings)
            }
            Err(_) => Vec::new(),
        };
        let args = call.get("args").unwrap_or(&Value::Null);
        let field = |key: &str| args.get(key).and_then(Value::as_str);
        let title = match (field("agent_name"), field("prompt")) {
            (Some(name), Some(prompt)) => format!("{name}: {prompt}"),
            (name, prompt) => name.or(prompt).unwrap_or("Sub-agent").to_owned(),
        };
        let explorer = format!("agent-{agent}");
        self.events.open_thread(
            at.clone(),
            &explorer,
            Some(thread),
            &title,
            ThreadKind::Exploration,
        );
        self.depth += 1;
        for record in &History::replay(&lines).kept {
            self.message(&explorer, record);
        }
        self.depth -= 1;
        if function_responses(call).next().is_some() {
            self.events.status(None, &explorer, ThreadStatus::Resolved);
        }
    }

    /// An `ask_user` call as a clarification batch, settled by its result: the answers
    /// (`{"answers": {"<question index>": "<words>"}}`), or withdrawn when the human
    /// dismissed it (the call cancelled, or its stock "dismissed" output).
    fn ask(&mut self, at: Option<String>, thread: &str, call: &Value) {
        let Some(id) = call.get("id").and_then(Value::as_str) else {
            return;
        };
        let items = question_items(call.get("args").unwrap_or(&Value::Null));
        if items.is_empty() || !self.batches.insert(id.to_owned()) {
            return;
        }
        self.events
            .open_batch(at.clone(), id, thread, items.clone());
        let Some(response) = function_responses(call).next() else {
            return;
        };
        let answers = response
            .get("output")
            .and_then(Value::as_str)
            .and_then(|output| serde_json::from_str::<Value>(output).ok())
            .and_then(|output| output.get("answers").and_then(Value::as_object).cloned());
        let body = match answers {
            Some(answers) => EventBody::ClarificationAnswerSubmitted {
                batch_id: id.into(),
                answers: items
                    .iter()
                    .enumerate()
                    .filter_map(|(index, item)| {
                        let given = answers.get(&index.to_string())?.as_str()?;
                        Some(answer_from_words(item, given))
                    })
                    .collect(),
                general: None,
            },
            None => EventBody::ClarificationBatchClosed {
                batch_id: id.into(),
                reason: BatchCloseReason::Withdrawn,
            },
        };
        self.events.push(at, body);
    }
}

/// The `response` of each `functionResponse` part of a tool call's result.
fn function_responses(call: &Value) -> impl Iterator<Item = &Value> {
    call.get("result")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|part| part.get("functionResponse")?.get("response"))
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
    let output: Vec<String> = function_responses(call)
        .map(
            |response| match response.get("output").or_else(|| response.get("error")) {
                Some(Value::String(text)) => text.clone(),
                Some(other) => other.to_string(),
                None => response.to_string(),
            },
        )
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
