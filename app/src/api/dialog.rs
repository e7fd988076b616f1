//! The dialog contract of the local API: what `POST /v1/integrations/{slug}/dialogs` accepts
//! and what it answers.
//!
//! This module owns the request body's rules (which fields exist, their types, defaults and
//! how they combine), the translation of a request into model nodes (a choice is a batch with
//! one item, a two-button question is a confirmation) and the shape of the answer. The limits
//! themselves live in `chatsurface_model::validate`, so the API rejects the same things as the
//! log. It must not touch the store, the socket or the HTTP layer, nor the file system: an
//! attachment is checked for its form only, so that the answer cannot tell an integration
//! which paths exist on the operator's machine.

use crate::api::error::{ApiError, ErrorCode};
use crate::api::protocol::DialogAnswer;
use chatsurface_model::{
    limits, validate_batch, validate_confirmation, AnswerKind, BatchSpec, BatchStatus,
    ChoiceOption, ClarificationBatch, ClarificationItem, Confirmation, ConfirmationSpec,
    ConfirmationStatus, ValidationError,
};
use serde_json::{Map, Value};
use std::path::Path;
use std::time::Duration;

/// The id of the one item of a choice dialog's batch.
pub const CHOICE_ITEM_ID: &str = "choice";

/// The timeout of a dialog that names none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// The shortest timeout a dialog may ask for.
pub const MIN_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest timeout a dialog may ask for.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// The fields a request body may hold; any other is a typo and rejected.
const KNOWN_FIELDS: [&str; 10] = [
    "message",
    "title",
    "options",
    "multiple",
    "custom",
    "accept",
    "decline",
    "comment",
    "timeout",
    "attachment",
];

/// A 400 `invalid` for a rule this module checks itself.
fn invalid(field: &str, rule: impl Into<String>) -> ApiError {
    ApiError::invalid(ValidationError {
        field: field.to_owned(),
        rule: rule.into(),
    })
}

/// A 400 `bad_json`: the body cannot be read as a JSON object.
fn bad_json(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::BadJson, message)
}

/// What a dialog asks, as model nodes.
#[derive(Clone, Debug, PartialEq)]
pub enum DialogQuestion {
    /// A choice among options and/or free text: a batch with one choice item.
    Choice(BatchSpec),
    /// A two-button question.
    Confirmation(ConfirmationSpec),
}

/// A checked dialog request.
#[derive(Clone, Debug, PartialEq)]
pub struct DialogRequest {
    /// What is asked.
    pub question: DialogQuestion,
    /// How long the question waits for an answer before it expires.
    pub timeout: Duration,
}

/// Parses and checks a request body.
///
/// `id` becomes the batch or confirmation id and `thread_id` its thread. A choice dialog is a
/// batch with one choice item whose id is [`CHOICE_ITEM_ID`]; the title defaults to the slug
/// (cut to the title limit). Both specs carry the timeout in seconds, so the model records
/// when the question expires.
pub fn parse_dialog(
    slug: &str,
    body: &[u8],
    id: &str,
    thread_id: &str,
) -> Result<DialogRequest, ApiError> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|error| bad_json(format!("the body is not JSON: {error}")))?;
    let Value::Object(fields) = value else {
        return Err(bad_json("the body must be a JSON object"));
    };
    if let Some(unknown) = fields
        .keys()
        .find(|key| !KNOWN_FIELDS.contains(&key.as_str()))
    {
        return Err(invalid(
            unknown,
            format!(
                "is not a field of a dialog (known: {})",
                KNOWN_FIELDS.join(", ")
            ),
        ));
    }
    let message =
        string_field(&fields, "message")?.ok_or_else(|| invalid("message", "is required"))?;
    let title = string_field(&fields, "title")?
        .unwrap_or_else(|| slug.chars().take(limits::TITLE_CHARS).collect());
    let options = options_field(&fields)?;
    let multiple = bool_field(&fields, "multiple")?;
    let custom = bool_field(&fields, "custom")?;
    let accept = string_field(&fields, "accept")?;
    let decline = string_field(&fields, "decline")?;
    let comment = bool_field(&fields, "comment")?;
    let timeout = parse_timeout(fields.get("timeout"))?;
    let attachment = string_field(&fields, "attachment")?;
    let timeout_s = Some(timeout.as_secs_f64());

    let question = if options.is_some() || custom {
        for (name, label) in [("accept", &accept), ("decline", &decline)] {
            if label.is_some() {
                return Err(invalid(
                    name,
                    "belongs to a confirmation; a dialog with options or custom is a choice",
                ));
            }
        }
        if comment {
            return Err(invalid(
                "comment",
                "belongs to a confirmation; a dialog with options or custom is a choice",
            ));
        }
        let batch = BatchSpec {
            held: false,
            id: id.into(),
            thread_id: thread_id.into(),
            title: Some(title),
            items: vec![ClarificationItem {
                id: CHOICE_ITEM_ID.into(),
                prompt: message,
                header: None,
                kind: AnswerKind::Choice,
                options: options.unwrap_or_default(),
                multiple,
                custom,
                recommended: None,
            }],
            general_field: false,
            timeout_s,
            attachment: attachment.clone(),
        };
        validate_batch(&batch).map_err(from_model)?;
        DialogQuestion::Choice(batch)
    } else {
        if multiple {
            return Err(invalid(
                "multiple",
                format!(
                    "needs at least {} options",
                    limits::MIN_OPTIONS_FOR_MULTIPLE
                ),
            ));
        }
        let confirmation = ConfirmationSpec {
            held: false,
            id: id.into(),
            thread_id: thread_id.into(),
            title: Some(title),
            message,
            accept,
            decline,
            accept_always: None,
            comment,
            timeout_s,
            attachment: attachment.clone(),
        };
        validate_confirmation(&confirmation).map_err(from_model)?;
        DialogQuestion::Confirmation(confirmation)
    };
    if let Some(path) = &attachment {
        check_attachment(path)?;
    }
    Ok(DialogRequest { question, timeout })
}

/// Maps a model rule broken by the built spec back to the request's field names.
fn from_model(error: ValidationError) -> ApiError {
    let inner = ["batch.items[0].", "batch.", "confirmation."]
        .iter()
        .find_map(|prefix| error.field.strip_prefix(prefix))
        .unwrap_or(&error.field);
    let field = match inner {
        "prompt" => "message".to_owned(),
        "timeout_s" => "timeout".to_owned(),
        "options[].id" => "options".to_owned(),
        other => other.to_owned(),
    };
    ApiError::invalid(ValidationError {
        field,
        rule: error.rule,
    })
}

/// An optional string field; `null` counts as absent.
fn string_field(fields: &Map<String, Value>, name: &str) -> Result<Option<String>, ApiError> {
    string_value(fields.get(name), name)
}

/// An optional string value, named `field` in errors; `null` counts as absent.
fn string_value(value: Option<&Value>, field: &str) -> Result<Option<String>, ApiError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(invalid(field, "must be a string")),
    }
}

/// An optional boolean field, false when absent or `null`.
fn bool_field(fields: &Map<String, Value>, name: &str) -> Result<bool, ApiError> {
    match fields.get(name) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(flag)) => Ok(*flag),
        Some(_) => Err(invalid(name, "must be true or false")),
    }
}

/// The `options` field: absent, or an array of strings and `{id, label, detail?}` objects.
fn options_field(fields: &Map<String, Value>) -> Result<Option<Vec<ChoiceOption>>, ApiError> {
    let list = match fields.get("options") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(list)) => list,
        Some(_) => {
            return Err(invalid(
                "options",
                "must be an array of strings or {id, label, detail?} objects",
            ))
        }
    };
    list.iter()
        .enumerate()
        .map(|(index, option)| parse_option(index, option))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// One option: a string is its own id and label.
fn parse_option(index: usize, option: &Value) -> Result<ChoiceOption, ApiError> {
    let field = |name: &str| format!("options[{index}].{name}");
    match option {
        Value::String(text) => Ok(ChoiceOption {
            id: text.as_str().into(),
            label: text.clone(),
            detail: None,
        }),
        Value::Object(fields) => {
            if let Some(unknown) = fields
                .keys()
                .find(|key| !["id", "label", "detail"].contains(&key.as_str()))
            {
                return Err(invalid(
                    &field(unknown),
                    "is not a field of an option (known: id, label, detail)",
                ));
            }
            let required = |name: &str| {
                string_value(fields.get(name), &field(name))?
                    .ok_or_else(|| invalid(&field(name), "is required"))
            };
            let id = required("id")?;
            let label = required("label")?;
            let detail = string_value(fields.get("detail"), &field("detail"))?;
            Ok(ChoiceOption {
                id: id.as_str().into(),
                label,
                detail,
            })
        }
        _ => Err(invalid(
            &format!("options[{index}]"),
            "must be a string or an {id, label, detail?} object",
        )),
    }
}

/// The attachment must be an absolute path. Whether it exists is not asked: a different
/// answer for a missing file would let any integration probe the operator's file system.
/// The window says so when the human tries to open one that is not there.
fn check_attachment(path: &str) -> Result<(), ApiError> {
    if !Path::new(path).is_absolute() {
        return Err(invalid("attachment", "must be an absolute path"));
    }
    Ok(())
}

/// Reads the `timeout` field: a number of seconds, or a string such as `"90s"`, `"10m"`,
/// `"2h"` (a string holding a plain number is seconds too). Absent or `null` gives
/// [`DEFAULT_TIMEOUT`]; anything outside [`MIN_TIMEOUT`]..=[`MAX_TIMEOUT`] is rejected.
pub fn parse_timeout(value: Option<&Value>) -> Result<Duration, ApiError> {
    const FORMS: &str = "use seconds, or a string like \"90s\", \"10m\" or \"2h\"";
    let seconds = match value {
        None | Some(Value::Null) => return Ok(DEFAULT_TIMEOUT),
        Some(Value::Number(number)) => number.as_f64(),
        Some(Value::String(text)) => match text.trim().parse::<f64>() {
            Ok(seconds) => Some(seconds),
            Err(_) => humantime::parse_duration(text.trim())
                .map(|duration| duration.as_secs_f64())
                .ok(),
        },
        Some(_) => None,
    };
    let Some(seconds) = seconds.filter(|seconds| seconds.is_finite()) else {
        return Err(invalid("timeout", format!("is not a duration ({FORMS})")));
    };
    if seconds < MIN_TIMEOUT.as_secs_f64() {
        return Err(invalid(
            "timeout",
            format!("must be at least {} seconds", MIN_TIMEOUT.as_secs()),
        ));
    }
    if seconds > MAX_TIMEOUT.as_secs_f64() {
        return Err(invalid("timeout", "must be at most 24 hours"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// The answer a settled choice dialog's batch gives, or `None` while it waits.
///
/// Selected option ids give [`DialogAnswer::Chose`]; free text with no selection gives
/// [`DialogAnswer::Custom`], and with a selection [`DialogAnswer::ChoseAndWrote`]; a skipped
/// or empty answer gives `Chose` with no ids.
pub fn answer_of_batch(batch: &ClarificationBatch) -> Option<DialogAnswer> {
    match batch.status {
        BatchStatus::Open => None,
        BatchStatus::Expired => Some(DialogAnswer::Expired),
        BatchStatus::Withdrawn => Some(DialogAnswer::Withdrawn),
        BatchStatus::Answered => {
            let answer = batch
                .response
                .as_ref()
                .and_then(|response| response.answer(&CHOICE_ITEM_ID.into()));
            let selected: Vec<String> = answer
                .map(|answer| answer.selected.iter().map(|id| id.0.clone()).collect())
                .unwrap_or_default();
            match answer.and_then(|answer| answer.text.clone()) {
                Some(text) if selected.is_empty() => Some(DialogAnswer::Custom(text)),
                Some(text) => Some(DialogAnswer::ChoseAndWrote {
                    options: selected,
                    text,
                }),
                None => Some(DialogAnswer::Chose(selected)),
            }
        }
    }
}

/// The answer a settled confirmation gives, or `None` while it waits.
pub fn answer_of_confirmation(confirmation: &Confirmation) -> Option<DialogAnswer> {
    match confirmation.status {
        ConfirmationStatus::Pending => None,
        ConfirmationStatus::Accepted => Some(DialogAnswer::Accepted),
        ConfirmationStatus::Declined => {
            Some(DialogAnswer::Declined(confirmation.outcome_comment.clone()))
        }
        ConfirmationStatus::Expired => Some(DialogAnswer::Expired),
        ConfirmationStatus::Withdrawn => Some(DialogAnswer::Withdrawn),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chatsurface_model::{ClarificationResponse, ItemAnswer};
    use serde_json::json;

    fn parse(body: Value) -> Result<DialogRequest, ApiError> {
        parse_dialog("deploy", body.to_string().as_bytes(), "d1", "t1")
    }

    fn field_of(body: Value) -> String {
        let error = parse(body).unwrap_err();
        assert_eq!(error.code, ErrorCode::Invalid, "{error:?}");
        error.field.unwrap()
    }

    fn choice(request: &DialogRequest) -> &BatchSpec {
        match &request.question {
            DialogQuestion::Choice(batch) => batch,
            other => panic!("not a choice: {other:?}"),
        }
    }

    fn confirmation(request: &DialogRequest) -> &ConfirmationSpec {
        match &request.question {
            DialogQuestion::Confirmation(confirmation) => confirmation,
            other => panic!("not a confirmation: {other:?}"),
        }
    }

    #[test]
    fn options_make_a_batch_with_one_choice_item() {
        let request = parse(json!({
            "message": "Выкатить в прод?",
            "title": "Деплой",
            "options": ["yes", {"id": "no", "label": "Отмена", "detail": "ничего не делать"}],
            "multiple": false,
            "custom": false,
            "timeout": "10m"
        }))
        .unwrap();
        assert_eq!(request.timeout, Duration::from_secs(600));
        let batch = choice(&request);
        assert_eq!(batch.id.as_str(), "d1");
        assert_eq!(batch.thread_id.as_str(), "t1");
        assert_eq!(batch.title.as_deref(), Some("Деплой"));
        assert_eq!(batch.timeout_s, Some(600.0));
        assert_eq!(batch.attachment, None);
        let [item] = batch.items.as_slice() else {
            panic!("one item expected: {:?}", batch.items);
        };
        assert_eq!(item.id.as_str(), CHOICE_ITEM_ID);
        assert_eq!(item.prompt, "Выкатить в прод?");
        assert_eq!(item.kind, AnswerKind::Choice);
        assert_eq!(
            item.options,
            vec![
                ChoiceOption {
                    id: "yes".into(),
                    label: "yes".into(),
                    detail: None
                },
                ChoiceOption {
                    id: "no".into(),
                    label: "Отмена".into(),
                    detail: Some("ничего не делать".into())
                },
            ]
        );
        assert!(!item.multiple && !item.custom);
    }

    #[test]
    fn custom_alone_is_a_choice_and_multiple_is_kept() {
        let request = parse(json!({"message": "Where?", "custom": true})).unwrap();
        let item = &choice(&request).items[0];
        assert!(item.custom && item.options.is_empty());
        let request =
            parse(json!({"message": "Which?", "options": ["a", "b"], "multiple": true})).unwrap();
        assert!(choice(&request).items[0].multiple);
    }

    #[test]
    fn no_options_make_a_confirmation_with_model_defaults() {
        let request = parse(json!({
            "message": "Удалить ветку feature/x?",
            "accept": "Удалить",
            "decline": "Оставить",
            "comment": true
        }))
        .unwrap();
        let spec = confirmation(&request);
        assert_eq!((spec.id.as_str(), spec.thread_id.as_str()), ("d1", "t1"));
        assert_eq!(spec.accept.as_deref(), Some("Удалить"));
        assert_eq!(spec.decline.as_deref(), Some("Оставить"));
        assert!(spec.comment);
        assert_eq!(
            spec.title.as_deref(),
            Some("deploy"),
            "the title defaults to the slug"
        );
        assert_eq!(spec.timeout_s, Some(600.0));
        assert_eq!(request.timeout, DEFAULT_TIMEOUT);

        let plain = parse(json!({"message": "Go?", "title": null, "accept": null})).unwrap();
        let spec = confirmation(&plain);
        assert_eq!(
            (spec.accept.as_deref(), spec.decline.as_deref()),
            (None, None)
        );
        assert_eq!((spec.accept_label(), spec.decline_label()), ("Да", "Нет"));
        assert!(!spec.comment);
    }

    #[test]
    fn a_long_slug_is_cut_to_the_title_limit() {
        let slug = "s".repeat(80);
        let request = parse_dialog(&slug, br#"{"message":"Go?"}"#, "d1", "t1").unwrap();
        let title = confirmation(&request).title.clone().unwrap();
        assert_eq!(title.chars().count(), limits::TITLE_CHARS);
    }

    #[test]
    fn a_body_that_is_not_a_json_object_is_bad_json() {
        for body in [&b"{"[..], b"", b"[1]", b"\"message\"", b"null"] {
            let error = parse_dialog("deploy", body, "d1", "t1").unwrap_err();
            assert_eq!(error.code, ErrorCode::BadJson);
            assert_eq!(error.field, None);
        }
    }

    #[test]
    fn an_unknown_field_is_named_so_typos_surface() {
        let error = parse(json!({"message": "Go?", "optons": ["a"]})).unwrap_err();
        assert_eq!(error.field.as_deref(), Some("optons"));
        assert!(error.message.contains("options"), "{}", error.message);
        assert_eq!(
            field_of(json!({"message": "Go?", "options": [{"id": "a", "lable": "A"}]})),
            "options[0].lable"
        );
    }

    #[test]
    fn message_is_required_and_limited_in_characters() {
        assert_eq!(field_of(json!({"title": "T"})), "message");
        assert_eq!(field_of(json!({"message": null})), "message");
        assert_eq!(field_of(json!({"message": " "})), "message");
        assert_eq!(field_of(json!({"message": 5})), "message");
        assert!(parse(json!({"message": "ж".repeat(600)})).is_ok());
        assert_eq!(field_of(json!({"message": "ж".repeat(601)})), "message");
        assert_eq!(
            field_of(json!({"message": "ж".repeat(601), "options": ["a"]})),
            "message",
            "a choice's prompt is reported as the request's message"
        );
    }

    #[test]
    fn title_and_button_labels_have_their_limits() {
        assert_eq!(
            field_of(json!({"message": "Go?", "title": "t".repeat(61)})),
            "title"
        );
        assert_eq!(
            field_of(json!({"message": "Go?", "title": "t".repeat(61), "custom": true})),
            "title"
        );
        assert!(parse(json!({"message": "Go?", "accept": "a".repeat(30)})).is_ok());
        assert_eq!(
            field_of(json!({"message": "Go?", "accept": "a".repeat(31)})),
            "accept"
        );
        assert_eq!(
            field_of(json!({"message": "Go?", "decline": "d".repeat(31)})),
            "decline"
        );
        assert_eq!(field_of(json!({"message": "Go?", "accept": ""})), "accept");
    }

    #[test]
    fn options_are_limited_to_nine_with_unique_ids() {
        let nine: Vec<String> = (0..9).map(|n| format!("o{n}")).collect();
        assert!(parse(json!({"message": "Which?", "options": nine})).is_ok());
        let ten: Vec<String> = (0..10).map(|n| format!("o{n}")).collect();
        let error = parse(json!({"message": "Which?", "options": ten})).unwrap_err();
        assert_eq!(error.field.as_deref(), Some("options"));
        assert!(error.message.contains("at most 9"), "{}", error.message);
        assert_eq!(
            field_of(json!({"message": "Which?", "options": ["a", "a"]})),
            "options"
        );
        assert_eq!(
            field_of(json!({"message": "Which?", "options": []})),
            "options",
            "an empty list is a choice with nothing to choose"
        );
    }

    #[test]
    fn each_option_is_a_string_or_an_object_with_id_and_label() {
        assert_eq!(
            field_of(json!({"message": "Which?", "options": "a"})),
            "options"
        );
        assert_eq!(
            field_of(json!({"message": "Which?", "options": [1]})),
            "options[0]"
        );
        assert_eq!(
            field_of(json!({"message": "Which?", "options": ["a", {"id": "b"}]})),
            "options[1].label"
        );
        assert_eq!(
            field_of(json!({"message": "Which?", "options": [{"label": "B"}]})),
            "options[0].id"
        );
        assert_eq!(
            field_of(json!({"message": "Which?", "options": [{"id": 2, "label": "B"}]})),
            "options[0].id"
        );
        assert_eq!(
            field_of(
                json!({"message": "Which?", "options": [{"id": "b", "label": "B", "detail": 3}]})
            ),
            "options[0].detail"
        );
        assert_eq!(
            field_of(json!({"message": "Which?", "options": [{"id": "b", "label": ""}]})),
            "options[0].label"
        );
    }

    #[test]
    fn multiple_needs_two_options() {
        assert_eq!(
            field_of(json!({"message": "Which?", "options": ["a"], "multiple": true})),
            "multiple"
        );
        assert_eq!(
            field_of(json!({"message": "Go?", "multiple": true})),
            "multiple"
        );
    }

    #[test]
    fn choice_fields_and_confirmation_fields_do_not_mix() {
        assert_eq!(
            field_of(json!({"message": "Go?", "options": ["a"], "accept": "Yes"})),
            "accept"
        );
        assert_eq!(
            field_of(json!({"message": "Go?", "custom": true, "decline": "No"})),
            "decline"
        );
        assert_eq!(
            field_of(json!({"message": "Go?", "options": ["a"], "comment": true})),
            "comment"
        );
    }

    #[test]
    fn fields_of_the_wrong_type_are_named() {
        assert_eq!(
            field_of(json!({"message": "Go?", "multiple": "yes"})),
            "multiple"
        );
        assert_eq!(field_of(json!({"message": "Go?", "custom": 1})), "custom");
        assert_eq!(
            field_of(json!({"message": "Go?", "comment": "no"})),
            "comment"
        );
        assert_eq!(field_of(json!({"message": "Go?", "title": 5})), "title");
        assert_eq!(
            field_of(json!({"message": "Go?", "attachment": ["/"]})),
            "attachment"
        );
        assert_eq!(
            field_of(json!({"message": "Go?", "timeout": "soon"})),
            "timeout"
        );
    }

    #[test]
    fn an_attachment_must_be_absolute_and_its_existence_is_not_told() {
        let existing = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        let request = parse(json!({"message": "Go?", "attachment": existing})).unwrap();
        assert_eq!(confirmation(&request).attachment.as_deref(), Some(existing));
        let request =
            parse(json!({"message": "Go?", "options": ["a"], "attachment": existing})).unwrap();
        assert_eq!(choice(&request).attachment.as_deref(), Some(existing));

        assert_eq!(
            field_of(json!({"message": "Go?", "attachment": "Cargo.toml"})),
            "attachment"
        );
        assert_eq!(
            field_of(json!({"message": "Go?", "options": ["a"], "attachment": "Cargo.toml"})),
            "attachment"
        );
        // A missing file is accepted as an existing one is: no oracle for what exists.
        let missing = concat!(env!("CARGO_MANIFEST_DIR"), "/no-such-file");
        let request = parse(json!({"message": "Go?", "attachment": missing})).unwrap();
        assert_eq!(confirmation(&request).attachment.as_deref(), Some(missing));
    }

    #[test]
    fn timeouts_take_seconds_or_duration_strings() {
        let secs = |value: Value| parse_timeout(Some(&value)).map(|timeout| timeout.as_secs_f64());
        assert_eq!(parse_timeout(None), Ok(DEFAULT_TIMEOUT));
        assert_eq!(secs(Value::Null), Ok(600.0));
        assert_eq!(secs(json!(90)), Ok(90.0));
        assert_eq!(secs(json!(7.5)), Ok(7.5));
        assert_eq!(secs(json!("90s")), Ok(90.0));
        assert_eq!(secs(json!("10m")), Ok(600.0));
        assert_eq!(secs(json!("2h")), Ok(7200.0));
        assert_eq!(secs(json!("1h 30m")), Ok(5400.0));
        assert_eq!(secs(json!("600")), Ok(600.0));
        assert_eq!(secs(json!(" 45s ")), Ok(45.0));
    }

    #[test]
    fn timeouts_run_from_five_seconds_to_a_day() {
        let field = |value: Value| parse_timeout(Some(&value)).unwrap_err().field;
        assert_eq!(parse_timeout(Some(&json!(5))), Ok(MIN_TIMEOUT));
        assert_eq!(parse_timeout(Some(&json!("24h"))), Ok(MAX_TIMEOUT));
        assert_eq!(parse_timeout(Some(&json!(86_400))), Ok(MAX_TIMEOUT));
        for bad in [
            json!(4.9),
            json!(0),
            json!(-1),
            json!("4s"),
            json!(86_401),
            json!("25h"),
            json!(1e300),
            json!("soon"),
            json!(""),
            json!(true),
            json!([60]),
        ] {
            assert_eq!(field(bad.clone()).as_deref(), Some("timeout"), "{bad}");
        }
        let error = parse_timeout(Some(&json!("2d"))).unwrap_err();
        assert!(error.message.contains("24 hours"), "{}", error.message);
    }

    fn batch(status: BatchStatus, answer: Option<ItemAnswer>) -> ClarificationBatch {
        let request =
            parse(json!({"message": "Which?", "options": ["a", "b"], "custom": true})).unwrap();
        ClarificationBatch {
            spec: choice(&request).clone(),
            status,
            response: answer.map(|answer| ClarificationResponse {
                answers: vec![answer],
                general: None,
            }),
            draft: None,
            opened_at: "2026-05-01T10:00:00Z".into(),
            revision: 1,
        }
    }

    fn item_answer(selected: &[&str], text: Option<&str>) -> ItemAnswer {
        ItemAnswer {
            item_id: CHOICE_ITEM_ID.into(),
            selected: selected.iter().map(|id| (*id).into()).collect(),
            text: text.map(str::to_owned),
            skipped: false,
        }
    }

    #[test]
    fn a_batch_answers_with_its_selection_or_its_custom_text() {
        assert_eq!(answer_of_batch(&batch(BatchStatus::Open, None)), None);
        assert_eq!(
            answer_of_batch(&batch(
                BatchStatus::Answered,
                Some(item_answer(&["a", "b"], None))
            )),
            Some(DialogAnswer::Chose(vec!["a".into(), "b".into()]))
        );
        assert_eq!(
            answer_of_batch(&batch(
                BatchStatus::Answered,
                Some(item_answer(&[], Some("c")))
            )),
            Some(DialogAnswer::Custom("c".into()))
        );
        assert_eq!(
            answer_of_batch(&batch(
                BatchStatus::Answered,
                Some(item_answer(&["a"], Some("c")))
            )),
            Some(DialogAnswer::ChoseAndWrote {
                options: vec!["a".into()],
                text: "c".into()
            }),
            "a selection and text are both the answer"
        );
        let both = DialogAnswer::ChoseAndWrote {
            options: vec!["a".into()],
            text: "c".into(),
        };
        assert_eq!(
            both.to_json(),
            serde_json::json!({"answer": "chose", "options": ["a"], "text": "c"})
        );
        assert_eq!(DialogAnswer::from_json(&both.to_json()), Some(both));
        let skipped = ItemAnswer {
            skipped: true,
            ..item_answer(&[], None)
        };
        assert_eq!(
            answer_of_batch(&batch(BatchStatus::Answered, Some(skipped))),
            Some(DialogAnswer::Chose(Vec::new()))
        );
        assert_eq!(
            answer_of_batch(&batch(BatchStatus::Expired, None)),
            Some(DialogAnswer::Expired)
        );
        assert_eq!(
            answer_of_batch(&batch(BatchStatus::Withdrawn, None)),
            Some(DialogAnswer::Withdrawn)
        );
    }

    #[test]
    fn a_confirmation_answers_with_its_status() {
        let request = parse(json!({"message": "Go?", "comment": true})).unwrap();
        let node = |status, comment: Option<&str>| Confirmation {
            spec: confirmation(&request).clone(),
            status,
            outcome_comment: comment.map(str::to_owned),
            accepted_always: false,
            opened_at: "2026-05-01T10:00:00Z".into(),
            revision: 1,
        };
        assert_eq!(
            answer_of_confirmation(&node(ConfirmationStatus::Pending, None)),
            None
        );
        assert_eq!(
            answer_of_confirmation(&node(ConfirmationStatus::Accepted, None)),
            Some(DialogAnswer::Accepted)
        );
        assert_eq!(
            answer_of_confirmation(&node(ConfirmationStatus::Declined, Some("later"))),
            Some(DialogAnswer::Declined(Some("later".into())))
        );
        assert_eq!(
            answer_of_confirmation(&node(ConfirmationStatus::Declined, None)),
            Some(DialogAnswer::Declined(None))
        );
        assert_eq!(
            answer_of_confirmation(&node(ConfirmationStatus::Expired, None)),
            Some(DialogAnswer::Expired)
        );
        assert_eq!(
            answer_of_confirmation(&node(ConfirmationStatus::Withdrawn, None)),
            Some(DialogAnswer::Withdrawn)
        );
    }
}
