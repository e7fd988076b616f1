//! The questions agents ask through a tool of theirs (Claude Code's `AskUserQuestion`,
//! Codex's `request_user_input`) as clarification items: both take `questions`, each with
//! its `question`, a short `header` and `options` of `label` and `description`, and both offer
//! the human free text besides ("Other"). Options beyond the model's limit are left out, and
//! texts over its limits are cut, so what an agent asked always folds.

use super::{cut, title_of};
use chatsurface_model::{limits, AnswerKind, ChoiceOption, ClarificationItem};
use serde_json::Value;

/// One item per question of a call's `questions`, numbered `q1`, `q2`, … with options `o1`,
/// `o2`, …; `multiSelect` makes an item take several options.
pub(crate) fn question_items(arguments: &Value) -> Vec<ClarificationItem> {
    let Some(questions) = arguments.get("questions").and_then(Value::as_array) else {
        return Vec::new();
    };
    questions
        .iter()
        .enumerate()
        .filter_map(|(index, question)| {
            let prompt = question.get("question").and_then(Value::as_str)?;
            let options: Vec<ChoiceOption> = question
                .get("options")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|option| Some((option.get("label")?.as_str()?, option)))
                .filter(|(label, _)| !label.trim().is_empty())
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
                kind: AnswerKind::Choice,
                options,
                multiple,
                custom: true,
                recommended: None,
            })
        })
        .collect()
}
