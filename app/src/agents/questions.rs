//! The questions agents ask through a tool of theirs (Claude Code's `AskUserQuestion`,
//! Codex's `request_user_input`, Gemini CLI's `ask_user`) as clarification items: all take
//! `questions`, each with its `question`, a short `header` and `options` of `label` and
//! `description`, and all offer the human free text besides ("Other"); Gemini CLI's also have
//! a `type` (`choice`, `text` or `yesno`). Options beyond the model's limit are left out, and
//! texts over its limits are cut, so what an agent asked always folds.

use super::{cut, title_of};
use chatsurface_model::{limits, AnswerKind, ChoiceOption, ClarificationItem, ItemAnswer};
use serde_json::Value;

/// One item per question of a call's `questions`, numbered `q1`, `q2`, … with options `o1`,
/// `o2`, …; `multiSelect` makes an item take several options. A question of `type` `text`
/// is a text item and one of `yesno` a yes/no item (with free text besides, as Gemini CLI
/// offers); any other is a choice.
pub(crate) fn question_items(arguments: &Value) -> Vec<ClarificationItem> {
    let Some(questions) = arguments.get("questions").and_then(Value::as_array) else {
        return Vec::new();
    };
    questions
        .iter()
        .enumerate()
        .filter_map(|(index, question)| {
            let prompt = question.get("question").and_then(Value::as_str)?;
            let kind = match question.get("type").and_then(Value::as_str) {
                Some("text") => AnswerKind::Text,
                Some("yesno") => AnswerKind::YesNo,
                _ => AnswerKind::Choice,
            };
            let options: Vec<ChoiceOption> = question
                .get("options")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|option| Some((option.get("label")?.as_str()?, option)))
                .filter(|(label, _)| kind == AnswerKind::Choice && !label.trim().is_empty())
                .take(limits::MAX_OPTIONS)
                .enumerate()
                .map(|(number, (label, option))| ChoiceOption {
                    id: format!("o{}", number + 1).as_str().into(),
                    label: cut(label, limits::MESSAGE_CHARS),
                    detail: option
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                })
                .collect();
            let multiple = question.get("multiSelect").and_then(Value::as_bool) == Some(true)
                && options.len() >= limits::MIN_OPTIONS_FOR_MULTIPLE;
            Some(ClarificationItem {
                id: format!("q{}", index + 1).as_str().into(),
                prompt: cut(prompt, limits::MESSAGE_CHARS),
                header: question.get("header").and_then(Value::as_str).map(title_of),
                kind,
                options,
                multiple,
                custom: kind != AnswerKind::Text,
                recommended: None,
            })
        })
        .collect()
}

/// An item's answer from the words an agent's tool got back: an option's label, several
/// labels joined by ", ", "Yes" or "No" for a yes/no item, or else the text the human typed.
pub(crate) fn answer_from_words(item: &ClarificationItem, given: &str) -> ItemAnswer {
    let label_of = |label: &str| {
        item.options
            .iter()
            .find(|option| option.label == label.trim())
    };
    let (selected, text) = if item.kind == AnswerKind::YesNo {
        match given.trim() {
            "Yes" | "yes" => (vec!["yes".into()], None),
            "No" | "no" => (vec!["no".into()], None),
            _ => (Vec::new(), Some(given.to_owned())),
        }
    } else if let Some(option) = label_of(given) {
        (vec![option.id.clone()], None)
    } else {
        let parts: Vec<_> = given.split(", ").map(label_of).collect();
        if item.multiple && parts.len() > 1 && parts.iter().all(Option::is_some) {
            (
                parts
                    .into_iter()
                    .flatten()
                    .map(|option| option.id.clone())
                    .collect(),
                None,
            )
        } else {
            (Vec::new(), Some(given.to_owned()))
        }
    };
    ItemAnswer {
        item_id: item.id.clone(),
        selected,
        text,
        ..ItemAnswer::default()
    }
}
