//! The part of Codex's app-server protocol the bridge speaks: JSON-RPC 2.0 without its
//! `"jsonrpc"` header, one message per line on stdio, and the few message types the bridge
//! reads and writes.
//!
//! The field names are those of the JSON Schema that the pinned Codex generates
//! (`codex app-server generate-json-schema --experimental`), kept in `schema/` beside this
//! module; the tests below check every name this module reads or writes against it, and
//! `tests/agents/codex/schema.sh` checks that the kept schema is what the pinned Codex
//! generates. Fields the bridge does not use are ignored, so a newer Codex's additions do not
//! break it. This module does no I/O.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// One message from the app-server.
#[derive(Clone, Debug, PartialEq)]
pub enum Incoming {
    /// The answer to one of the bridge's requests.
    Response {
        /// The id the bridge gave its request.
        id: Value,
        /// Its result, or the error's message.
        result: Result<Value, String>,
    },
    /// A request the app-server makes of its client (an approval, a question).
    Request {
        /// The id the answer must carry.
        id: Value,
        /// What it asks.
        method: String,
        /// Its parameters.
        params: Value,
    },
    /// News that wants no answer.
    Notification {
        /// What happened.
        method: String,
        /// Its parameters.
        params: Value,
    },
}

/// The shape every JSON-RPC message has, before it is told apart.
#[derive(Deserialize)]
struct Envelope {
    id: Option<Value>,
    method: Option<String>,
    #[serde(default)]
    params: Value,
    result: Option<Value>,
    error: Option<RpcError>,
}

#[derive(Deserialize)]
struct RpcError {
    #[serde(default)]
    code: i64,
    #[serde(default)]
    message: String,
}

impl Incoming {
    /// Reads one line the app-server wrote.
    pub fn parse(line: &str) -> Result<Incoming, String> {
        let envelope: Envelope = serde_json::from_str(line)
            .map_err(|error| format!("not a JSON-RPC message: {error}"))?;
        match (envelope.id, envelope.method) {
            (Some(id), Some(method)) => Ok(Incoming::Request {
                id,
                method,
                params: envelope.params,
            }),
            (None, Some(method)) => Ok(Incoming::Notification {
                method,
                params: envelope.params,
            }),
            (Some(id), None) => {
                let result = match (envelope.result, envelope.error) {
                    (_, Some(error)) => Err(format!("{} (code {})", error.message, error.code)),
                    (Some(result), None) => Ok(result),
                    (None, None) => Ok(Value::Null),
                };
                Ok(Incoming::Response { id, result })
            }
            (None, None) => Err("neither a method nor an id".to_owned()),
        }
    }
}

/// A request line: `method` with `params`, answered under `id`.
pub fn request(id: u64, method: &str, params: Value) -> String {
    json!({"id": id, "method": method, "params": params}).to_string()
}

/// A notification line.
pub fn notification(method: &str) -> String {
    json!({"method": method}).to_string()
}

/// The answer line to the app-server's request `id`.
pub fn response(id: &Value, result: Value) -> String {
    json!({"id": id, "result": result}).to_string()
}

/// The error line for a request of the app-server's the bridge does not answer.
pub fn not_answered(id: &Value, method: &str) -> String {
    json!({"id": id, "error": {"code": -32601, "message": format!("chatsurface does not answer {method}")}})
        .to_string()
}

/// `initialize`'s parameters: who the client is, and that it takes the experimental API
/// (`item/tool/requestUserInput` and a turn's `collaborationMode` are experimental).
pub fn initialize_params() -> Value {
    json!({
        "clientInfo": {"name": "chatsurface", "title": "chatsurface", "version": env!("CARGO_PKG_VERSION")},
        "capabilities": {"experimentalApi": true},
    })
}

/// `thread/start`'s parameters.
pub fn thread_start_params(cwd: &str, approval_policy: &str, sandbox: &str) -> Value {
    json!({"cwd": cwd, "approvalPolicy": approval_policy, "sandbox": sandbox})
}

/// `turn/start`'s parameters: `text` as the human's message; in plan mode, the mode with the
/// thread's model (the mode's settings require one).
pub fn turn_start_params(thread_id: &str, text: &str, plan_with_model: Option<&str>) -> Value {
    let mut params = json!({"threadId": thread_id, "input": [text_input(text)]});
    if let Some(model) = plan_with_model {
        params["collaborationMode"] = json!({"mode": "plan", "settings": {"model": model}});
    }
    params
}

/// `turn/steer`'s parameters: `text` added to the turn in flight.
pub fn turn_steer_params(thread_id: &str, turn_id: &str, text: &str) -> Value {
    json!({"threadId": thread_id, "expectedTurnId": turn_id, "input": [text_input(text)]})
}

fn text_input(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// `item/commandExecution/requestApproval`'s parameters.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandApproval {
    /// The thread asking.
    pub thread_id: String,
    /// The turn it asks in.
    pub turn_id: String,
    /// The command's item.
    pub item_id: String,
    /// The command line.
    #[serde(default)]
    pub command: Option<String>,
    /// Where it runs.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Why it asks (a sandbox escape, more access).
    #[serde(default)]
    pub reason: Option<String>,
    /// The answers Codex takes for this request: strings (`accept`, `acceptForSession`,
    /// `decline`, `cancel`) and objects (`{"acceptWithExecpolicyAmendment": …}`).
    #[serde(default)]
    pub available_decisions: Option<Vec<Value>>,
}

/// `item/fileChange/requestApproval`'s parameters (the changes themselves come with the
/// item's `item/started`).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileChangeApproval {
    /// The thread asking.
    pub thread_id: String,
    /// The turn it asks in.
    pub turn_id: String,
    /// The file change's item.
    pub item_id: String,
    /// Why it asks.
    #[serde(default)]
    pub reason: Option<String>,
    /// A folder it asks to write under for the rest of the session.
    #[serde(default)]
    pub grant_root: Option<String>,
}

/// `item/tool/requestUserInput`'s parameters.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UserInputRequest {
    /// The thread asking.
    pub thread_id: String,
    /// The turn it asks in.
    pub turn_id: String,
    /// The tool call's item.
    pub item_id: String,
    /// The questions, in order.
    pub questions: Vec<UserInputQuestion>,
}

/// One question of a `requestUserInput`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UserInputQuestion {
    /// Its id: the key of its answer.
    pub id: String,
    /// A short heading.
    #[serde(default)]
    pub header: String,
    /// What it asks.
    pub question: String,
    /// Whether an answer of the human's own words is offered beside the options.
    #[serde(default)]
    pub is_other: bool,
    /// The options, if any.
    #[serde(default)]
    pub options: Option<Vec<UserInputOption>>,
}

/// One option of a question.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct UserInputOption {
    /// What the human picks (and what the answer carries).
    pub label: String,
    /// What it means.
    #[serde(default)]
    pub description: String,
}

/// `serverRequest/resolved`'s parameters: a request of the app-server's settled elsewhere
/// (another client, the turn interrupted).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestResolved {
    /// The thread it was asked in.
    pub thread_id: String,
    /// The request's id.
    pub request_id: Value,
}

/// `item/started`'s and `item/completed`'s parameters.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemEvent {
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// The item (a `ThreadItem`, told apart by its `type`).
    pub item: Value,
}

/// `turn/completed`'s parameters.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnCompleted {
    /// The thread.
    pub thread_id: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The schema files kept beside this module, by the path they have there.
    fn schema(path: &str) -> Value {
        let text = match path {
            "CommandExecutionRequestApprovalParams" => {
                include_str!("schema/CommandExecutionRequestApprovalParams.json")
            }
            "FileChangeRequestApprovalParams" => {
                include_str!("schema/FileChangeRequestApprovalParams.json")
            }
            "ToolRequestUserInputParams" => include_str!("schema/ToolRequestUserInputParams.json"),
            "v2/ServerRequestResolvedNotification" => {
                include_str!("schema/v2/ServerRequestResolvedNotification.json")
            }
            "v2/ItemStartedNotification" => include_str!("schema/v2/ItemStartedNotification.json"),
            "v2/ItemCompletedNotification" => {
                include_str!("schema/v2/ItemCompletedNotification.json")
            }
            "v2/TurnCompletedNotification" => {
                include_str!("schema/v2/TurnCompletedNotification.json")
            }
            "v2/ThreadStartParams" => include_str!("schema/v2/ThreadStartParams.json"),
            "v2/TurnStartParams" => include_str!("schema/v2/TurnStartParams.json"),
            "v2/TurnSteerParams" => include_str!("schema/v2/TurnSteerParams.json"),
            "v1/InitializeParams" => include_str!("schema/v1/InitializeParams.json"),
            other => panic!("no schema file {other}"),
        };
        serde_json::from_str(text).unwrap()
    }

    /// The property names of the schema's root (`definition` None) or of one definition.
    fn properties(schema: &Value, definition: Option<&str>) -> BTreeSet<String> {
        let object = match definition {
            Some(name) => &schema["definitions"][name],
            None => schema,
        };
        object["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("{definition:?} has no properties"))
            .keys()
            .cloned()
            .collect()
    }

    fn keys(value: &Value) -> BTreeSet<String> {
        value.as_object().unwrap().keys().cloned().collect()
    }

    fn assert_named_in(what: &str, used: &BTreeSet<String>, known: &BTreeSet<String>) {
        let unknown: Vec<_> = used.difference(known).collect();
        assert!(
            unknown.is_empty(),
            "{what}: {unknown:?} are not in the schema"
        );
    }

    #[test]
    fn every_field_read_is_named_so_in_codex_schema() {
        let read = [
            (
                "CommandExecutionRequestApprovalParams",
                None,
                serde_json::to_value(CommandApproval::default()).unwrap(),
            ),
            (
                "FileChangeRequestApprovalParams",
                None,
                serde_json::to_value(FileChangeApproval::default()).unwrap(),
            ),
            (
                "ToolRequestUserInputParams",
                None,
                serde_json::to_value(UserInputRequest::default()).unwrap(),
            ),
            (
                "ToolRequestUserInputParams",
                Some("ToolRequestUserInputQuestion"),
                serde_json::to_value(UserInputQuestion::default()).unwrap(),
            ),
            (
                "ToolRequestUserInputParams",
                Some("ToolRequestUserInputOption"),
                serde_json::to_value(UserInputOption::default()).unwrap(),
            ),
            (
                "v2/ServerRequestResolvedNotification",
                None,
                serde_json::to_value(RequestResolved::default()).unwrap(),
            ),
            (
                "v2/ItemStartedNotification",
                None,
                serde_json::to_value(ItemEvent::default()).unwrap(),
            ),
            (
                "v2/ItemCompletedNotification",
                None,
                serde_json::to_value(ItemEvent::default()).unwrap(),
            ),
            (
                "v2/TurnCompletedNotification",
                None,
                serde_json::to_value(TurnCompleted::default()).unwrap(),
            ),
        ];
        for (file, definition, value) in read {
            let known = properties(&schema(file), definition);
            assert_named_in(&format!("{file} {definition:?}"), &keys(&value), &known);
        }
    }

    #[test]
    fn every_field_written_is_named_so_in_codex_schema() {
        let initialize = initialize_params();
        let v1 = schema("v1/InitializeParams");
        assert_named_in("initialize", &keys(&initialize), &properties(&v1, None));
        assert_named_in(
            "initialize.clientInfo",
            &keys(&initialize["clientInfo"]),
            &properties(&v1, Some("ClientInfo")),
        );
        assert_named_in(
            "initialize.capabilities",
            &keys(&initialize["capabilities"]),
            &properties(&v1, Some("InitializeCapabilities")),
        );
        let thread = schema("v2/ThreadStartParams");
        assert_named_in(
            "thread/start",
            &keys(&thread_start_params("/p", "untrusted", "workspace-write")),
            &properties(&thread, None),
        );
        let turn = schema("v2/TurnStartParams");
        let started = turn_start_params("t", "hello", Some("gpt"));
        assert_named_in("turn/start", &keys(&started), &properties(&turn, None));
        assert_named_in(
            "turn/start.collaborationMode",
            &keys(&started["collaborationMode"]),
            &properties(&turn, Some("CollaborationMode")),
        );
        assert_named_in(
            "turn/start.collaborationMode.settings",
            &keys(&started["collaborationMode"]["settings"]),
            &properties(&turn, Some("Settings")),
        );
        let steer = schema("v2/TurnSteerParams");
        assert_named_in(
            "turn/steer",
            &keys(&turn_steer_params("t", "u", "x")),
            &properties(&steer, None),
        );
        let text_variant = turn["definitions"]["UserInput"]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .find(|variant| variant["properties"]["type"]["enum"][0] == "text")
            .expect("a text variant of UserInput");
        assert_named_in(
            "turn/start.input[]",
            &keys(&started["input"][0]),
            &keys(&text_variant["properties"]),
        );
    }

    #[test]
    fn requests_notifications_and_responses_are_told_apart() {
        assert_eq!(
            Incoming::parse(r#"{"id":3,"method":"item/tool/requestUserInput","params":{"a":1}}"#),
            Ok(Incoming::Request {
                id: json!(3),
                method: "item/tool/requestUserInput".into(),
                params: json!({"a": 1}),
            })
        );
        assert_eq!(
            Incoming::parse(r#"{"method":"turn/completed","params":{}}"#),
            Ok(Incoming::Notification {
                method: "turn/completed".into(),
                params: json!({}),
            })
        );
        assert_eq!(
            Incoming::parse(r#"{"id":1,"result":{"thread":{}}}"#),
            Ok(Incoming::Response {
                id: json!(1),
                result: Ok(json!({"thread": {}})),
            })
        );
        assert_eq!(
            Incoming::parse(r#"{"id":1,"error":{"code":-32600,"message":"Not initialized"}}"#),
            Ok(Incoming::Response {
                id: json!(1),
                result: Err("Not initialized (code -32600)".into()),
            })
        );
        assert!(Incoming::parse("{}").is_err());
        assert!(Incoming::parse("not json").is_err());
    }
}
