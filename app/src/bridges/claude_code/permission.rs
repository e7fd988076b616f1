//! One Claude Code `PermissionRequest` hook event as a question of the local API, and the
//! human's answer as the decision the hook prints.
//!
//! `AskUserQuestion` becomes a clarification batch: item `q<n>` per question (its header, its
//! options `o<n>` with their descriptions, multi-select, and free text for Claude Code's
//! "Other"). The answer goes back as `behavior: "allow"` with `updatedInput` = the tool's
//! input plus `answers` (question → chosen label, several joined by ", ", or the text typed)
//! and `annotations` (question → `{notes}`) where the human wrote text beside a choice.
//! `ExitPlanMode` becomes a confirmation showing the plan; any other tool a confirmation naming
//! what it will do. Accepted is `allow` with the input as it came; declined is `deny` with the
//! human's comment as the `message` Claude Code hands the model. Where Claude Code sent
//! `permission_suggestions`, the first (the one its terminal offers as "Yes, and always …")
//! is the confirmation's `accept_always` answer, and accepting that way echoes it back in
//! `updatedPermissions`, so Claude Code stops asking as if the terminal had been answered so.
//!
//! Ids are built from the event (`q<n>`, `o<n>`) so that the answer maps back without state.
//! Anything the surface did not settle (expired, withdrawn, no answer) is no decision at all:
//! Claude Code's own prompt decides, never an implied "allow". This module does no I/O.

use crate::agents::{code_block, cut};
use crate::bridges::{session_name, Kind, Question};
use chatsurface_model::limits;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use thiserror::Error;

/// The event name the hook answers.
pub const EVENT: &str = "PermissionRequest";

/// How much of an edit's old and new text a confirmation previews, in characters each.
const DIFF_PREVIEW_CHARS: usize = 200;

/// How much of a command a confirmation shows, in characters: with the words around it, the
/// whole message stays under the model's limit, so its code block is never cut open.
const COMMAND_PREVIEW_CHARS: usize = 400;

/// One hook event, as Claude Code writes it on the hook's stdin (fields the bridge does not
/// use are ignored, so a newer Claude Code's additions do not break it).
#[derive(Clone, Debug, Deserialize)]
pub struct HookEvent {
    /// Claude Code's session id (a UUID).
    pub session_id: String,
    /// The session's transcript.
    #[serde(default)]
    pub transcript_path: Option<String>,
    /// The folder Claude Code works in.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Which hook this is.
    pub hook_event_name: String,
    /// The tool asking for permission.
    pub tool_name: String,
    /// The tool's input.
    #[serde(default)]
    pub tool_input: Value,
    /// The permission updates Claude Code would apply for a "don't ask again" answer.
    #[serde(default)]
    pub permission_suggestions: Vec<Value>,
}

/// Why an event is not put to the surface (the hook then leaves the decision to Claude Code).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum Unbridged {
    /// A hook event other than `PermissionRequest`.
    #[error("hook_event_name \"{0}\": only PermissionRequest is answered from the surface")]
    OtherEvent(String),
    /// A session id the surface cannot name a session after.
    #[error("session_id \"{0}\": not 1–116 of A-Z a-z 0-9 . _ -")]
    BadSession(String),
    /// An `AskUserQuestion` whose input has no questions the surface can show.
    #[error("tool_input.questions: {0}")]
    BadQuestions(&'static str),
}

/// The session a Claude Code session's questions are asked in.
pub fn session_for(event: &HookEvent) -> Result<String, Unbridged> {
    session_name(super::SLUG, &event.session_id).map_err(Unbridged::BadSession)
}

/// The question an event asks, under the unique id `id`.
pub fn question(event: &HookEvent, id: &str) -> Result<Question, Unbridged> {
    if event.hook_event_name != EVENT {
        return Err(Unbridged::OtherEvent(cut(&event.hook_event_name, 80)));
    }
    let session = session_for(event)?;
    let (kind, mut body) = match event.tool_name.as_str() {
        "AskUserQuestion" => (Kind::Batch, batch(&event.tool_input, id)?),
        "ExitPlanMode" => (Kind::Confirmation, plan(&event.tool_input, id)),
        tool => (Kind::Confirmation, permission(event, tool, id)),
    };
    body["hold"] = json!(true);
    Ok(Question {
        session,
        kind,
        body,
    })
}

/// The questions of an `AskUserQuestion` input.
fn asked_questions(input: &Value) -> Result<&Vec<Value>, Unbridged> {
    let questions = input
        .get("questions")
        .and_then(Value::as_array)
        .ok_or(Unbridged::BadQuestions("missing or not a list"))?;
    if questions.is_empty() || questions.len() > limits::MAX_ITEMS {
        return Err(Unbridged::BadQuestions("1 to 50 questions"));
    }
    if questions
        .iter()
        .any(|question| text_of(question, "question").trim().is_empty())
    {
        return Err(Unbridged::BadQuestions("a question without its text"));
    }
    Ok(questions)
}

fn text_of<'a>(value: &'a Value, field: &str) -> &'a str {
    value.get(field).and_then(Value::as_str).unwrap_or("")
}

fn options_of(question: &Value) -> Vec<&Value> {
    question
        .get("options")
        .and_then(Value::as_array)
        .map(|options| {
            options
                .iter()
                .filter(|option| !text_of(option, "label").trim().is_empty())
                .take(limits::MAX_OPTIONS)
                .collect()
        })
        .unwrap_or_default()
}

fn batch(input: &Value, id: &str) -> Result<Value, Unbridged> {
    let items: Vec<Value> = asked_questions(input)?
        .iter()
        .enumerate()
        .map(|(index, question)| {
            let options: Vec<Value> = options_of(question)
                .iter()
                .enumerate()
                .map(|(number, option)| {
                    let mut shown = json!({
                        "id": format!("o{}", number + 1),
                        "label": cut(text_of(option, "label"), limits::TITLE_CHARS),
                    });
                    let detail = text_of(option, "description");
                    if !detail.is_empty() {
                        shown["detail"] = json!(cut(detail, limits::MESSAGE_CHARS));
                    }
                    shown
                })
                .collect();
            let multiple = question.get("multiSelect").and_then(Value::as_bool) == Some(true)
                && options.len() >= limits::MIN_OPTIONS_FOR_MULTIPLE;
            let mut item = json!({
                "id": format!("q{}", index + 1),
                "prompt": cut(text_of(question, "question"), limits::MESSAGE_CHARS),
                "kind": "choice",
                "options": options,
                "multiple": multiple,
                "custom": true,
            });
            let header = text_of(question, "header");
            if !header.is_empty() {
                item["header"] = json!(cut(header, limits::TITLE_CHARS));
            }
            item
        })
        .collect();
    Ok(json!({"id": id, "title": "Claude Code asks", "items": items}))
}

fn plan(input: &Value, id: &str) -> Value {
    let plan = text_of(input, "plan").trim();
    let message = if plan.is_empty() {
        "Claude Code has finished planning and asks to start.".to_owned()
    } else {
        cut(plan, limits::MESSAGE_CHARS)
    };
    json!({
        "id": id,
        "title": "Claude Code: approve the plan?",
        "message": message,
        "accept": "Approve",
        "decline": "Keep planning",
        "comment": true,
    })
}

fn permission(event: &HookEvent, tool: &str, id: &str) -> Value {
    let mut body = json!({
        "id": id,
        "title": cut(&format!("Claude Code: allow {tool}?"), limits::TITLE_CHARS),
        "message": cut(&what_it_does(tool, &event.tool_input), limits::MESSAGE_CHARS),
        "accept": "Allow",
        "decline": "Deny",
        "comment": true,
    });
    if let Some(suggestion) = event.permission_suggestions.first() {
        body["accept_always"] = json!(cut(&always_label(suggestion), limits::TITLE_CHARS));
    }
    body
}

/// A permission suggestion in words, as the "always" answer's label: what stops being asked,
/// and for how long (Claude Code's `destination`).
fn always_label(suggestion: &Value) -> String {
    let strings = |field: &str| -> Vec<&str> {
        suggestion[field]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect()
    };
    let what = match text_of(suggestion, "type") {
        "addRules" => {
            let rules: Vec<String> = suggestion["rules"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|rule| match text_of(rule, "ruleContent") {
                    "" => text_of(rule, "toolName").to_owned(),
                    content => format!("{}({content})", text_of(rule, "toolName")),
                })
                .collect();
            format!("Always allow {}", rules.join(", "))
        }
        "addDirectories" => format!("Always allow {}", strings("directories").join(", ")),
        "setMode" if text_of(suggestion, "mode") == "acceptEdits" => "Allow all edits".to_owned(),
        "setMode" => format!("Switch to {} mode", text_of(suggestion, "mode")),
        _ => "Allow, and don't ask again".to_owned(),
    };
    let how_long = match text_of(suggestion, "destination") {
        "session" => " this session",
        "localSettings" | "projectSettings" => " in this project",
        "userSettings" => " everywhere",
        _ => "",
    };
    format!("{what}{how_long}")
}

/// What a tool call will do, in markdown: the command, the file and a preview of the edit as
/// code blocks (a diff's `-` and `+` lines must not become bullets), or the input as JSON for a
/// tool the bridge does not know.
fn what_it_does(tool: &str, input: &Value) -> String {
    let field = |name: &str| text_of(input, name);
    let lines = |text: &str, mark: &str| -> String {
        cut(text, DIFF_PREVIEW_CHARS)
            .lines()
            .map(|line| format!("{mark} {line}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    match tool {
        "Bash" => {
            let described = field("description");
            let mut text = format!(
                "Run:\n\n{}",
                code_block(&cut(field("command"), COMMAND_PREVIEW_CHARS))
            );
            if !described.is_empty() {
                text.push_str(&format!("\n\n({described})"));
            }
            text
        }
        "Edit" => format!(
            "Edit {}\n\n{}",
            field("file_path"),
            code_block(&format!(
                "{}\n{}",
                lines(field("old_string"), "-"),
                lines(field("new_string"), "+")
            ))
        ),
        "Write" => format!(
            "Write {}\n\n{}",
            field("file_path"),
            code_block(&cut(field("content"), DIFF_PREVIEW_CHARS))
        ),
        _ => format!("{tool} {input}"),
    }
}

/// The hook's output for a server reply to `question` (asked for `event`): `None` when the
/// surface did not settle it, so Claude Code's own prompt decides.
pub fn decision(event: &HookEvent, question: &Question, reply: &Value) -> Option<Value> {
    let decision = match question.kind {
        Kind::Batch => answers(&event.tool_input, reply)?,
        Kind::Confirmation => match reply.get("status").and_then(Value::as_str)? {
            // Claude Code 2.1.328 takes an `ExitPlanMode` allowed without `updatedInput` as no
            // answer (its prompt stays up); the input as it came is what was allowed.
            "accepted" => {
                let mut allow = json!({"behavior": "allow", "updatedInput": event.tool_input});
                let always = reply.get("always").and_then(Value::as_bool) == Some(true);
                if let Some(suggestion) = event.permission_suggestions.first().filter(|_| always) {
                    allow["updatedPermissions"] = json!([suggestion]);
                }
                allow
            }
            "declined" => {
                let comment = reply
                    .get("comment")
                    .and_then(Value::as_str)
                    .filter(|comment| !comment.trim().is_empty());
                let message = comment.map_or_else(
                    || format!("The user denied {} on chatsurface.", event.tool_name),
                    str::to_owned,
                );
                json!({"behavior": "deny", "message": message})
            }
            _ => return None,
        },
    };
    Some(json!({"hookSpecificOutput": {"hookEventName": EVENT, "decision": decision}}))
}

/// `allow` with the answers in `updatedInput`, for an answered batch.
fn answers(input: &Value, reply: &Value) -> Option<Value> {
    if reply.get("status").and_then(Value::as_str) != Some("answered") {
        return None;
    }
    let given = reply.get("response")?.get("answers")?.as_array()?;
    let questions = asked_questions(input).ok()?;
    let mut answers = Map::new();
    let mut annotations = Map::new();
    for (index, question) in questions.iter().enumerate() {
        let item = format!("q{}", index + 1);
        let Some(answer) = given
            .iter()
            .find(|answer| answer["item_id"] == item.as_str())
        else {
            continue;
        };
        let options = options_of(question);
        let labels: Vec<&str> = answer
            .get("selected")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|id| {
                let number: usize = id.as_str()?.strip_prefix('o')?.parse().ok()?;
                options
                    .get(number.checked_sub(1)?)
                    .map(|o| text_of(o, "label"))
            })
            .collect();
        let text = answer
            .get("text")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty());
        let asked = text_of(question, "question").to_owned();
        match (labels.is_empty(), text) {
            (false, note) => {
                answers.insert(asked.clone(), json!(labels.join(", ")));
                if let Some(note) = note {
                    annotations.insert(asked, json!({"notes": note}));
                }
            }
            (true, Some(text)) => {
                answers.insert(asked, json!(text));
            }
            (true, None) => {}
        }
    }
    let mut updated = input.as_object().cloned().unwrap_or_default();
    updated.insert("answers".into(), Value::Object(answers));
    if !annotations.is_empty() {
        updated.insert("annotations".into(), Value::Object(annotations));
    }
    Some(json!({"behavior": "allow", "updatedInput": updated}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(tool: &str, input: Value) -> HookEvent {
        serde_json::from_value(json!({
            "session_id": "52aed463-d8f9-41bf-bf5b-55b53367d924",
            "transcript_path": "/home/u/.claude/projects/-p/52aed463.jsonl",
            "cwd": "/p",
            "hook_event_name": "PermissionRequest",
            "tool_name": tool,
            "tool_input": input,
            "permission_suggestions": [{"type": "setMode", "mode": "acceptEdits"}],
        }))
        .unwrap()
    }

    fn two_questions() -> Value {
        json!({"questions": [
            {"question": "Which database?", "header": "Database", "multiSelect": false,
             "options": [{"label": "SQLite", "description": "One file"}, {"label": "PostgreSQL", "description": "A server"}]},
            {"question": "Which features?", "header": "Features", "multiSelect": true,
             "options": [{"label": "Search"}, {"label": "Export"}, {"label": "Sync"}]},
        ]})
    }

    #[test]
    fn ask_user_question_becomes_a_batch_item_per_question() {
        let asked = question(&event("AskUserQuestion", two_questions()), "cc-1").unwrap();
        assert_eq!(asked.kind, Kind::Batch);
        assert_eq!(
            asked.path(),
            "/v1/sessions/claude-code-52aed463-d8f9-41bf-bf5b-55b53367d924/clarifications"
        );
        let items = asked.body["items"].as_array().unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0]["header"], "Database");
        assert_eq!(items[0]["options"][0]["detail"], "One file");
        assert_eq!(items[0]["multiple"], false);
        assert_eq!(items[1]["multiple"], true);
        assert_eq!(items[1]["custom"], true, "Claude Code offers Other");
        assert_eq!(asked.body["hold"], true);
        let batch: chatsurface_model::BatchSpec = serde_json::from_value(json!({
            "thread_id": "main",
            "id": asked.body["id"], "title": asked.body["title"], "items": asked.body["items"],
        }))
        .unwrap();
        chatsurface_model::validate_batch(&batch).unwrap();
    }

    #[test]
    fn answers_map_back_to_question_text_and_labels() {
        let asked_for = event("AskUserQuestion", two_questions());
        let asked = question(&asked_for, "cc-1").unwrap();
        let reply = json!({"batch_id": "cc-1", "status": "answered", "response": {"answers": [
            {"item_id": "q1", "selected": ["o1"], "text": "we ship one binary"},
            {"item_id": "q2", "selected": ["o1", "o3"]},
        ]}});
        let out = decision(&asked_for, &asked, &reply).unwrap();
        let decision = &out["hookSpecificOutput"]["decision"];
        assert_eq!(
            out["hookSpecificOutput"]["hookEventName"],
            "PermissionRequest"
        );
        assert_eq!(decision["behavior"], "allow");
        let updated = &decision["updatedInput"];
        assert_eq!(updated["questions"], two_questions()["questions"]);
        assert_eq!(
            updated["answers"],
            json!({"Which database?": "SQLite", "Which features?": "Search, Sync"})
        );
        assert_eq!(
            updated["annotations"],
            json!({"Which database?": {"notes": "we ship one binary"}})
        );
    }

    #[test]
    fn free_text_alone_is_the_answer_and_a_skipped_question_is_left_out() {
        let asked_for = event("AskUserQuestion", two_questions());
        let asked = question(&asked_for, "cc-1").unwrap();
        let reply = json!({"status": "answered", "response": {"answers": [
            {"item_id": "q1", "text": " DuckDB "}, {"item_id": "q2", "skipped": true},
        ]}});
        let out = decision(&asked_for, &asked, &reply).unwrap();
        let updated = &out["hookSpecificOutput"]["decision"]["updatedInput"];
        assert_eq!(updated["answers"], json!({"Which database?": "DuckDB"}));
        assert!(updated.get("annotations").is_none());
    }

    #[test]
    fn nothing_settled_is_no_decision() {
        let asked_for = event("AskUserQuestion", two_questions());
        let asked = question(&asked_for, "cc-1").unwrap();
        for reply in [
            json!({"status": "withdrawn"}),
            json!({"status": "expired"}),
            json!({"pending": true}),
        ] {
            assert_eq!(decision(&asked_for, &asked, &reply), None, "{reply}");
        }
        let bash = event("Bash", json!({"command": "ls"}));
        let confirm = question(&bash, "cc-2").unwrap();
        assert_eq!(
            decision(&bash, &confirm, &json!({"status": "withdrawn"})),
            None
        );
    }

    #[test]
    fn a_bash_call_is_a_confirmation_and_a_decline_carries_the_comment() {
        let bash = event(
            "Bash",
            json!({"command": "rm -rf ./build", "description": "Delete the build folder"}),
        );
        let asked = question(&bash, "cc-2").unwrap();
        assert_eq!(asked.kind, Kind::Confirmation);
        assert_eq!(
            asked.body["message"],
            "Run:\n\n```\nrm -rf ./build\n```\n\n(Delete the build folder)"
        );
        assert_eq!(asked.body["title"], "Claude Code: allow Bash?");
        let denied = decision(
            &bash,
            &asked,
            &json!({"status": "declined", "comment": "keep it"}),
        )
        .unwrap();
        assert_eq!(
            denied["hookSpecificOutput"]["decision"],
            json!({"behavior": "deny", "message": "keep it"})
        );
        let bare = decision(&bash, &asked, &json!({"status": "declined"})).unwrap();
        assert_eq!(
            bare["hookSpecificOutput"]["decision"]["message"],
            "The user denied Bash on chatsurface."
        );
        let allowed = decision(&bash, &asked, &json!({"status": "accepted"})).unwrap();
        assert_eq!(
            allowed["hookSpecificOutput"]["decision"],
            json!({"behavior": "allow", "updatedInput": bash.tool_input})
        );
    }

    #[test]
    fn claude_codes_first_suggestion_is_the_always_answer_and_goes_back_when_chosen() {
        // The suggestions Claude Code 2.1.328 sent for `rm -rf ./build` (captured with a hook
        // that logged its stdin), the first being its terminal's "Yes, and always allow …".
        let mut bash = event("Bash", json!({"command": "rm -rf ./build"}));
        bash.permission_suggestions = vec![
            json!({"type": "addDirectories", "directories": ["/p/build"], "destination": "session"}),
            json!({"type": "setMode", "mode": "acceptEdits", "destination": "session"}),
        ];
        let asked = question(&bash, "cc-3").unwrap();
        assert_eq!(
            asked.body["accept_always"],
            "Always allow /p/build this session"
        );
        let for_good = decision(
            &bash,
            &asked,
            &json!({"status": "accepted", "always": true}),
        );
        assert_eq!(
            for_good.unwrap()["hookSpecificOutput"]["decision"],
            json!({"behavior": "allow", "updatedInput": bash.tool_input,
                   "updatedPermissions": [bash.permission_suggestions[0]]})
        );
        let once = decision(&bash, &asked, &json!({"status": "accepted"})).unwrap();
        assert!(once["hookSpecificOutput"]["decision"]
            .get("updatedPermissions")
            .is_none());
        let edit = event("Edit", json!({"file_path": "/p/a.txt"}));
        let asked = question(&edit, "cc-4").unwrap();
        assert_eq!(asked.body["accept_always"], "Allow all edits");
        let rule = json!({"type": "addRules", "behavior": "allow", "destination": "localSettings",
                          "rules": [{"toolName": "Bash", "ruleContent": "npm test:*"}]});
        assert_eq!(
            always_label(&rule),
            "Always allow Bash(npm test:*) in this project"
        );
        let mut plain = event("Bash", json!({"command": "ls"}));
        plain.permission_suggestions.clear();
        assert!(question(&plain, "cc-5")
            .unwrap()
            .body
            .get("accept_always")
            .is_none());
    }

    #[test]
    fn a_plan_and_an_edit_show_what_they_will_do() {
        let plan = question(
            &event("ExitPlanMode", json!({"plan": "## Plan\n1. Add a table"})),
            "cc-3",
        )
        .unwrap();
        assert_eq!(plan.body["message"], "## Plan\n1. Add a table");
        assert_eq!(plan.body["accept"], "Approve");
        let edit = question(
            &event(
                "Edit",
                json!({"file_path": "/p/a.rs", "old_string": "x\ny", "new_string": "z"}),
            ),
            "cc-4",
        )
        .unwrap();
        assert_eq!(
            edit.body["message"],
            "Edit /p/a.rs\n\n```\n- x\n- y\n+ z\n```"
        );
        // A long command is cut inside its code block, which still closes.
        let long = "x".repeat(5_000);
        let huge = question(&event("Bash", json!({"command": long})), "cc-5").unwrap();
        let message = huge.body["message"].as_str().unwrap();
        assert!(message.chars().count() <= limits::MESSAGE_CHARS);
        assert!(message.ends_with("…\n```"), "{message}");
    }

    #[test]
    fn other_events_bad_sessions_and_empty_questions_are_not_bridged() {
        let mut pre = event("Bash", json!({}));
        pre.hook_event_name = "PreToolUse".into();
        assert!(matches!(question(&pre, "x"), Err(Unbridged::OtherEvent(_))));
        let mut bad = event("Bash", json!({}));
        bad.session_id = "../../etc".into();
        assert!(matches!(question(&bad, "x"), Err(Unbridged::BadSession(_))));
        let empty = event("AskUserQuestion", json!({"questions": []}));
        assert!(matches!(
            question(&empty, "x"),
            Err(Unbridged::BadQuestions(_))
        ));
    }
}
