//! The wire types the local API shares with its clients (`chatsurface ask`, the MCP server):
//! what a dialog answers, as JSON.
//!
//! The client side imports this module and nothing else of `api`, so the server's rules and
//! state can change without a client noticing. It must not touch the store, HTTP or the model's
//! rules; it only says how an answer is written and read.

use serde_json::{json, Value};

/// The body of the 200 answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DialogAnswer {
    /// The human chose these option ids.
    Chose(Vec<String>),
    /// The human chose these option ids and wrote their own answer too (a `custom` question
    /// that allows several answers).
    ChoseAndWrote {
        /// The option ids.
        options: Vec<String>,
        /// The text written.
        text: String,
    },
    /// The human wrote their own answer.
    Custom(String),
    /// The human accepted.
    Accepted,
    /// The human declined, perhaps with a comment.
    Declined(Option<String>),
    /// The timeout passed unanswered.
    Expired,
    /// The question was taken off the surface before an answer.
    Withdrawn,
}

impl DialogAnswer {
    /// The answer as the contract writes it: `{"answer":"chose","options":[…]}` (with
    /// `"text"` when the human also wrote their own answer),
    /// `{"answer":"custom","text":…}`, `{"answer":"accepted"}`, `{"answer":"declined"}` (with
    /// `"comment"` when there is one), `{"answer":"expired"}` or `{"answer":"withdrawn"}`.
    pub fn to_json(&self) -> Value {
        match self {
            DialogAnswer::Chose(options) => json!({"answer": "chose", "options": options}),
            DialogAnswer::ChoseAndWrote { options, text } => {
                json!({"answer": "chose", "options": options, "text": text})
            }
            DialogAnswer::Custom(text) => json!({"answer": "custom", "text": text}),
            DialogAnswer::Accepted => json!({"answer": "accepted"}),
            DialogAnswer::Declined(None) => json!({"answer": "declined"}),
            DialogAnswer::Declined(Some(comment)) => {
                json!({"answer": "declined", "comment": comment})
            }
            DialogAnswer::Expired => json!({"answer": "expired"}),
            DialogAnswer::Withdrawn => json!({"answer": "withdrawn"}),
        }
    }

    /// Reads an answer written by [`DialogAnswer::to_json`]; fields it does not know are
    /// ignored, a missing or mistyped one gives `None`.
    pub fn from_json(value: &Value) -> Option<DialogAnswer> {
        match value.get("answer")?.as_str()? {
            "chose" => {
                let options = value
                    .get("options")?
                    .as_array()?
                    .iter()
                    .map(|id| id.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()?;
                match value.get("text") {
                    None | Some(Value::Null) => Some(DialogAnswer::Chose(options)),
                    Some(text) => Some(DialogAnswer::ChoseAndWrote {
                        options,
                        text: text.as_str()?.to_owned(),
                    }),
                }
            }
            "custom" => Some(DialogAnswer::Custom(
                value.get("text")?.as_str()?.to_owned(),
            )),
            "accepted" => Some(DialogAnswer::Accepted),
            "declined" => match value.get("comment") {
                None | Some(Value::Null) => Some(DialogAnswer::Declined(None)),
                Some(comment) => Some(DialogAnswer::Declined(Some(comment.as_str()?.to_owned()))),
            },
            "expired" => Some(DialogAnswer::Expired),
            "withdrawn" => Some(DialogAnswer::Withdrawn),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_written_exactly_as_the_contract_says() {
        let cases = [
            (
                DialogAnswer::Chose(vec!["yes".into()]),
                json!({"answer": "chose", "options": ["yes"]}),
            ),
            (
                DialogAnswer::Custom("завтра".into()),
                json!({"answer": "custom", "text": "завтра"}),
            ),
            (DialogAnswer::Accepted, json!({"answer": "accepted"})),
            (DialogAnswer::Declined(None), json!({"answer": "declined"})),
            (
                DialogAnswer::Declined(Some("not now".into())),
                json!({"answer": "declined", "comment": "not now"}),
            ),
            (DialogAnswer::Expired, json!({"answer": "expired"})),
            (DialogAnswer::Withdrawn, json!({"answer": "withdrawn"})),
        ];
        for (answer, written) in cases {
            assert_eq!(answer.to_json(), written);
            assert_eq!(DialogAnswer::from_json(&written), Some(answer));
        }
    }

    #[test]
    fn malformed_answers_are_not_read() {
        for value in [
            json!({}),
            json!({"answer": "maybe"}),
            json!({"answer": 1}),
            json!({"answer": "chose"}),
            json!({"answer": "chose", "options": [1]}),
            json!({"answer": "custom"}),
            json!({"answer": "declined", "comment": 3}),
            json!(["chose"]),
        ] {
            assert_eq!(DialogAnswer::from_json(&value), None, "{value}");
        }
        assert_eq!(
            DialogAnswer::from_json(&json!({"answer": "declined", "comment": null, "x": 1})),
            Some(DialogAnswer::Declined(None))
        );
    }
}
