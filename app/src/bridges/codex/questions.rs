//! One request of Codex's app-server as a question of the local API, and the human's answer
//! as the result the app-server takes.
//!
//! `item/commandExecution/requestApproval` and `item/fileChange/requestApproval` become
//! confirmations showing the command (with where it runs and why it asks) or the files and
//! their diff. Accepted is `accept`; accepted "always" is the lasting answer Codex offers for
//! this request (`acceptForSession`, or its proposed exec-policy amendment, as its terminal
//! offers them); declined is `decline`, or `cancel` where Codex offers no `decline`. The
//! human's comment on a decline is not part of Codex's answer: the bridge hands it to the
//! model as the human's next words (see `commands/codex/`).
//!
//! `item/tool/requestUserInput` becomes a clarification batch, item `q<n>` per question with
//! options `o<n>`; the answer goes back as `{answers: {<question id>: {answers: [...]}}}`,
//! the chosen labels first and the human's own words (the "Other" answer, or a note beside a
//! choice) last.
//!
//! Anything the surface did not settle (expired, withdrawn, no surface) is never an implied
//! "accept": a confirmation becomes a decline, a batch an answer without answers. This module
//! does no I/O.

use super::protocol::{CommandApproval, FileChangeApproval, UserInputRequest};
use crate::agents::{code_block, cut};
use crate::bridges::{session_name, Kind, Question};
use chatsurface_model::limits;
use serde_json::{json, Map, Value};

/// The request asking to run a command.
pub const COMMAND_APPROVAL: &str = "item/commandExecution/requestApproval";
/// The request asking to change files.
pub const FILE_CHANGE_APPROVAL: &str = "item/fileChange/requestApproval";
/// The request asking the human questions.
pub const USER_INPUT: &str = "item/tool/requestUserInput";

/// How much of a command a confirmation shows, in characters.
const COMMAND_PREVIEW_CHARS: usize = 400;

/// How much of each file's diff a confirmation shows, in characters.
const DIFF_PREVIEW_CHARS: usize = 600;

/// A request of the app-server's the bridge puts to the human.
#[derive(Clone, Debug)]
pub enum Asked {
    /// A command to run.
    Command(CommandApproval),
    /// Files to change, with the changes the item announced (its `changes`), if seen.
    FileChange(FileChangeApproval, Option<Value>),
    /// Questions.
    UserInput(UserInputRequest),
}

impl Asked {
    /// The request `method` with `params`, or why the bridge does not put it to the human.
    pub fn read(method: &str, params: Value) -> Result<Asked, String> {
        let bad = |error: serde_json::Error| format!("{method}: {error}");
        match method {
            COMMAND_APPROVAL => serde_json::from_value(params)
                .map(Asked::Command)
                .map_err(bad),
            FILE_CHANGE_APPROVAL => serde_json::from_value(params)
                .map(|approval| Asked::FileChange(approval, None))
                .map_err(bad),
            USER_INPUT => serde_json::from_value(params)
                .map(Asked::UserInput)
                .map_err(bad),
            other => Err(format!("{other}: not a request chatsurface answers")),
        }
    }

    /// The thread that asks.
    pub fn thread_id(&self) -> &str {
        match self {
            Asked::Command(approval) => &approval.thread_id,
            Asked::FileChange(approval, _) => &approval.thread_id,
            Asked::UserInput(request) => &request.thread_id,
        }
    }

    /// The item it asks about.
    pub fn item_id(&self) -> &str {
        match self {
            Asked::Command(approval) => &approval.item_id,
            Asked::FileChange(approval, _) => &approval.item_id,
            Asked::UserInput(request) => &request.item_id,
        }
    }

    /// The question for the surface, under the unique id `id`, or why there is none.
    pub fn question(&self, id: &str) -> Result<Question, String> {
        let session = session_name(super::SLUG, self.thread_id())
            .map_err(|thread| format!("threadId \"{thread}\": not a name a session can have"))?;
        let (kind, mut body) = match self {
            Asked::Command(approval) => (Kind::Confirmation, command(approval, id)),
            Asked::FileChange(approval, changes) => (
                Kind::Confirmation,
                file_change(approval, changes.as_ref(), id),
            ),
            Asked::UserInput(request) => (Kind::Batch, batch(request, id)?),
        };
        body["hold"] = json!(true);
        Ok(Question {
            session,
            kind,
            body,
        })
    }

    /// The result for the app-server, from the surface's reply (`None`: no reply, the
    /// surface unreachable or gone).
    pub fn result(&self, reply: Option<&Value>) -> Value {
        let status = reply
            .and_then(|reply| reply.get("status"))
            .and_then(Value::as_str);
        match self {
            Asked::UserInput(request) => {
                let answered = reply.filter(|_| status == Some("answered"));
                json!({"answers": answers(request, answered)})
            }
            Asked::Command(approval) => {
                let offered = approval.available_decisions.as_deref();
                let always = reply.and_then(|reply| reply.get("always")) == Some(&json!(true));
                let decision = match status {
                    Some("accepted") if always => {
                        lasting_accept(offered).unwrap_or(json!("accept"))
                    }
                    Some("accepted") => json!("accept"),
                    _ => decline(offered),
                };
                json!({"decision": decision})
            }
            Asked::FileChange(..) => {
                let always = reply.and_then(|reply| reply.get("always")) == Some(&json!(true));
                let decision = match status {
                    Some("accepted") if always => "acceptForSession",
                    Some("accepted") => "accept",
                    _ => "decline",
                };
                json!({"decision": decision})
            }
        }
    }
}

/// The comment the human wrote on a decline, if any: what the bridge tells the model.
pub fn decline_comment(reply: &Value) -> Option<&str> {
    if reply.get("status").and_then(Value::as_str) != Some("declined") {
        return None;
    }
    reply
        .get("comment")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|comment| !comment.is_empty())
}

/// Whether Codex offers `decision` (a string, or the key of an object) for a request; with no
/// list, the decisions every version takes.
fn offers(offered: Option<&[Value]>, decision: &str) -> bool {
    match offered {
        None => matches!(
            decision,
            "accept" | "acceptForSession" | "decline" | "cancel"
        ),
        Some(list) => list.iter().any(|offer| {
            offer.as_str() == Some(decision)
                || offer
                    .as_object()
                    .is_some_and(|object| object.contains_key(decision))
        }),
    }
}

/// The lasting "accept" Codex offers: for the session, else its exec-policy amendment.
fn lasting_accept(offered: Option<&[Value]>) -> Option<Value> {
    if offers(offered, "acceptForSession") {
        return Some(json!("acceptForSession"));
    }
    offered?
        .iter()
        .find(|offer| {
            offer
                .as_object()
                .is_some_and(|object| object.contains_key("acceptWithExecpolicyAmendment"))
        })
        .cloned()
}

/// The label of the lasting accept, where Codex offers one.
fn lasting_label(offered: Option<&[Value]>) -> Option<String> {
    match lasting_accept(offered)? {
        Value::String(_) => Some("Allow for this session".to_owned()),
        amendment => {
            let words: Vec<&str> = amendment["acceptWithExecpolicyAmendment"]
                ["execpolicy_amendment"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            Some(format!("Always allow `{}`", words.join(" ")))
        }
    }
}

fn decline(offered: Option<&[Value]>) -> Value {
    if offers(offered, "decline") {
        json!("decline")
    } else {
        json!("cancel")
    }
}

fn command(approval: &CommandApproval, id: &str) -> Value {
    let command = approval
        .command
        .as_deref()
        .unwrap_or("(a command Codex did not show)");
    let mut message = format!(
        "Run:\n\n{}",
        code_block(&cut(command, COMMAND_PREVIEW_CHARS))
    );
    if let Some(cwd) = approval.cwd.as_deref().filter(|cwd| !cwd.is_empty()) {
        message.push_str(&format!("\n\nin {cwd}"));
    }
    if let Some(reason) = approval
        .reason
        .as_deref()
        .filter(|reason| !reason.is_empty())
    {
        message.push_str(&format!("\n\n({reason})"));
    }
    let mut body = json!({
        "id": id,
        "title": "Codex: run this command?",
        "message": cut(&message, limits::MESSAGE_CHARS),
        "accept": "Run",
        "decline": "Decline",
        "comment": true,
    });
    if let Some(label) = lasting_label(approval.available_decisions.as_deref()) {
        body["accept_always"] = json!(cut(&label, limits::TITLE_CHARS));
    }
    body
}

fn file_change(approval: &FileChangeApproval, changes: Option<&Value>, id: &str) -> Value {
    let mut message = String::new();
    for change in changes.and_then(Value::as_array).into_iter().flatten() {
        let path = change["path"].as_str().unwrap_or("(a file)");
        let diff = change["diff"].as_str().unwrap_or("");
        message.push_str(&format!(
            "Change {path}\n\n{}\n\n",
            code_block(&cut(diff, DIFF_PREVIEW_CHARS))
        ));
    }
    if message.is_empty() {
        message.push_str("Codex asks to change files (it did not show which).\n\n");
    }
    if let Some(root) = approval
        .grant_root
        .as_deref()
        .filter(|root| !root.is_empty())
    {
        message.push_str(&format!(
            "and to write under {root} for the rest of the session\n\n"
        ));
    }
    if let Some(reason) = approval
        .reason
        .as_deref()
        .filter(|reason| !reason.is_empty())
    {
        message.push_str(&format!("({reason})"));
    }
    json!({
        "id": id,
        "title": "Codex: change these files?",
        "message": cut(message.trim_end(), limits::MESSAGE_CHARS),
        "accept": "Apply",
        "decline": "Decline",
        "comment": true,
        "accept_always": "Allow these files for this session",
    })
}

fn batch(request: &UserInputRequest, id: &str) -> Result<Value, String> {
    if request.questions.is_empty() || request.questions.len() > limits::MAX_ITEMS {
        return Err(format!(
            "{USER_INPUT}: questions: 1 to {} questions",
            limits::MAX_ITEMS
        ));
    }
    let items: Vec<Value> = request
        .questions
        .iter()
        .enumerate()
        .map(|(index, question)| {
            let options: Vec<Value> = question
                .options
                .iter()
                .flatten()
                .filter(|option| !option.label.trim().is_empty())
                .take(limits::MAX_OPTIONS)
                .enumerate()
                .map(|(number, option)| {
                    let mut shown = json!({
                        "id": format!("o{}", number + 1),
                        "label": cut(&option.label, limits::TITLE_CHARS),
                    });
                    if !option.description.is_empty() {
                        shown["detail"] = json!(cut(&option.description, limits::MESSAGE_CHARS));
                    }
                    shown
                })
                .collect();
            let mut item = json!({
                "id": format!("q{}", index + 1),
                "prompt": cut(&question.question, limits::MESSAGE_CHARS),
            });
            if options.is_empty() {
                item["kind"] = json!("text");
            } else {
                item["kind"] = json!("choice");
                item["options"] = json!(options);
                // Codex's own terminal always takes a note beside a choice.
                item["custom"] = json!(true);
            }
            if !question.header.is_empty() {
                item["header"] = json!(cut(&question.header, limits::TITLE_CHARS));
            }
            item
        })
        .collect();
    Ok(json!({"id": id, "title": "Codex asks", "items": items}))
}

/// The answers map: per question (by Codex's id), the chosen labels and then the human's own
/// words; empty lists where the surface did not answer.
fn answers(request: &UserInputRequest, reply: Option<&Value>) -> Map<String, Value> {
    let given = reply
        .and_then(|reply| reply.get("response"))
        .and_then(|response| response.get("answers"))
        .and_then(Value::as_array);
    let mut answers = Map::new();
    for (index, question) in request.questions.iter().enumerate() {
        let item = format!("q{}", index + 1);
        let answer = given
            .into_iter()
            .flatten()
            .find(|answer| answer["item_id"] == item.as_str());
        let labels: Vec<&str> = question
            .options
            .iter()
            .flatten()
            .filter(|option| !option.label.trim().is_empty())
            .map(|option| option.label.as_str())
            .collect();
        let mut said: Vec<Value> = answer
            .and_then(|answer| answer.get("selected"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|id| {
                let number: usize = id.as_str()?.strip_prefix('o')?.parse().ok()?;
                labels.get(number.checked_sub(1)?).map(|label| json!(label))
            })
            .collect();
        if let Some(text) = answer
            .and_then(|answer| answer.get("text"))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
        {
            said.push(json!(text));
        }
        answers.insert(question.id.clone(), json!({"answers": said}));
    }
    answers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command_request(offered: Value) -> Asked {
        Asked::read(
            COMMAND_APPROVAL,
            json!({"threadId": "01a24ce1", "turnId": "t1", "itemId": "call_1", "kind": "command",
                   "command": "/bin/bash -lc 'touch made-by-codex'", "cwd": "/p",
                   "availableDecisions": offered, "startedAtMs": 1}),
        )
        .unwrap()
    }

    fn user_input() -> Asked {
        Asked::read(
            USER_INPUT,
            json!({"threadId": "01a24ce1", "turnId": "t1", "itemId": "call_2", "isBlocking": true,
                   "questions": [
                       {"id": "database", "header": "Database", "question": "Which database?",
                        "options": [{"label": "SQLite", "description": "One file"},
                                    {"label": "PostgreSQL", "description": "A server"}]},
                       {"id": "name", "header": "Name", "question": "What is it called?"}]}),
        )
        .unwrap()
    }

    #[test]
    fn a_command_is_a_confirmation_in_the_thread_session_showing_the_command() {
        let question = command_request(json!(["accept", "cancel"]))
            .question("cx-1")
            .unwrap();
        assert_eq!(question.path(), "/v1/sessions/codex-01a24ce1/confirmations");
        assert!(question.body["message"]
            .as_str()
            .unwrap()
            .contains("touch made-by-codex"));
        assert_eq!(question.body["hold"], json!(true));
        assert!(question.body.get("accept_always").is_none());
    }

    #[test]
    fn a_command_is_accepted_declined_or_accepted_for_good_as_codex_offers() {
        let amendment =
            json!({"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["touch", "x"]}});
        let asked = command_request(json!(["accept", amendment.clone(), "cancel"]));
        assert_eq!(
            asked.question("cx-1").unwrap().body["accept_always"],
            json!("Always allow `touch x`")
        );
        let accepted = json!({"status": "accepted"});
        assert_eq!(asked.result(Some(&accepted)), json!({"decision": "accept"}));
        let always = json!({"status": "accepted", "always": true});
        assert_eq!(asked.result(Some(&always)), json!({"decision": amendment}));
        // Codex offered no `decline` here: a decline interrupts the turn, as its own UI does.
        let declined = json!({"status": "declined", "comment": "no"});
        assert_eq!(asked.result(Some(&declined)), json!({"decision": "cancel"}));
        let with_decline = command_request(json!(["accept", "acceptForSession", "decline"]));
        assert_eq!(
            with_decline.result(Some(&declined)),
            json!({"decision": "decline"})
        );
        assert_eq!(
            with_decline.result(Some(&always)),
            json!({"decision": "acceptForSession"})
        );
    }

    #[test]
    fn what_the_surface_did_not_settle_is_never_an_accept() {
        let asked = command_request(json!(["accept", "decline"]));
        assert_eq!(asked.result(None), json!({"decision": "decline"}));
        let withdrawn = json!({"status": "withdrawn"});
        assert_eq!(
            asked.result(Some(&withdrawn)),
            json!({"decision": "decline"})
        );
        assert_eq!(
            user_input().result(None),
            json!({"answers": {"database": {"answers": []}, "name": {"answers": []}}})
        );
    }

    #[test]
    fn a_file_change_shows_each_file_and_its_diff() {
        let asked = Asked::FileChange(
            serde_json::from_value(json!({"threadId": "th", "turnId": "t", "itemId": "i"}))
                .unwrap(),
            Some(json!([{"path": "/p/a.txt", "kind": {"type": "update"}, "diff": "-one\n+two"}])),
        );
        let question = asked.question("cx-2").unwrap();
        let message = question.body["message"].as_str().unwrap();
        assert!(
            message.contains("/p/a.txt") && message.contains("+two"),
            "{message}"
        );
        let always = json!({"status": "accepted", "always": true});
        assert_eq!(
            asked.result(Some(&always)),
            json!({"decision": "acceptForSession"})
        );
    }

    #[test]
    fn questions_are_a_batch_answered_by_codex_ids_labels_first_then_words() {
        let asked = user_input();
        let question = asked.question("cx-3").unwrap();
        assert_eq!(
            question.path(),
            "/v1/sessions/codex-01a24ce1/clarifications"
        );
        let items = question.body["items"].as_array().unwrap();
        assert_eq!(items[0]["kind"], json!("choice"));
        assert_eq!(items[0]["options"][1]["label"], json!("PostgreSQL"));
        assert_eq!(items[0]["options"][1]["detail"], json!("A server"));
        assert_eq!(items[1]["kind"], json!("text"));
        let reply = json!({"status": "answered", "response": {"answers": [
            {"item_id": "q1", "selected": ["o2"], "text": "we already run one"},
            {"item_id": "q2", "text": "Ledger"}]}});
        assert_eq!(
            asked.result(Some(&reply)),
            json!({"answers": {
                "database": {"answers": ["PostgreSQL", "we already run one"]},
                "name": {"answers": ["Ledger"]}}})
        );
    }

    #[test]
    fn a_decline_comment_is_the_trimmed_words_of_a_decline_only() {
        assert_eq!(
            decline_comment(&json!({"status": "declined", "comment": " keep it "})),
            Some("keep it")
        );
        assert_eq!(
            decline_comment(&json!({"status": "declined", "comment": " "})),
            None
        );
        assert_eq!(
            decline_comment(&json!({"status": "accepted", "comment": "x"})),
            None
        );
    }

    #[test]
    fn a_request_the_bridge_does_not_answer_or_cannot_read_says_so() {
        assert!(Asked::read("account/chatgptAuthTokens/refresh", json!({})).is_err());
        assert!(Asked::read(COMMAND_APPROVAL, json!({"threadId": 1})).is_err());
        let odd = Asked::read(
            COMMAND_APPROVAL,
            json!({"threadId": "a/b", "turnId": "t", "itemId": "i"}),
        )
        .unwrap();
        assert!(odd.question("cx").is_err());
    }
}
