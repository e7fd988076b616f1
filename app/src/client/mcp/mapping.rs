//! Between `ask_user_question`'s shapes and the surface's clarification batches.
//!
//! This module owns the pure translations: questions into batch items (a choice with option
//! ids `o1`, `o2`… and free text allowed, or a multi-line text item), a batch reply into an
//! [`Outcome`], a response into the tool's answers (option ids back to labels, skipped items
//! as empty `selected`), and the pending result. It does no I/O and must not check the rules
//! of a batch beyond what is the tool's own (question ids unique in the call, the timeout's
//! range): the surface checks the rest.

use super::schema::{AskUserQuestionArgs, Question};
use chatsurface_model::{
    AnswerKind, ChoiceOption, ClarificationItem, ClarificationResponse, ItemId, OptionId,
};
use serde_json::{json, Map, Value};
use std::collections::HashSet;

/// What the pending result tells the model to do.
pub(super) const PENDING_MESSAGE: &str =
    "The human has not answered yet; pending is never approval. \
                                   Call get_pending_answer with this callId later.";

/// The longest finite timeout, in seconds (about 24.8 days).
pub(super) const MAX_TIMEOUT_S: i64 = 2_147_483;

/// Where a batch stands, as the surface reported it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// The human answered.
    Answered(ClarificationResponse),
    /// No answer yet; the batch stays open.
    Pending {
        /// The batch's id.
        batch_id: String,
    },
    /// The batch closed unanswered: `expired` or `withdrawn`.
    Closed {
        /// The batch's id.
        batch_id: String,
        /// The status the surface gave.
        status: String,
    },
}

/// Checks what is the tool's own to check and returns the seconds to wait: `None` to wait
/// until answered (no `timeout`, or -1), else 1 to [`MAX_TIMEOUT_S`].
pub(super) fn check_ask(args: &AskUserQuestionArgs) -> Result<Option<u64>, String> {
    if args.questions.is_empty() {
        return Err("questions: ask at least one question".to_owned());
    }
    let mut seen = HashSet::new();
    for question in &args.questions {
        if !seen.insert(question.id.as_str()) {
            return Err(format!(
                "questions: question id {:?} must be unique within this call",
                question.id
            ));
        }
    }
    match args.timeout {
        None | Some(-1) => Ok(None),
        Some(seconds) if (1..=MAX_TIMEOUT_S).contains(&seconds) => Ok(seconds.try_into().ok()),
        Some(seconds) => Err(format!(
            "timeout: must be -1 (no limit) or whole seconds from 1 to {MAX_TIMEOUT_S}, not {seconds}"
        )),
    }
}

/// The batch items the questions ask for, in order.
///
/// A question with options becomes a choice (option ids `o1`, `o2`…, the description as the
/// option's detail, free text allowed, several choices when `multi_select`, and a label ending
/// in "(Recommended)" marked as recommended); one without becomes a multi-line text item.
pub(super) fn question_items(questions: &[Question]) -> Vec<ClarificationItem> {
    questions.iter().map(question_item).collect()
}

fn question_item(question: &Question) -> ClarificationItem {
    let options: Vec<ChoiceOption> = question
        .options
        .iter()
        .flatten()
        .enumerate()
        .map(|(index, option)| ChoiceOption {
            id: OptionId(format!("o{}", index + 1)),
            label: option.label.clone(),
            detail: option.description.clone(),
        })
        .collect();
    let choice = question.options.is_some();
    let recommended = options
        .iter()
        .find(|option| option.label.trim_end().ends_with("(Recommended)"))
        .map(|option| option.id.clone());
    ClarificationItem {
        id: ItemId(question.id.clone()),
        prompt: question.question.clone(),
        header: question.header.clone(),
        kind: if choice {
            AnswerKind::Choice
        } else {
            AnswerKind::Multiline
        },
        multiple: choice && question.multi_select.unwrap_or(false),
        custom: choice,
        recommended,
        options,
    }
}

/// The body of `POST /v1/sessions/{sid}/clarifications` for the items; with `wait`, the
/// surface answers pending after that many seconds instead of holding the request.
pub(super) fn batch_body(batch_id: &str, items: &[ClarificationItem], wait: Option<u64>) -> Value {
    let mut body = Map::new();
    body.insert("id".into(), json!(batch_id));
    body.insert("items".into(), json!(items));
    if let Some(wait) = wait {
        body.insert("wait".into(), json!(wait));
    }
    Value::Object(body)
}

/// Reads a batch reply: `{"pending":true,"batch_id"}`, or `{"batch_id","status",
/// "response"?}` with status `answered`, `expired` or `withdrawn`.
pub(super) fn outcome_of(reply: &Value) -> Result<Outcome, String> {
    let unreadable = || format!("the surface answered something this server cannot read: {reply}");
    let batch_id = reply
        .get("batch_id")
        .and_then(Value::as_str)
        .ok_or_else(unreadable)?
        .to_owned();
    if reply.get("pending").and_then(Value::as_bool) == Some(true) {
        return Ok(Outcome::Pending { batch_id });
    }
    match reply.get("status").and_then(Value::as_str) {
        Some("answered") => reply
            .get("response")
            .cloned()
            .and_then(|response| serde_json::from_value(response).ok())
            .map(Outcome::Answered)
            .ok_or_else(unreadable),
        Some(status @ ("expired" | "withdrawn")) => Ok(Outcome::Closed {
            batch_id,
            status: status.to_owned(),
        }),
        _ => Err(unreadable()),
    }
}

/// The tool's result for an answered batch: one entry per item, in the items' order, with the
/// chosen options' labels in `selected` and any free text in `custom`. A skipped or
/// unanswered item has empty `selected` and no `custom`.
pub(super) fn answers_result(
    items: &[ClarificationItem],
    response: &ClarificationResponse,
) -> Value {
    let answers: Vec<Value> = items
        .iter()
        .map(|item| {
            let answer = response.answer(&item.id).filter(|answer| !answer.skipped);
            let selected: Vec<&str> = answer
                .map(|answer| {
                    answer
                        .selected
                        .iter()
                        .map(|id| item.option_label(id))
                        .collect()
                })
                .unwrap_or_default();
            let mut entry = Map::new();
            entry.insert("id".into(), json!(item.id));
            entry.insert("selected".into(), json!(selected));
            if let Some(text) = answer
                .and_then(|answer| answer.text.as_deref())
                .filter(|text| !text.trim().is_empty())
            {
                entry.insert("custom".into(), json!(text));
            }
            Value::Object(entry)
        })
        .collect();
    let mut result = json!({"answers": answers});
    if let Some(general) = response
        .general
        .as_deref()
        .filter(|text| !text.trim().is_empty())
    {
        result["general"] = json!(general);
    }
    result
}

/// The tool's result when the wait passed unanswered.
pub(super) fn pending_result(batch_id: &str) -> Value {
    json!({"pending": true, "callId": batch_id, "message": PENDING_MESSAGE})
}

/// Why a closed batch gives no answer, for the model.
pub(super) fn closed_message(batch_id: &str, status: &str) -> String {
    format!(
        "The question {batch_id:?} was {status} before the human answered it; there is no \
         answer, and this is not approval."
    )
}

/// The items of batch `batch_id` in a session snapshot (`GET …/snapshot`), for a batch this
/// process did not open.
pub(super) fn batch_items_in_snapshot(
    snapshot: &Value,
    batch_id: &str,
) -> Option<Vec<ClarificationItem>> {
    snapshot
        .get("batches")?
        .as_array()?
        .iter()
        .find(|batch| batch.get("id").and_then(Value::as_str) == Some(batch_id))
        .and_then(|batch| serde_json::from_value(batch.get("items")?.clone()).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::mcp::schema::QuestionOption;

    fn question(id: &str, options: Option<&[(&str, Option<&str>)]>, multi: bool) -> Question {
        Question {
            id: id.to_owned(),
            question: format!("{id}?"),
            header: None,
            options: options.map(|options| {
                options
                    .iter()
                    .map(|(label, description)| QuestionOption {
                        label: (*label).to_owned(),
                        description: description.map(str::to_owned),
                    })
                    .collect()
            }),
            multi_select: Some(multi),
        }
    }

    fn args(questions: Vec<Question>, timeout: Option<i64>) -> AskUserQuestionArgs {
        AskUserQuestionArgs { questions, timeout }
    }

    fn response(value: Value) -> ClarificationResponse {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn questions_become_one_batch_of_choice_and_text_items() {
        let mut env = question(
            "env",
            Some(&[
                ("Staging (Recommended)", Some("Safe")),
                ("Production", None),
            ]),
            false,
        );
        env.header = Some("Target".to_owned());
        let questions = [
            env,
            question("why", None, true),
            question("checks", Some(&[("lint", None), ("tests", None)]), true),
        ];
        let body = batch_body("ask-1", &question_items(&questions), Some(5));
        assert_eq!(
            body,
            json!({
                "id": "ask-1",
                "wait": 5,
                "items": [
                    {"id": "env", "prompt": "env?", "header": "Target", "kind": "choice",
                     "options": [{"id": "o1", "label": "Staging (Recommended)", "detail": "Safe"},
                                 {"id": "o2", "label": "Production"}],
                     "custom": true, "recommended": "o1"},
                    {"id": "why", "prompt": "why?", "kind": "multiline"},
                    {"id": "checks", "prompt": "checks?", "kind": "choice",
                     "options": [{"id": "o1", "label": "lint"}, {"id": "o2", "label": "tests"}],
                     "multiple": true, "custom": true}
                ]
            })
        );
        assert_eq!(
            batch_body("ask-2", &question_items(&questions[1..2]), None),
            json!({"id": "ask-2", "items": [{"id": "why", "prompt": "why?", "kind": "multiline"}]})
        );
    }

    #[test]
    fn ids_must_be_unique_and_timeouts_in_range() {
        let two = || vec![question("a", None, false), question("b", None, false)];
        assert_eq!(check_ask(&args(two(), None)), Ok(None));
        assert_eq!(check_ask(&args(two(), Some(-1))), Ok(None));
        assert_eq!(check_ask(&args(two(), Some(1))), Ok(Some(1)));
        assert_eq!(
            check_ask(&args(two(), Some(MAX_TIMEOUT_S))),
            Ok(Some(2_147_483))
        );
        for bad in [0, -2, MAX_TIMEOUT_S + 1] {
            let error = check_ask(&args(two(), Some(bad))).unwrap_err();
            assert!(error.starts_with("timeout: "), "{error}");
        }
        let error = check_ask(&args(
            vec![question("a", None, false), question("a", None, false)],
            None,
        ))
        .unwrap_err();
        assert_eq!(
            error,
            "questions: question id \"a\" must be unique within this call"
        );
        assert!(check_ask(&args(Vec::new(), None)).is_err());
    }

    #[test]
    fn answers_carry_labels_free_text_and_skips_in_question_order() {
        let items = question_items(&[
            question(
                "env",
                Some(&[("Staging", None), ("Production", None)]),
                false,
            ),
            question(
                "checks",
                Some(&[("lint", None), ("tests", None), ("docs", None)]),
                true,
            ),
            question("why", None, false),
            question("skip", Some(&[("x", None)]), false),
            question("silent", None, false),
        ]);
        let answered = response(json!({"answers": [
            {"item_id": "why", "text": "Because the release is due."},
            {"item_id": "checks", "selected": ["o3", "o1"]},
            {"item_id": "env", "selected": ["o2"], "text": "but only after 18:00"},
            {"item_id": "skip", "selected": ["o1"], "text": "ignored", "skipped": true},
            {"item_id": "stranger", "selected": ["o1"]}
        ], "general": "Thanks"}));
        assert_eq!(
            answers_result(&items, &answered),
            json!({"answers": [
                {"id": "env", "selected": ["Production"], "custom": "but only after 18:00"},
                {"id": "checks", "selected": ["docs", "lint"]},
                {"id": "why", "selected": [], "custom": "Because the release is due."},
                {"id": "skip", "selected": []},
                {"id": "silent", "selected": []}
            ], "general": "Thanks"})
        );
    }

    #[test]
    fn blank_free_text_is_no_custom_answer() {
        let items = question_items(&[question("why", None, false)]);
        let answered = response(json!({"answers": [{"item_id": "why", "text": "  \n"}]}));
        assert_eq!(
            answers_result(&items, &answered),
            json!({"answers": [{"id": "why", "selected": []}]})
        );
    }

    #[test]
    fn replies_become_outcomes() {
        assert_eq!(
            outcome_of(&json!({"pending": true, "batch_id": "b1"})),
            Ok(Outcome::Pending {
                batch_id: "b1".into()
            })
        );
        assert_eq!(
            outcome_of(&json!({"batch_id": "b1", "status": "answered",
                               "response": {"answers": [{"item_id": "q", "skipped": true}]}})),
            Ok(Outcome::Answered(response(
                json!({"answers": [{"item_id": "q", "skipped": true}]})
            )))
        );
        assert_eq!(
            outcome_of(&json!({"batch_id": "b1", "status": "withdrawn"})),
            Ok(Outcome::Closed {
                batch_id: "b1".into(),
                status: "withdrawn".into()
            })
        );
        for unreadable in [
            json!({"status": "answered"}),
            json!({"batch_id": "b1", "status": "answered"}),
            json!({"batch_id": "b1", "status": "open"}),
            json!({"batch_id": "b1", "status": "answered", "response": {"answers": 3}}),
        ] {
            assert!(outcome_of(&unreadable).is_err(), "{unreadable}");
        }
    }

    #[test]
    fn pending_result_names_the_call_and_is_never_approval() {
        let pending = pending_result("ask-7");
        assert_eq!(pending["pending"], json!(true));
        assert_eq!(pending["callId"], json!("ask-7"));
        let message = pending["message"].as_str().unwrap();
        assert!(message.contains("never approval"), "{message}");
        assert!(message.contains("get_pending_answer"), "{message}");
        assert_eq!(pending.as_object().unwrap().len(), 3);
        assert!(closed_message("ask-7", "expired").contains("not approval"));
    }

    #[test]
    fn items_are_found_in_a_snapshot_by_batch_id() {
        let items = question_items(&[question("env", Some(&[("Staging", None)]), false)]);
        let snapshot = json!({"batches": [
            {"id": "other", "thread_id": "main", "items": []},
            {"id": "b2", "thread_id": "main", "items": items, "status": "open"}
        ]});
        assert_eq!(batch_items_in_snapshot(&snapshot, "b2"), Some(items));
        assert_eq!(batch_items_in_snapshot(&snapshot, "b3"), None);
        assert_eq!(batch_items_in_snapshot(&json!({}), "b2"), None);
    }
}
