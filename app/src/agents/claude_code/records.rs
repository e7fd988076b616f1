//! The records of a Claude Code transcript that the reader uses, taken out of their JSON
//! lines leniently: the format changes with every release, so a field that is missing or of
//! another type is left out, and a line that is not JSON is skipped with a warning.

use super::super::cut;
use super::super::lines;
use super::super::questions::answer_from_words;
use super::fields::{
    field, is_true, items, text, BlockFields, Content, MessageFields, RecordFields,
    ToolUseResultFields,
};
use chatsurface_model::{ClarificationItem, ItemAnswer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::io::BufRead;
use std::path::Path;

/// How much of a tool's output a record keeps, in characters: more than a message shows
/// (`agents::TOOL_OUTPUT_CHARS`), and enough for the human's feedback after Claude Code's
/// words on a refusal.
const KEPT_OUTPUT_CHARS: usize = super::super::TOOL_OUTPUT_CHARS + 1024;

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

/// Every record of the transcript `reader` reads, one line at a time; a line that is not a
/// JSON object is skipped with a warning naming `path:line`, except a last line without its
/// newline (still being written).
pub(super) fn parse(path: &Path, reader: impl BufRead, warnings: &mut Vec<String>) -> Vec<Record> {
    const WHAT: &str = "Claude Code record";
    let mut records = Vec::new();
    lines::for_each_line(
        path,
        reader,
        WHAT,
        warnings,
        |line| match serde_json::from_slice::<RecordFields<'_>>(line.bytes) {
            Ok(fields) => {
                records.push(record(&fields));
                None
            }
            Err(error) => Some(lines::not_an_object(path, &line, WHAT, &error.to_string())),
        },
    );
    records
}

fn record(fields: &RecordFields<'_>) -> Record {
    let kind = text(fields.kind).unwrap_or_default();
    let mut record = Record {
        uuid: text(fields.uuid),
        parent: text(fields.parent_uuid).or_else(|| text(fields.logical_parent_uuid)),
        is_sidechain: is_true(fields.is_sidechain),
        is_meta: is_true(fields.is_meta),
        is_compact_summary: is_true(fields.is_compact_summary),
        session_id: text(fields.session_id),
        timestamp: text(fields.timestamp),
        subtype: text(fields.subtype),
        leaf: text(fields.leaf_uuid),
        title: text(fields.custom_title).or_else(|| text(fields.ai_title)),
        ..Record::default()
    };
    match (kind.as_str(), &fields.message.0) {
        ("assistant", Some(message)) => {
            record.message_id = text(message.id);
            record.content = blocks(&message.content);
        }
        ("user", Some(message)) => user(&mut record, fields.tool_use_result.0.as_ref(), message),
        _ => {}
    }
    record.kind = kind;
    record
}

fn blocks(content: &Content<'_>) -> Vec<Block> {
    match content {
        Content::Text(text) => vec![Block::Text(text.clone().into_owned())],
        Content::Blocks(blocks) => blocks
            .iter()
            .map(|block| {
                let Some(block) = &block.0 else {
                    return Block::Other;
                };
                match text(block.kind).as_deref() {
                    Some("text") => Block::Text(text(block.text).unwrap_or_default()),
                    Some("tool_use") => Block::ToolUse {
                        id: text(block.id).unwrap_or_default(),
                        name: text(block.name).unwrap_or_else(|| "tool".to_owned()),
                        input: field(block.input).unwrap_or(Value::Null),
                    },
                    _ => Block::Other,
                }
            })
            .collect(),
        Content::Other => Vec::new(),
    }
}

/// A user record: a prompt (string content, or text blocks) or tool results.
fn user(
    record: &mut Record,
    details: Option<&ToolUseResultFields<'_>>,
    message: &MessageFields<'_>,
) {
    let blocks = match &message.content {
        Content::Text(text) => {
            record.prompt = prompt_of(text);
            return;
        }
        Content::Blocks(blocks) => blocks,
        Content::Other => return,
    };
    let mut typed = Vec::new();
    for block in blocks.iter().filter_map(|block| block.0.as_ref()) {
        match text(block.kind).as_deref() {
            Some("text") => typed.extend(text(block.text)),
            Some("tool_result") => record.results.push(tool_result(block, details)),
            _ => {}
        }
    }
    if record.results.is_empty() && !typed.is_empty() {
        record.prompt = prompt_of(&typed.join("\n\n"));
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

fn tool_result(block: &BlockFields<'_>, details: Option<&ToolUseResultFields<'_>>) -> ToolResult {
    // What is shown of an output is cut far shorter; the rest is never decoded nor held.
    let output = match string_start(block.content, KEPT_OUTPUT_CHARS) {
        Some(output) => output,
        None => {
            let mut output = String::new();
            for part in items(block.content) {
                let left = KEPT_OUTPUT_CHARS.saturating_sub(output.chars().count());
                let part = field::<BlockFields<'_>>(Some(part));
                if let Some(part) = part.and_then(|part| string_start(part.text, left)) {
                    if !output.is_empty() {
                        output.push('\n');
                    }
                    output.push_str(&part);
                }
            }
            output
        }
    };
    ToolResult {
        tool_use_id: text(block.tool_use_id).unwrap_or_default(),
        text: output,
        is_error: is_true(block.is_error),
        answers: details.and_then(|details| field(details.answers)),
        agent_id: details.and_then(|details| text(details.agent_id)),
    }
}

/// The first `max` characters of a JSON string's text (all of it when shorter); `None` when
/// it is not a string. Only about that much of the string is decoded.
fn string_start(raw: Option<&RawValue>, max: usize) -> Option<String> {
    let raw = raw?.get();
    if !raw.starts_with('"') {
        return None;
    }
    // A character is 1 to 12 bytes of JSON (`\uD83D\uDE00`): a little more than the fewest
    // bytes that could hold `max` of them is decoded first (an output's newlines are escapes
    // of 2), then twice as many until they do.
    let mut bytes = max + max / 8 + 16;
    loop {
        // The quotes aside, the JSON of a string is never shorter than its text.
        if raw.len() <= bytes + 2 {
            return serde_json::from_str(raw)
                .ok()
                .map(|text| first_chars(text, max));
        }
        let start = json_start(raw, bytes)?;
        if start.chars().count() >= max {
            return Some(first_chars(start, max));
        }
        bytes *= 2;
    }
}

/// The text of the longest start of at most `bytes` bytes of a JSON string's (`raw`, longer
/// than that) that ends between two escapes; `None` when `raw` is not a string.
fn json_start(raw: &str, bytes: usize) -> Option<String> {
    // An escape is at most 12 bytes long (a surrogate pair), so one of the 12 ends before
    // `bytes + 1` (after the opening quote) is outside any.
    let mut end = bytes + 1;
    for _ in 0..12 {
        while !raw.is_char_boundary(end) {
            end -= 1;
        }
        if let Ok(text) = serde_json::from_str(&format!("{}\"", &raw[..end])) {
            return Some(text);
        }
        end -= 1;
    }
    None
}

/// `text` cut to its first `max` characters, holding no more memory than they take (it is
/// kept for each tool result of the transcript).
fn first_chars(mut text: String, max: usize) -> String {
    if let Some((end, _)) = text.char_indices().nth(max) {
        text.truncate(end);
        text.shrink_to_fit();
    }
    text
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

#[cfg(test)]
mod tests {
    use super::*;

    fn start_of(json: &str, max: usize) -> Option<String> {
        let raw: &RawValue = serde_json::from_str(json).unwrap();
        string_start(Some(raw), max)
    }

    #[test]
    fn a_string_start_is_its_first_characters_however_they_are_escaped() {
        let text = "ab\"c\\d\u{1F600}é\n\u{7}xyz".repeat(40);
        let json = serde_json::to_string(&text).unwrap();
        // Escaped as \ud83d\ude00 too, so that a surrogate pair can be cut in two.
        let escaped = json.replace('\u{1F600}', "\\ud83d\\ude00");
        for source in [&json, &escaped] {
            for max in 0..80 {
                let start = start_of(source, max).unwrap();
                let expected: String = text.chars().take(max).collect();
                assert_eq!(start, expected, "{max}");
            }
            assert_eq!(
                start_of(source, source.len()).as_deref(),
                Some(text.as_str())
            );
        }
    }

    #[test]
    fn a_short_string_is_whole_and_what_is_no_string_is_none() {
        assert_eq!(start_of(r#""short""#, 100).as_deref(), Some("short"));
        assert_eq!(start_of(r#"["no"]"#, 100), None);
        assert_eq!(start_of("12", 100), None);
    }

    #[test]
    fn a_field_of_another_type_leaves_out_only_itself() {
        let line = r#"{"type":"user","uuid":7,"parentUuid":"p","isMeta":"yes","message":{"content":"Hi"}}"#;
        let mut warnings = Vec::new();
        let records = parse(
            Path::new("t.jsonl"),
            format!("{line}\n").as_bytes(),
            &mut warnings,
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        let [record] = records.as_slice() else {
            panic!("{records:?}")
        };
        assert_eq!(record.kind, "user");
        assert_eq!(record.uuid, None);
        assert_eq!(record.parent.as_deref(), Some("p"));
        assert!(!record.is_meta);
        assert_eq!(record.prompt.as_deref(), Some("Hi"));
    }
}
