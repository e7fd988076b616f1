//! The records of a Claude Code transcript that the reader uses, taken out of their JSON
//! lines leniently: the format changes with every release, so a field that is missing or of
//! another type is left out, and a line that is not JSON is skipped with a warning.

use super::super::cut;
use super::super::questions::answer_from_words;
use chatsurface_model::{ClarificationItem, ItemAnswer};
use serde_json::{Map, Value};
use std::path::Path;

/// How much of a tool's output a record keeps: more than a message shows (see
/// `agents::TOOL_OUTPUT_CHARS`, in characters of up to 4 bytes), and enough for the human's
/// feedback after Claude Code's words on a refusal.
const KEPT_OUTPUT_BYTES: usize = 4 * super::super::TOOL_OUTPUT_CHARS + 1024;

/// What an interruption (Esc while Claude Code worked or asked) shows as.
pub(super) const INTERRUPTED: &str = "⏹ Interrupted by the human";

/// One record (line) of a transcript, as far as the reader needs it.
#[derive(Clone, Debug, Default)]
pub(super) struct Record {
    /// Its `type`: `user`, `assistant`, `system`, `last-prompt`, `custom-title`, ….
    pub(super) kind: String,
    pub(super) uuid: Option<String>,
    /// `parentUuid`, or `logicalParentUuid` where a compaction cut the chain.
    pub(super) parent: Option<String>,
    pub(super) is_sidechain: bool,
    /// A harness message to the model (not something the human typed).
    pub(super) is_meta: bool,
    /// The summary a compaction left in place of what came before.
    pub(super) is_compact_summary: bool,
    pub(super) session_id: Option<String>,
    pub(super) timestamp: Option<String>,
    pub(super) subtype: Option<String>,
    /// The API message id of an assistant record: records sharing it are one message.
    pub(super) message_id: Option<String>,
    /// An assistant record's blocks.
    pub(super) content: Vec<Block>,
    /// What the human wrote, for a user record that is a prompt.
    pub(super) prompt: Option<String>,
    /// The tool results a user record carries.
    pub(super) results: Vec<ToolResult>,
    /// `last-prompt.leafUuid`.
    pub(super) leaf: Option<String>,
    /// `custom-title.customTitle` or `ai-title.aiTitle`.
    pub(super) title: Option<String>,
}

/// One block of an assistant message.
#[derive(Clone, Debug)]
pub(super) enum Block {
    Text(String),
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    Other,
}

/// A tool's result, with what Claude Code recorded about it (`toolUseResult`).
#[derive(Clone, Debug, Default)]
pub(super) struct ToolResult {
    pub(super) tool_use_id: String,
    pub(super) text: String,
    pub(super) is_error: bool,
    /// `AskUserQuestion`'s answers: question text → the label(s) chosen or the text typed.
    pub(super) answers: Option<Map<String, Value>>,
    /// The sub-agent an `Agent` / `Task` call ran.
    pub(super) agent_id: Option<String>,
}

/// Every record of the file; a line that is not a JSON object is skipped with a warning
/// naming `path:line`, except a last line without its newline (still being written).
pub(super) fn parse(path: &Path, bytes: &[u8], warnings: &mut Vec<String>) -> Vec<Record> {
    let mut records = Vec::new();
    super::super::for_each_json_line(path, bytes, "Claude Code record", warnings, |value| {
        if let Value::Object(map) = value {
            records.push(record(&map));
        }
    });
    records
}

fn text(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn record(map: &Map<String, Value>) -> Record {
    let kind = text(map, "type").unwrap_or_default();
    let message = map.get("message").and_then(Value::as_object);
    let mut record = Record {
        uuid: text(map, "uuid"),
        parent: text(map, "parentUuid").or_else(|| text(map, "logicalParentUuid")),
        is_sidechain: map.get("isSidechain").and_then(Value::as_bool) == Some(true),
        is_meta: map.get("isMeta").and_then(Value::as_bool) == Some(true),
        is_compact_summary: map.get("isCompactSummary").and_then(Value::as_bool) == Some(true),
        session_id: text(map, "sessionId"),
        timestamp: text(map, "timestamp"),
        subtype: text(map, "subtype"),
        leaf: text(map, "leafUuid"),
        title: text(map, "customTitle").or_else(|| text(map, "aiTitle")),
        ..Record::default()
    };
    match (kind.as_str(), message) {
        ("assistant", Some(message)) => {
            record.message_id = text(message, "id");
            record.content = blocks(message.get("content"));
        }
        ("user", Some(message)) => user(&mut record, map, message),
        _ => {}
    }
    record.kind = kind;
    record
}

fn blocks(content: Option<&Value>) -> Vec<Block> {
    match content {
        Some(Value::String(text)) => vec![Block::Text(text.clone())],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .map(|block| match block.get("type").and_then(Value::as_str) {
                Some("text") => Block::Text(
                    block
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                ),
                Some("tool_use") => Block::ToolUse {
                    id: block
                        .get("id")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    name: block
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("tool")
                        .to_owned(),
                    input: block.get("input").cloned().unwrap_or(Value::Null),
                },
                _ => Block::Other,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A user record: a prompt (string content, or text blocks) or tool results.
fn user(record: &mut Record, map: &Map<String, Value>, message: &Map<String, Value>) {
    let tool_use_result = map.get("toolUseResult");
    match message.get("content") {
        Some(Value::String(text)) => record.prompt = prompt_of(text),
        Some(Value::Array(blocks)) => {
            let mut typed = Vec::new();
            for block in blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(text) = block.get("text").and_then(Value::as_str) {
                            typed.push(text.to_owned());
                        }
                    }
                    Some("tool_result") => record.results.push(tool_result(block, tool_use_result)),
                    _ => {}
                }
            }
            if record.results.is_empty() && !typed.is_empty() {
                record.prompt = prompt_of(&typed.join("\n\n"));
            }
        }
        _ => {}
    }
}

/// What a user record's text shows: the slash command typed for a command record, nothing
/// for the harness's own messages (a command's output, a sub-agent's notification).
fn prompt_of(text: &str) -> Option<String> {
    let trimmed = text.trim_start();
    if let Some(rest) = trimmed.strip_prefix("<command-name>") {
        let name = rest.split("</command-name>").next().unwrap_or("").trim();
        let args = trimmed
            .split("<command-args>")
            .nth(1)
            .and_then(|args| args.split("</command-args>").next())
            .unwrap_or("")
            .trim();
        return Some(format!("`{name}` {args}").trim().to_owned());
    }
    if trimmed.starts_with("[Request interrupted by user") {
        return Some(INTERRUPTED.to_owned());
    }
    let harness = [
        "<local-command-",
        "<task-notification>",
        "<command-message>",
    ];
    if harness.iter().any(|tag| trimmed.starts_with(tag)) {
        return None;
    }
    let shown = without_reminders(text);
    (!shown.trim().is_empty()).then(|| shown.trim().to_owned())
}

/// The text without the `<system-reminder>` blocks the harness puts in for the model.
fn without_reminders(text: &str) -> String {
    const OPEN: &str = "<system-reminder>";
    const CLOSE: &str = "</system-reminder>";
    let mut shown = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        shown.push_str(&rest[..start]);
        rest = match rest[start..].find(CLOSE) {
            Some(end) => &rest[start + end + CLOSE.len()..],
            None => "",
        };
    }
    shown.push_str(rest);
    shown
}

fn tool_result(block: &Value, tool_use_result: Option<&Value>) -> ToolResult {
    let text = match block.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    let details = tool_use_result.and_then(Value::as_object);
    // What is shown of an output is cut far shorter; the rest need not be held.
    let text = if text.len() > KEPT_OUTPUT_BYTES {
        let mut end = KEPT_OUTPUT_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text[..end].to_owned()
    } else {
        text
    };
    ToolResult {
        tool_use_id: block
            .get("tool_use_id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        text,
        is_error: block.get("is_error").and_then(Value::as_bool) == Some(true),
        answers: details
            .and_then(|details| details.get("answers"))
            .and_then(Value::as_object)
            .cloned(),
        agent_id: details.and_then(|details| self::text(details, "agentId")),
    }
}

/// The session's title: the newest `custom-title`, else the newest `ai-title`, else the first
/// prompt.
pub(super) fn title(records: &[Record]) -> Option<String> {
    let newest = |kind: &str| {
        records
            .iter()
            .rev()
            .find(|record| record.kind == kind)
            .and_then(|record| record.title.clone())
    };
    newest("custom-title")
        .or_else(|| newest("ai-title"))
        .or_else(|| {
            records
                .iter()
                .find(|record| record.kind == "user" && !record.is_sidechain && !record.is_meta)
                .and_then(|record| record.prompt.clone())
        })
}

/// What a tool call does, in a line: the command, the file, the pattern, the description.
pub(super) fn describe_call(name: &str, input: &Value) -> String {
    let field = |key: &str| input.get(key).and_then(Value::as_str);
    let one_line = |text: &str| cut(&text.replace('\n', " "), 300);
    match name {
        "Bash" => match field("command") {
            Some(command) => format!("`{}`", one_line(command)),
            None => String::new(),
        },
        "Read" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => field("file_path")
            .or_else(|| field("notebook_path"))
            .map(|path| format!("`{}`", one_line(path)))
            .unwrap_or_default(),
        "Grep" | "Glob" => field("pattern")
            .map(|pattern| format!("`{}`", one_line(pattern)))
            .unwrap_or_default(),
        "Agent" | "Task" => field("description").map(one_line).unwrap_or_default(),
        "WebFetch" => field("url").map(one_line).unwrap_or_default(),
        _ => field("description")
            .map(one_line)
            .unwrap_or_else(|| one_line(&input.to_string())),
    }
}

/// Why a tool call was refused (the human declined it, or a permission check did), or
/// `None` when its result is not a refusal. The reason is the human's feedback where there
/// is one, else Claude Code's words.
pub(super) fn rejection(result: &ToolResult) -> Option<Option<String>> {
    if !result.is_error {
        return None;
    }
    let text = result.text.trim();
    let refused = [
        "doesn't want to proceed",
        "rejected",
        "needs approval",
        "requested permissions",
        "permission",
        "denied",
    ];
    if !refused.iter().any(|words| text.contains(words)) {
        return None;
    }
    if let Some((_, said)) = text.split_once("the user said:") {
        let said = said.trim();
        return Some((!said.is_empty()).then(|| cut(said, 400)));
    }
    // The human said no and nothing more: Claude Code's stock words are no reason.
    if text.contains("doesn't want to proceed") {
        return Some(None);
    }
    Some(Some(cut(text, 400)))
}

pub(super) use super::super::questions::question_items;

/// The answer to one item from `toolUseResult.answers` (question text → label, several
/// labels joined by ", ", or the text the human typed).
pub(super) fn item_answer(
    item: &ClarificationItem,
    answers: &Map<String, Value>,
) -> Option<ItemAnswer> {
    let given = answers
        .iter()
        .find(|(question, _)| {
            cut(question, chatsurface_model::limits::MESSAGE_CHARS) == item.prompt
        })
        .and_then(|(_, answer)| answer.as_str())?;
    Some(answer_from_words(item, given))
}
