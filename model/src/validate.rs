//! Validation of what agents ask and what humans answer.
//!
//! Every rule lives here, once, so the fold, the local API and the CLI reject the same things
//! with the same words. Each failure names the field and the rule it broke. Lengths count
//! characters, not bytes, so a Russian title has the same limit as an English one.

use crate::clarification::{AnswerKind, BatchSpec, ClarificationResponse};
use crate::confirmation::ConfirmationSpec;
use crate::nodes::ThreadSpec;
use std::collections::HashSet;
use std::fmt;

/// The limits of the dialog contract.
pub mod limits {
    /// Longest message or item prompt, in characters.
    pub const MESSAGE_CHARS: usize = 600;
    /// Longest title or item header, in characters.
    pub const TITLE_CHARS: usize = 60;
    /// Longest accept or decline label, in characters.
    pub const BUTTON_LABEL_CHARS: usize = 30;
    /// Most options on one item.
    pub const MAX_OPTIONS: usize = 9;
    /// Fewest options an item needs to allow several choices.
    pub const MIN_OPTIONS_FOR_MULTIPLE: usize = 2;
    /// Most items in one batch asked now (see `validate_batch_size`).
    pub const MAX_ITEMS: usize = 50;
    /// Most levels of threads below a topic, for threads opened now: checked where they are
    /// opened (the local API), not in the fold, so logs written before the limit still open.
    pub const MAX_THREAD_DEPTH: usize = 64;
    /// Most threads in one session, for threads opened now, checked where MAX_THREAD_DEPTH
    /// is: enough for any real session (a long Claude Code run with every rewind and
    /// sub-agent has tens), few enough that the overview of one stays cheap to build.
    pub const MAX_THREADS: usize = 10_000;
}

/// A broken rule: which field, and what the rule is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError {
    /// The field's path, like `batch.items[2].options`.
    pub field: String,
    /// The rule, in words.
    pub rule: String,
}

impl ValidationError {
    fn new(field: impl Into<String>, rule: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            rule: rule.into(),
        }
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.rule)
    }
}

impl std::error::Error for ValidationError {}

type Checked = Result<(), ValidationError>;

fn non_empty(field: &str, value: &str) -> Checked {
    if value.trim().is_empty() {
        return Err(ValidationError::new(field, "must not be empty"));
    }
    Ok(())
}

fn at_most(field: &str, value: &str, max: usize) -> Checked {
    let chars = value.chars().count();
    if chars > max {
        return Err(ValidationError::new(
            field,
            format!("must be at most {max} characters (has {chars})"),
        ));
    }
    Ok(())
}

fn unique<'a>(field: &str, ids: impl IntoIterator<Item = &'a str>) -> Checked {
    let mut seen = HashSet::new();
    for id in ids {
        non_empty(field, id)?;
        if !seen.insert(id) {
            return Err(ValidationError::new(
                field,
                format!("id \"{id}\" is used twice"),
            ));
        }
    }
    Ok(())
}

/// Checks a thread an agent opens.
pub fn validate_thread(thread: &ThreadSpec) -> Checked {
    non_empty("thread.id", thread.id.as_str())?;
    non_empty("thread.title", &thread.title)?;
    at_most("thread.title", &thread.title, limits::TITLE_CHARS)
}

/// Checks that a batch being asked holds at most [`limits::MAX_ITEMS`] items, so that one
/// request cannot make every frame of its session lay out thousands of items. Checked where a
/// batch is asked (the local API), not when a log is folded: a log written before the limit
/// existed must still open.
pub fn validate_batch_size(batch: &BatchSpec) -> Checked {
    if batch.items.len() > limits::MAX_ITEMS {
        return Err(ValidationError::new(
            "batch.items",
            format!(
                "at most {} items (got {}); split the questions into several batches",
                limits::MAX_ITEMS,
                batch.items.len()
            ),
        ));
    }
    Ok(())
}

/// Checks a batch an agent opens.
pub fn validate_batch(batch: &BatchSpec) -> Checked {
    non_empty("batch.id", batch.id.as_str())?;
    if let Some(title) = &batch.title {
        at_most("batch.title", title, limits::TITLE_CHARS)?;
    }
    if batch.items.is_empty() {
        return Err(ValidationError::new(
            "batch.items",
            "must hold at least one item",
        ));
    }
    unique(
        "batch.items[].id",
        batch.items.iter().map(|item| item.id.as_str()),
    )?;
    for (index, item) in batch.items.iter().enumerate() {
        let field = |name: &str| format!("batch.items[{index}].{name}");
        non_empty(&field("prompt"), &item.prompt)?;
        at_most(&field("prompt"), &item.prompt, limits::MESSAGE_CHARS)?;
        if let Some(header) = &item.header {
            at_most(&field("header"), header, limits::TITLE_CHARS)?;
        }
        let is_choice = item.kind == AnswerKind::Choice;
        if !is_choice && !item.options.is_empty() {
            return Err(ValidationError::new(
                field("options"),
                format!(
                    "only a choice item has options (this one is {})",
                    item.kind.label()
                ),
            ));
        }
        if is_choice && item.options.is_empty() && !item.custom {
            return Err(ValidationError::new(
                field("options"),
                "a choice item needs at least one option or custom text",
            ));
        }
        if item.options.len() > limits::MAX_OPTIONS {
            return Err(ValidationError::new(
                field("options"),
                format!(
                    "must hold at most {} options (has {})",
                    limits::MAX_OPTIONS,
                    item.options.len()
                ),
            ));
        }
        unique(
            &field("options[].id"),
            item.options.iter().map(|option| option.id.as_str()),
        )?;
        for (option_index, option) in item.options.iter().enumerate() {
            let label_field = field(&format!("options[{option_index}].label"));
            non_empty(&label_field, &option.label)?;
            at_most(&label_field, &option.label, limits::MESSAGE_CHARS)?;
        }
        if item.multiple && item.options.len() < limits::MIN_OPTIONS_FOR_MULTIPLE {
            return Err(ValidationError::new(
                field("multiple"),
                format!(
                    "needs at least {} options",
                    limits::MIN_OPTIONS_FOR_MULTIPLE
                ),
            ));
        }
        if let Some(recommended) = &item.recommended {
            if !item.options.iter().any(|option| &option.id == recommended) {
                return Err(ValidationError::new(
                    field("recommended"),
                    format!("names option \"{recommended}\", which the item does not offer"),
                ));
            }
        }
    }
    if let Some(timeout) = batch.timeout_s {
        if !(timeout.is_finite() && timeout > 0.0) {
            return Err(ValidationError::new(
                "batch.timeout_s",
                "must be a positive number of seconds",
            ));
        }
    }
    absolute_path("batch.attachment", batch.attachment.as_deref())
}

/// Checks a confirmation an agent requests.
pub fn validate_confirmation(confirmation: &ConfirmationSpec) -> Checked {
    non_empty("confirmation.id", confirmation.id.as_str())?;
    non_empty("confirmation.message", &confirmation.message)?;
    at_most(
        "confirmation.message",
        &confirmation.message,
        limits::MESSAGE_CHARS,
    )?;
    if let Some(title) = &confirmation.title {
        at_most("confirmation.title", title, limits::TITLE_CHARS)?;
    }
    for (field, label) in [
        ("confirmation.accept", &confirmation.accept),
        ("confirmation.decline", &confirmation.decline),
    ] {
        if let Some(label) = label {
            non_empty(field, label)?;
            at_most(field, label, limits::BUTTON_LABEL_CHARS)?;
        }
    }
    if let Some(label) = &confirmation.accept_always {
        non_empty("confirmation.accept_always", label)?;
        at_most("confirmation.accept_always", label, limits::TITLE_CHARS)?;
    }
    if let Some(timeout) = confirmation.timeout_s {
        if !(timeout.is_finite() && timeout > 0.0) {
            return Err(ValidationError::new(
                "confirmation.timeout_s",
                "must be a positive number of seconds",
            ));
        }
    }
    absolute_path(
        "confirmation.attachment",
        confirmation.attachment.as_deref(),
    )
}

/// An attachment, when there is one, must be an absolute path: the log outlives the agent's
/// working directory, so a relative path would name nothing by the time a human opens it.
fn absolute_path(field: &str, path: Option<&str>) -> Checked {
    match path {
        Some(path) if !path.starts_with('/') => {
            Err(ValidationError::new(field, "must be an absolute path"))
        }
        _ => Ok(()),
    }
}

/// Checks a response (or a draft) against the batch it answers.
pub fn validate_response(batch: &BatchSpec, response: &ClarificationResponse) -> Checked {
    let mut answered = HashSet::new();
    for (index, answer) in response.answers.iter().enumerate() {
        let field = |name: &str| format!("answers[{index}].{name}");
        let Some(item) = batch.items.iter().find(|item| item.id == answer.item_id) else {
            return Err(ValidationError::new(
                field("item_id"),
                format!("batch \"{}\" has no item \"{}\"", batch.id, answer.item_id),
            ));
        };
        if !answered.insert(&answer.item_id) {
            return Err(ValidationError::new(
                field("item_id"),
                format!("item \"{}\" is answered twice", answer.item_id),
            ));
        }
        if answer.skipped && (!answer.selected.is_empty() || answer.text.is_some()) {
            return Err(ValidationError::new(
                field("skipped"),
                "a skipped item carries no selection or text",
            ));
        }
        match item.kind {
            AnswerKind::YesNo => {
                if answer.selected.len() > 1
                    || answer
                        .selected
                        .iter()
                        .any(|id| id.as_str() != "yes" && id.as_str() != "no")
                {
                    return Err(ValidationError::new(
                        field("selected"),
                        "a yes/no item is answered with [\"yes\"] or [\"no\"]",
                    ));
                }
            }
            AnswerKind::Choice => {
                for id in &answer.selected {
                    if !item.options.iter().any(|option| &option.id == id) {
                        return Err(ValidationError::new(
                            field("selected"),
                            format!("item \"{}\" has no option \"{id}\"", item.id),
                        ));
                    }
                }
                if !item.multiple && answer.selected.len() > 1 {
                    return Err(ValidationError::new(
                        field("selected"),
                        format!(
                            "item \"{}\" allows one option, not {}",
                            item.id,
                            answer.selected.len()
                        ),
                    ));
                }
            }
            AnswerKind::Text | AnswerKind::Multiline => {
                if !answer.selected.is_empty() {
                    return Err(ValidationError::new(
                        field("selected"),
                        "a text item has no options to select",
                    ));
                }
            }
        }
        let takes_text =
            matches!(item.kind, AnswerKind::Text | AnswerKind::Multiline) || item.custom;
        if answer.text.is_some() && !takes_text {
            return Err(ValidationError::new(
                field("text"),
                format!("item \"{}\" takes no free text", item.id),
            ));
        }
    }
    if response.general.is_some() && !batch.general_field {
        return Err(ValidationError::new(
            "general",
            "this batch has no general field",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clarification::{ChoiceOption, ClarificationItem, ItemAnswer};

    fn choice_item(id: &str, options: usize) -> ClarificationItem {
        ClarificationItem {
            id: id.into(),
            prompt: "Which?".into(),
            header: None,
            kind: AnswerKind::Choice,
            options: (0..options)
                .map(|n| ChoiceOption {
                    id: format!("o{n}").as_str().into(),
                    label: format!("Option {n}"),
                    detail: None,
                })
                .collect(),
            multiple: false,
            custom: false,
            recommended: None,
        }
    }

    fn batch(items: Vec<ClarificationItem>) -> BatchSpec {
        BatchSpec {
            held: false,
            id: "b1".into(),
            thread_id: "t1".into(),
            title: None,
            items,
            general_field: false,
            timeout_s: None,
            attachment: None,
        }
    }

    #[test]
    fn ten_options_break_the_nine_option_rule() {
        let error = validate_batch(&batch(vec![choice_item("q", 10)])).unwrap_err();
        assert_eq!(error.field, "batch.items[0].options");
        assert!(error.rule.contains("at most 9"), "{error}");
        assert!(validate_batch(&batch(vec![choice_item("q", 9)])).is_ok());
    }

    #[test]
    fn an_attachment_must_be_an_absolute_path() {
        let mut spec = batch(vec![choice_item("q", 2)]);
        spec.attachment = Some("plan.md".into());
        let error = validate_batch(&spec).unwrap_err();
        assert_eq!(error.field, "batch.attachment");
        assert!(error.rule.contains("absolute"), "{error}");
        spec.attachment = Some("/work/plan.md".into());
        assert!(validate_batch(&spec).is_ok());
    }

    #[test]
    fn multiple_needs_two_options() {
        let mut item = choice_item("q", 1);
        item.multiple = true;
        let error = validate_batch(&batch(vec![item])).unwrap_err();
        assert_eq!(error.field, "batch.items[0].multiple");
    }

    #[test]
    fn prompt_limit_counts_characters_not_bytes() {
        let mut item = choice_item("q", 2);
        item.prompt = "ж".repeat(600);
        assert!(
            validate_batch(&batch(vec![item.clone()])).is_ok(),
            "600 Cyrillic characters are 1200 bytes but allowed"
        );
        item.prompt.push('ж');
        assert_eq!(
            validate_batch(&batch(vec![item])).unwrap_err().field,
            "batch.items[0].prompt"
        );
    }

    #[test]
    fn duplicate_item_ids_are_named() {
        let error =
            validate_batch(&batch(vec![choice_item("q", 2), choice_item("q", 2)])).unwrap_err();
        assert_eq!(error.field, "batch.items[].id");
        assert!(error.rule.contains("\"q\""));
    }

    #[test]
    fn recommended_must_be_an_offered_option() {
        let mut item = choice_item("q", 2);
        item.recommended = Some("o7".into());
        assert_eq!(
            validate_batch(&batch(vec![item])).unwrap_err().field,
            "batch.items[0].recommended"
        );
    }

    #[test]
    fn confirmation_labels_are_limited_to_thirty() {
        let confirmation = ConfirmationSpec {
            held: false,
            id: "c1".into(),
            thread_id: "t1".into(),
            title: None,
            message: "Drop the table?".into(),
            accept: Some("x".repeat(31)),
            decline: None,
            accept_always: None,
            comment: false,
            timeout_s: None,
            attachment: None,
        };
        assert_eq!(
            validate_confirmation(&confirmation).unwrap_err().field,
            "confirmation.accept"
        );
        let always = ConfirmationSpec {
            accept: None,
            accept_always: Some("x".repeat(61)),
            ..confirmation
        };
        assert_eq!(
            validate_confirmation(&always).unwrap_err().field,
            "confirmation.accept_always"
        );
    }

    #[test]
    fn response_may_only_name_existing_items_and_options() {
        let spec = batch(vec![choice_item("q", 2)]);
        let unknown_item = ClarificationResponse {
            answers: vec![ItemAnswer {
                item_id: "nope".into(),
                ..Default::default()
            }],
            general: None,
        };
        assert_eq!(
            validate_response(&spec, &unknown_item).unwrap_err().field,
            "answers[0].item_id"
        );
        let unknown_option = ClarificationResponse {
            answers: vec![ItemAnswer {
                item_id: "q".into(),
                selected: vec!["o9".into()],
                ..Default::default()
            }],
            general: None,
        };
        assert_eq!(
            validate_response(&spec, &unknown_option).unwrap_err().field,
            "answers[0].selected"
        );
        let good = ClarificationResponse {
            answers: vec![ItemAnswer {
                item_id: "q".into(),
                selected: vec!["o1".into()],
                ..Default::default()
            }],
            general: None,
        };
        assert!(validate_response(&spec, &good).is_ok());
    }

    #[test]
    fn yes_no_takes_only_yes_or_no() {
        let mut item = choice_item("q", 0);
        item.kind = AnswerKind::YesNo;
        let spec = batch(vec![item]);
        let maybe = ClarificationResponse {
            answers: vec![ItemAnswer {
                item_id: "q".into(),
                selected: vec!["maybe".into()],
                ..Default::default()
            }],
            general: None,
        };
        assert!(validate_response(&spec, &maybe).is_err());
        let yes = ClarificationResponse {
            answers: vec![ItemAnswer {
                item_id: "q".into(),
                selected: vec!["yes".into()],
                ..Default::default()
            }],
            general: None,
        };
        assert!(validate_response(&spec, &yes).is_ok());
    }

    #[test]
    fn a_batch_asked_now_holds_at_most_fifty_items_but_an_old_one_still_folds() {
        let items = |count: usize| {
            (0..count)
                .map(|i| choice_item(&format!("q{i}"), 2))
                .collect()
        };
        assert_eq!(validate_batch_size(&batch(items(50))), Ok(()));
        let error = validate_batch_size(&batch(items(51))).unwrap_err();
        assert_eq!(error.field, "batch.items");
        assert!(
            error.rule.contains("at most 50 items (got 51)"),
            "{}",
            error.rule
        );
        assert_eq!(validate_batch(&batch(items(51))), Ok(()));
    }
}
