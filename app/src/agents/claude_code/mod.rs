//! Claude Code's transcripts (`~/.claude/projects/<dir>/<session>.jsonl`) read into the
//! canonical events.
//!
//! The records form a tree by `uuid` / `parentUuid` (`logicalParentUuid` across a
//! compaction). The active path (to the newest `last-prompt.leafUuid`, else to the last
//! conversation record) is the main thread; every other path (a rewind, an interrupt and
//! retry) becomes a parked branch off the record where it split, titled from its first prompt.
//! A sub-agent (`<session>/subagents/agent-<id>.jsonl`, joined to the `Agent` / `Task` call
//! that started it) is an exploration thread titled with the call's description. Assistant
//! records of one `message.id` are one message; a tool call and its result are one tool
//! message (the result arrives as a chunk, so a growing transcript only ever appends events).
//! A tool call refused by a permission check becomes a declined confirmation naming the tool
//! and its command; `AskUserQuestion` an answered batch; `ExitPlanMode` a confirmation with
//! the plan. Records of other types (the harness's attachments, request blobs, costs, account
//! records) are skipped: they are not the conversation, and some hold what must not be shown.
//!
//! This module reads; it must not write to the agent's files, nor know about the window.

mod fields;
mod records;
mod tree;

use super::events::Events;
use super::{cut, output_block, title_of, ReadTranscript};
use chatsurface_model::{
    BatchCloseReason, ConfirmationOutcome, ConfirmationSpec, EventBody, ItemAnswer, Role, Session,
    ThreadKind, ThreadStatus,
};
use records::{Record, ToolResult};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// The thread id of the active path.
const MAIN_THREAD: &str = "main";

/// Whether a record (one of a file's first) looks like Claude Code's: a `type` and the
/// `sessionId` (or, on a conversation record, `uuid`) every record of its carries.
pub(crate) fn looks_like(record: &Value) -> bool {
    record.get("type").is_some_and(Value::is_string)
        && (record.get("sessionId").is_some_and(Value::is_string)
            || record.get("uuid").is_some_and(Value::is_string)
            || record.get("leafUuid").is_some_and(Value::is_string))
}

/// The folder the session worked in: the first record's `cwd`.
pub(crate) fn project_of(path: &Path) -> Option<String> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).ok()?;
    std::io::BufReader::new(file)
        .lines()
        .take(64)
        .map_while(Result::ok)
        .find_map(|line| {
            let record: Value = serde_json::from_str(&line).ok()?;
            record.get("cwd")?.as_str().map(str::to_owned)
        })
}

/// Reads a transcript from `reader`, one line at a time (and its sub-agents' files beside
/// `path`), into events.
pub(crate) fn read(path: &Path, reader: impl std::io::BufRead) -> ReadTranscript {
    let mut warnings = Vec::new();
    let records = records::parse(path, reader, &mut warnings);
    let mut events = Events::default();
    let session_id = records
        .iter()
        .find_map(|record| record.session_id.clone())
        .or_else(|| {
            path.file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "claude-code".to_owned());
    let title = records::title(&records).unwrap_or_else(|| "Claude Code session".to_owned());
    events.push(
        records.first().and_then(|record| record.timestamp.clone()),
        EventBody::SessionStarted {
            session: Session {
                id: session_id.as_str().into(),
                title: title_of(&title),
                agent: Some("claude-code".to_owned()),
                created_by: None,
            },
        },
    );
    events.open_thread(None, MAIN_THREAD, None, &title, ThreadKind::Topic);
    let threads = tree::assign_threads(&records);
    let subagents = path.with_extension("").join("subagents");
    let mut reader = Reader {
        events,
        records: &records,
        threads: &threads,
        opened: HashMap::from([(0usize, MAIN_THREAD.to_owned())]),
        tool_calls: HashMap::new(),
        subagents: &subagents,
        warnings: &mut warnings,
    };
    reader.read_all();
    let events = reader.events;
    ReadTranscript {
        events: events.list,
        warnings,
        read_beside: Vec::new(),
        unfinished: false,
    }
}

/// A tool call seen, waiting for its result.
struct ToolCall {
    /// The tool message's id.
    message: String,
    thread: String,
    name: String,
    input: Value,
}

/// Walks the records in file order and emits their events.
struct Reader<'a> {
    events: Events,
    records: &'a [Record],
    /// The thread (0 = main, then branches in order) each record belongs to.
    threads: &'a tree::Threads,
    /// Thread ids opened so far, by the tree's thread number.
    opened: HashMap<usize, String>,
    tool_calls: HashMap<String, ToolCall>,
    subagents: &'a Path,
    warnings: &'a mut Vec<String>,
}

impl Reader<'_> {
    fn read_all(&mut self) {
        let mut last_message_id: Option<(String, String)> = None;
        for (index, record) in self.records.iter().enumerate() {
            let Some(thread_number) = self.threads.of(index) else {
                continue;
            };
            let thread = self.thread_id(thread_number, index);
            let at = record.timestamp.clone();
            match record.kind.as_str() {
                "assistant" => {
                    let same = record.message_id.is_some()
                        && last_message_id.as_ref()
                            == record
                                .message_id
                                .as_ref()
                                .map(|id| (id.clone(), thread.clone()))
                                .as_ref();
                    self.assistant(record, &thread, same);
                    last_message_id = record.message_id.clone().map(|id| (id, thread.clone()));
                }
                "user" => {
                    self.user(record, &thread);
                    last_message_id = None;
                }
                "system" if record.subtype.as_deref() == Some("compact_boundary") => {
                    self.events.message(
                        at,
                        &thread,
                        Role::System,
                        "── The conversation was compacted here; what came before is above. ──"
                            .to_owned(),
                    );
                    last_message_id = None;
                }
                _ => {}
            }
        }
    }

    /// The event thread id of a tree thread, opening it at its first record.
    fn thread_id(&mut self, number: usize, first: usize) -> String {
        if let Some(id) = self.opened.get(&number) {
            return id.clone();
        }
        let id = format!("branch-{number}");
        let parent = self
            .threads
            .parent_of(number)
            .and_then(|parent| self.opened.get(&parent).cloned())
            .unwrap_or_else(|| MAIN_THREAD.to_owned());
        let title = self.threads.title_of(number, self.records);
        let at = self.records[first].timestamp.clone();
        self.events.open_parked_branch(at, &id, &parent, &title);
        self.opened.insert(number, id.clone());
        id
    }

    fn assistant(&mut self, record: &Record, thread: &str, continues: bool) {
        let at = record.timestamp.clone();
        for block in &record.content {
            match block {
                records::Block::Text(text) if !text.trim().is_empty() => {
                    let last = self.events.list.last().map(|(_, body)| body);
                    let appendable = continues
                        && matches!(last, Some(EventBody::MessageAppended { message }) if message.role == Role::Agent);
                    if appendable {
                        let id = format!("m{}", self.events.messages);
                        self.events.push(
                            at.clone(),
                            EventBody::MessageChunkAppended {
                                message_id: id.as_str().into(),
                                text: format!("\n\n{text}"),
                            },
                        );
                    } else {
                        self.events
                            .message(at.clone(), thread, Role::Agent, text.clone());
                    }
                }
                records::Block::ToolUse { id, name, input } => {
                    self.tool_use(at.clone(), thread, id, name, input);
                }
                _ => {}
            }
        }
    }

    fn tool_use(&mut self, at: Option<String>, thread: &str, id: &str, name: &str, input: &Value) {
        if name == "AskUserQuestion" || name == "ExitPlanMode" {
            // Asked now, settled when the result comes.
            self.tool_calls.insert(
                id.to_owned(),
                ToolCall {
                    message: String::new(),
                    thread: thread.to_owned(),
                    name: name.to_owned(),
                    input: input.clone(),
                },
            );
            self.ask(at, thread, id, name, input);
            return;
        }
        let text = format!("**{name}** {}", records::describe_call(name, input));
        let message = self.events.message(at, thread, Role::Tool, text);
        self.tool_calls.insert(
            id.to_owned(),
            ToolCall {
                message,
                thread: thread.to_owned(),
                name: name.to_owned(),
                input: input.clone(),
            },
        );
    }

    /// Opens the question an `AskUserQuestion` or `ExitPlanMode` call asks.
    fn ask(&mut self, at: Option<String>, thread: &str, id: &str, name: &str, input: &Value) {
        if name == "ExitPlanMode" {
            let plan = input
                .get("plan")
                .and_then(Value::as_str)
                .unwrap_or("(no plan)");
            let confirmation = ConfirmationSpec {
                held: false,
                id: id.into(),
                thread_id: thread.into(),
                title: Some("Approve the plan?".to_owned()),
                message: cut(plan, chatsurface_model::limits::MESSAGE_CHARS),
                accept: None,
                decline: None,
                accept_always: None,
                comment: true,
                timeout_s: None,
                attachment: None,
            };
            self.events
                .push(at, EventBody::ConfirmationRequested { confirmation });
            return;
        }
        let items = records::question_items(input);
        if items.is_empty() {
            self.warnings.push(format!(
                "AskUserQuestion {id}: no questions it could show; skipped"
            ));
            return;
        }
        self.events.open_batch(at, id, thread, items);
    }

    fn user(&mut self, record: &Record, thread: &str) {
        let at = record.timestamp.clone();
        match &record.prompt {
            Some(text) if record.is_compact_summary || text == records::INTERRUPTED => {
                self.events
                    .message(at.clone(), thread, Role::System, text.clone());
            }
            Some(text) if !record.is_meta => {
                self.events
                    .message(at.clone(), thread, Role::User, text.clone());
            }
            _ => {}
        }
        for result in &record.results {
            self.tool_result(at.clone(), result);
        }
    }

    fn tool_result(&mut self, at: Option<String>, result: &ToolResult) {
        let Some(call) = self.tool_calls.remove(&result.tool_use_id) else {
            return;
        };
        match call.name.as_str() {
            "AskUserQuestion" => self.settle_questions(at, &result.tool_use_id, &call, result),
            "ExitPlanMode" => {
                let (outcome, comment) = match records::rejection(result) {
                    Some(reason) => (ConfirmationOutcome::Declined, reason),
                    None => (ConfirmationOutcome::Accepted, None),
                };
                self.events.push(
                    at,
                    EventBody::ConfirmationResolved {
                        confirmation_id: result.tool_use_id.as_str().into(),
                        outcome,
                        comment,
                        always: false,
                    },
                );
            }
            _ => {
                if let Some(reason) = records::rejection(result) {
                    self.declined(at.clone(), &call, &result.tool_use_id, reason);
                }
                let text = output_block(&result.text);
                self.events.push(
                    at,
                    EventBody::MessageChunkAppended {
                        message_id: call.message.as_str().into(),
                        text,
                    },
                );
                if let Some(agent) = &result.agent_id {
                    self.subagent(&call, agent);
                }
            }
        }
    }

    /// A tool call the permission check refused: a declined confirmation naming the tool
    /// and what it would have done.
    fn declined(&mut self, at: Option<String>, call: &ToolCall, id: &str, reason: Option<String>) {
        let what = records::describe_call(&call.name, &call.input);
        let confirmation = ConfirmationSpec {
            held: false,
            id: format!("{id}-permission").as_str().into(),
            thread_id: call.thread.as_str().into(),
            title: Some(title_of(&format!("Allow {}?", call.name))),
            message: cut(
                &format!("{}: {}", call.name, plain_call(&what)),
                chatsurface_model::limits::MESSAGE_CHARS,
            ),
            accept: None,
            decline: None,
            accept_always: None,
            comment: false,
            timeout_s: None,
            attachment: None,
        };
        self.events.push(
            at.clone(),
            EventBody::ConfirmationRequested { confirmation },
        );
        self.events.push(
            at,
            EventBody::ConfirmationResolved {
                confirmation_id: format!("{id}-permission").as_str().into(),
                outcome: ConfirmationOutcome::Declined,
                comment: reason,
                always: false,
            },
        );
    }

    fn settle_questions(
        &mut self,
        at: Option<String>,
        id: &str,
        call: &ToolCall,
        result: &ToolResult,
    ) {
        let Some(answers) = result.answers.as_ref() else {
            self.events.push(
                at,
                EventBody::ClarificationBatchClosed {
                    batch_id: id.into(),
                    reason: BatchCloseReason::Withdrawn,
                },
            );
            return;
        };
        let items = records::question_items(&call.input);
        let answers: Vec<ItemAnswer> = items
            .iter()
            .filter_map(|item| records::item_answer(item, answers))
            .collect();
        self.events.push(
            at,
            EventBody::ClarificationAnswerSubmitted {
                batch_id: id.into(),
                answers,
                general: None,
            },
        );
    }

    /// The sub-agent a call started, from its own file, as an exploration thread.
    fn subagent(&mut self, call: &ToolCall, agent: &str) {
        let path = self.subagents.join(format!("agent-{agent}.jsonl"));
        let Ok(file) = std::fs::File::open(&path) else {
            return;
        };
        let records = records::parse(&path, std::io::BufReader::new(file), self.warnings);
        let title = call
            .input
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("Sub-agent");
        let thread = format!("agent-{agent}");
        let at = records.first().and_then(|record| record.timestamp.clone());
        self.events.open_thread(
            at,
            &thread,
            Some(&call.thread),
            title,
            ThreadKind::Exploration,
        );
        let mut last: Option<String> = None;
        for record in &records {
            match record.kind.as_str() {
                "assistant" => {
                    let continues = record.message_id.is_some() && record.message_id == last;
                    self.assistant(record, &thread, continues);
                    last = record.message_id.clone();
                }
                "user" => {
                    self.user(record, &thread);
                    last = None;
                }
                _ => {}
            }
        }
        self.events.status(None, &thread, ThreadStatus::Resolved);
    }
}

/// A call's description without its markdown code marks, for a confirmation's plain text.
fn plain_call(described: &str) -> String {
    described.replace('`', "")
}

#[cfg(test)]
mod tests;
