//! Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) read into the canonical
//! events.
//!
//! A rollout holds each exchange twice: as `response_item` lines (what went to and came from
//! the model) and as `event_msg` lines (what the UI showed). The reader takes the
//! `response_item` copy only, so nothing shows twice: the human's messages (not the harness's
//! `<environment_context>` and instructions, nor the `developer` role), the agent's
//! messages, and each function call with its output as one tool message (the output a chunk
//! of the call's message, so a growing rollout only appends events). `request_user_input`
//! becomes a clarification batch, answered from its output, or withdrawn when Codex refused
//! the call. Other line types (`session_meta` aside, which names the session) are skipped.
//!
//! A sub-agent (a `spawn_agent` call, whose output names the agent's thread id) writes a
//! rollout of its own beside its parent's, its `session_meta` naming the parent; the reader
//! reads it where the call returned, as an exploration thread under the thread that spawned
//! it, and the catalog lists only the parent.
//!
//! A conversation reverted in Codex goes on in a rollout of its own (`segments.rs`): the
//! session shows the thread from its first rollout to its newest, whichever was opened, each
//! reverted part a parked branch. Not read: the older `thread_rolled_back` marker, which
//! Codex 0.169.0 no longer writes.
//!
//! This module reads; it must not write to the agent's files, nor know about the window.

mod segments;

pub(crate) use segments::newest_rollouts;

use super::events::Events;
use super::questions::question_items;
use super::{cut, output_block, title_of, ReadTranscript};
use chatsurface_model::{
    BatchCloseReason, ClarificationItem, EventBody, ItemAnswer, Role, Session, ThreadKind,
    ThreadStatus,
};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The thread the session's own messages are in.
const MAIN_THREAD: &str = "main";

/// How deep sub-agents of sub-agents are read; deeper ones stay a tool message.
const MAX_SUBAGENT_DEPTH: usize = 4;

/// Whether a record (one of a file's first) is a Codex rollout line.
pub(crate) fn looks_like(record: &Value) -> bool {
    let kind = record.get("type").and_then(Value::as_str);
    matches!(
        kind,
        Some("session_meta" | "response_item" | "event_msg" | "turn_context")
    ) && record.get("payload").is_some_and(Value::is_object)
}

/// The payload of a rollout's `session_meta` line, among its first lines.
fn meta_of(path: &Path) -> Option<Value> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).ok()?;
    std::io::BufReader::new(file)
        .lines()
        .take(16)
        .map_while(Result::ok)
        .find_map(|line| {
            let record: Value = serde_json::from_str(&line).ok()?;
            (kind_of(&record) == Some("session_meta")).then(|| record.get("payload").cloned())?
        })
}

/// The folder the session worked in: `session_meta.payload.cwd`.
pub(crate) fn project_of(path: &Path) -> Option<String> {
    meta_of(path)?.get("cwd")?.as_str().map(str::to_owned)
}

/// Whether a rollout is a sub-agent's, which its parent's session shows.
pub(crate) fn is_subagent(path: &Path) -> bool {
    meta_of(path).is_some_and(|meta| {
        meta.get("parent_thread_id").is_some_and(Value::is_string)
            || meta.pointer("/source/subagent").is_some()
    })
}

/// The rollout of the thread `id`: a file named `rollout-<time>-<id>.jsonl` in `dir`, the
/// folder of the rollout that names it (Codex writes a sub-agent's beside its parent's), or
/// else in any day folder of the sessions folder above it (`YYYY/MM/DD`), for a thread that
/// began after midnight.
fn rollout_of_thread(dir: &Path, id: &str) -> Option<PathBuf> {
    let suffix = format!("-{id}.jsonl");
    let named = |dir: &Path| {
        std::fs::read_dir(dir)
            .ok()?
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .find(|path| {
                path.file_name()
                    .is_some_and(|name| name.to_string_lossy().ends_with(&suffix))
            })
    };
    if let Some(found) = named(dir) {
        return Some(found);
    }
    let root = dir.ancestors().nth(3)?;
    let mut days = vec![root.to_owned()];
    for _ in 0..3 {
        days = days
            .iter()
            .filter_map(|dir| std::fs::read_dir(dir).ok())
            .flatten()
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.is_dir())
            .collect();
    }
    days.iter().find_map(|day| named(day))
}

/// Reads a rollout into events: its thread from its first rollout to its newest (see
/// `segments.rs`), each reverted part a parked branch where it was left.
pub(crate) fn read(path: &Path, bytes: &[u8]) -> ReadTranscript {
    let mut warnings = Vec::new();
    let lines = super::json_lines(path, bytes, "Codex rollout line", &mut warnings);
    let lineage = segments::lineage(path, lines, &mut warnings);
    let all_lines = || {
        lineage
            .older
            .iter()
            .flat_map(|part| part.kept.iter().chain(&part.reverted))
            .chain(&lineage.newest)
    };
    let meta = all_lines()
        .find(|line| kind_of(line) == Some("session_meta"))
        .and_then(|line| line.get("payload"));
    let session_id = meta
        .and_then(|meta| meta.get("id"))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| {
            path.file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "codex".to_owned());
    let title = first_prompt(all_lines()).unwrap_or_else(|| "Codex session".to_owned());
    let mut reader = Reader {
        events: Events::default(),
        calls: HashMap::new(),
        thread: MAIN_THREAD.to_owned(),
        dir: path.parent().map(Path::to_owned).unwrap_or_default(),
        depth: 0,
        read_beside: lineage.read_beside.clone(),
        warnings: Vec::new(),
    };
    let started = all_lines().next().and_then(timestamp);
    reader.events.push(
        started.clone(),
        EventBody::SessionStarted {
            session: Session {
                id: session_id.as_str().into(),
                title: title_of(&title),
                agent: Some("codex".to_owned()),
                created_by: None,
            },
        },
    );
    reader
        .events
        .open_thread(started, MAIN_THREAD, None, &title, ThreadKind::Topic);
    for (number, part) in lineage.older.iter().enumerate() {
        reader.lines(&part.kept);
        reader.reverted(number + 1, &part.reverted);
    }
    reader.lines(&lineage.newest);
    warnings.append(&mut reader.warnings);
    ReadTranscript {
        events: reader.events.list,
        warnings,
        read_beside: reader.read_beside,
        unfinished: false,
    }
}

/// The first thing the human typed among `lines`.
fn first_prompt<'a>(lines: impl IntoIterator<Item = &'a Value>) -> Option<String> {
    lines
        .into_iter()
        .filter_map(response_item)
        .find_map(|item| {
            (role_of(item) == Some("user"))
                .then(|| human_text(item))
                .flatten()
        })
}

fn kind_of(line: &Value) -> Option<&str> {
    line.get("type").and_then(Value::as_str)
}

fn timestamp(line: &Value) -> Option<String> {
    line.get("timestamp")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

fn response_item(line: &Value) -> Option<&Map<String, Value>> {
    (kind_of(line) == Some("response_item"))
        .then(|| line.get("payload")?.as_object())
        .flatten()
}

fn role_of(item: &Map<String, Value>) -> Option<&str> {
    (item.get("type").and_then(Value::as_str) == Some("message"))
        .then(|| item.get("role")?.as_str())
        .flatten()
}

/// The text of a message item's content parts.
fn content_text(item: &Map<String, Value>) -> String {
    item.get("content")
        .and_then(Value::as_array)
        .map(|parts| {
            parts
                .iter()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n\n")
        })
        .unwrap_or_default()
}

/// What the human typed, or `None` for the harness's own user-role messages (the
/// environment, instructions, AGENTS.md), which Codex sends as the user but nobody wrote.
fn human_text(item: &Map<String, Value>) -> Option<String> {
    let text = content_text(item);
    let trimmed = text.trim_start();
    let harness = [
        "<environment_context>",
        "<user_instructions>",
        "<skills_instructions>",
        "<permissions",
        "# AGENTS.md",
        "<turn_aborted>",
        "<subagent_notification>",
    ];
    (!trimmed.is_empty() && !harness.iter().any(|tag| trimmed.starts_with(tag)))
        .then(|| text.trim().to_owned())
}

/// A function call waiting for its output.
struct Call {
    name: String,
    arguments: Value,
    /// The tool message's id (none for a question).
    message: Option<String>,
}

struct Reader {
    events: Events,
    calls: HashMap<String, Call>,
    /// The thread the lines being read are in: the main one, or a sub-agent's.
    thread: String,
    /// The rollout's folder, where its sub-agents' rollouts are.
    dir: PathBuf,
    /// How many sub-agents deep the lines being read are.
    depth: usize,
    /// The sub-agents' rollouts read.
    read_beside: Vec<PathBuf>,
    warnings: Vec<String>,
}

impl Reader {
    /// Reads the `response_item` lines among `lines` into the current thread.
    fn lines(&mut self, lines: &[Value]) {
        for line in lines {
            if let Some(item) = response_item(line) {
                self.item(timestamp(line), item);
            }
        }
    }

    /// The `number`th part of the conversation Codex reverted, as a parked branch of the
    /// main thread titled `↩ <its first prompt>`.
    fn reverted(&mut self, number: usize, lines: &[Value]) {
        if !lines.iter().any(|line| response_item(line).is_some()) {
            return;
        }
        let title = format!(
            "↩ {}",
            first_prompt(lines).unwrap_or_else(|| "Reverted turns".to_owned())
        );
        let thread = format!("reverted-{number}");
        let at = lines.first().and_then(timestamp);
        self.events
            .open_parked_branch(at, &thread, MAIN_THREAD, &title);
        let main = std::mem::replace(&mut self.thread, thread);
        self.lines(lines);
        self.thread = main;
    }

    fn item(&mut self, at: Option<String>, item: &Map<String, Value>) {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => match role_of(item) {
                Some("user") => {
                    if let Some(text) = human_text(item) {
                        self.events.message(at, &self.thread, Role::User, text);
                    }
                }
                Some("assistant") => {
                    let text = content_text(item);
                    if !text.trim().is_empty() {
                        self.events.message(at, &self.thread, Role::Agent, text);
                    }
                }
                _ => {}
            },
            Some("function_call" | "custom_tool_call") => self.call(at, item),
            Some("function_call_output" | "custom_tool_call_output") => self.output(at, item),
            _ => {}
        }
    }

    fn call(&mut self, at: Option<String>, item: &Map<String, Value>) {
        let text = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or("");
        let (name, call_id) = (text("name").to_owned(), text("call_id").to_owned());
        let arguments = match item.get("arguments").or_else(|| item.get("input")) {
            Some(Value::String(raw)) => {
                serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.clone()))
            }
            Some(other) => other.clone(),
            None => Value::Null,
        };
        let message = if name == "request_user_input" {
            self.ask(at, &call_id, &arguments);
            None
        } else {
            let line = format!("**{name}** {}", describe(&name, &arguments));
            Some(self.events.message(at, &self.thread, Role::Tool, line))
        };
        self.calls.insert(
            call_id,
            Call {
                name,
                arguments,
                message,
            },
        );
    }

    fn ask(&mut self, at: Option<String>, call_id: &str, arguments: &Value) {
        let items = question_items(arguments);
        if items.is_empty() {
            return;
        }
        self.events.open_batch(at, call_id, &self.thread, items);
    }

    fn output(&mut self, at: Option<String>, item: &Map<String, Value>) {
        let call_id = item.get("call_id").and_then(Value::as_str).unwrap_or("");
        let Some(call) = self.calls.remove(call_id) else {
            return;
        };
        let output = match item.get("output") {
            Some(Value::String(text)) => text.clone(),
            Some(Value::Object(map)) => map
                .get("content")
                .and_then(Value::as_str)
                .map_or_else(|| Value::Object(map.clone()).to_string(), str::to_owned),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        if call.name == "request_user_input" {
            self.settle(at, call_id, &call, &output);
            return;
        }
        let Some(message) = call.message else {
            return;
        };
        let text = output_block(&command_output(&output));
        self.events.push(
            at.clone(),
            EventBody::MessageChunkAppended {
                message_id: message.as_str().into(),
                text,
            },
        );
        if call.name == "spawn_agent" {
            self.subagent(at, &call.arguments, &output);
        }
    }

    /// The sub-agent a `spawn_agent` call started (its output names the agent's thread), read
    /// from its own rollout as an exploration thread under the thread that spawned it;
    /// resolved once its rollout says its task is complete.
    fn subagent(&mut self, at: Option<String>, arguments: &Value, output: &str) {
        let Ok(spawned) = serde_json::from_str::<Value>(output) else {
            return;
        };
        let Some(agent) = spawned.get("agent_id").and_then(Value::as_str) else {
            return;
        };
        if self.depth >= MAX_SUBAGENT_DEPTH {
            return;
        }
        let Some(path) = rollout_of_thread(&self.dir, agent) else {
            return;
        };
        let Ok(bytes) = std::fs::read(&path) else {
            return;
        };
        let lines = super::json_lines(&path, &bytes, "Codex rollout line", &mut self.warnings);
        self.read_beside.push(path);
        let task = arguments
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("Sub-agent");
        let title = match spawned.get("nickname").and_then(Value::as_str) {
            Some(nickname) => format!("{nickname}: {task}"),
            None => task.to_owned(),
        };
        let thread = format!("agent-{agent}");
        let parent = std::mem::replace(&mut self.thread, thread.clone());
        self.events
            .open_thread(at, &thread, Some(&parent), &title, ThreadKind::Exploration);
        self.depth += 1;
        self.lines(&lines);
        self.depth -= 1;
        self.thread = parent;
        let complete = lines.iter().any(|line| {
            kind_of(line) == Some("event_msg")
                && line.pointer("/payload/type").and_then(Value::as_str) == Some("task_complete")
        });
        if complete {
            self.events.status(None, &thread, ThreadStatus::Resolved);
        }
    }

    /// A question's output: the answers (`{"answers": {id: {"answers": [...]}}}`), or Codex's
    /// refusal, which withdraws it.
    fn settle(&mut self, at: Option<String>, call_id: &str, call: &Call, output: &str) {
        let items = question_items(&call.arguments);
        if items.is_empty() {
            return;
        }
        let answers = serde_json::from_str::<Value>(output)
            .ok()
            .and_then(|value| value.get("answers").and_then(Value::as_object).cloned());
        let body = match answers {
            Some(answers) => EventBody::ClarificationAnswerSubmitted {
                batch_id: call_id.into(),
                answers: items
                    .iter()
                    .zip(question_ids(&call.arguments))
                    .filter_map(|(item, id)| item_answer(item, answers.get(&id)?))
                    .collect(),
                general: None,
            },
            None => EventBody::ClarificationBatchClosed {
                batch_id: call_id.into(),
                reason: BatchCloseReason::Withdrawn,
            },
        };
        self.events.push(at, body);
    }
}

/// What a call does, in a line.
fn describe(name: &str, arguments: &Value) -> String {
    let field = |key: &str| arguments.get(key).and_then(Value::as_str);
    let one_line = |text: &str| cut(&text.replace('\n', " "), 300);
    match (name, arguments) {
        (_, Value::String(raw)) => format!("`{}`", one_line(raw.lines().next().unwrap_or(""))),
        ("exec_command" | "shell", _) => field("cmd")
            .or_else(|| field("command"))
            .map(|command| format!("`{}`", one_line(command)))
            .unwrap_or_default(),
        _ => one_line(&arguments.to_string()),
    }
}

/// The command's own output, without the header Codex puts before it (chunk id, wall time,
/// exit code, token count) up to its `Output:` line; the exit code is kept when not 0.
fn command_output(output: &str) -> String {
    let Some((header, rest)) = output.split_once("\nOutput:\n") else {
        return output.to_owned();
    };
    let failed = header
        .lines()
        .find_map(|line| line.strip_prefix("Process exited with code "))
        .filter(|code| code.trim() != "0");
    match failed {
        Some(code) => format!("(exit {code})\n{rest}"),
        None => rest.to_owned(),
    }
}

fn question_ids(arguments: &Value) -> Vec<String> {
    arguments
        .get("questions")
        .and_then(Value::as_array)
        .map(|questions| {
            questions
                .iter()
                .enumerate()
                .map(|(index, question)| {
                    question
                        .get("id")
                        .and_then(Value::as_str)
                        .map_or_else(|| format!("q{}", index + 1), str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// One item's answer: `{"answers": ["label" | "user_note: text", …]}`.
fn item_answer(item: &ClarificationItem, given: &Value) -> Option<ItemAnswer> {
    let answers = given.get("answers")?.as_array()?;
    let mut answer = ItemAnswer {
        item_id: item.id.clone(),
        ..ItemAnswer::default()
    };
    for given in answers.iter().filter_map(Value::as_str) {
        match item.options.iter().find(|option| option.label == given) {
            Some(option) => answer.selected.push(option.id.clone()),
            None => {
                let text = given.strip_prefix("user_note: ").unwrap_or(given);
                answer.text = Some(text.to_owned());
            }
        }
    }
    answer.selected.truncate(1);
    Some(answer)
}

#[cfg(test)]
mod tests;
