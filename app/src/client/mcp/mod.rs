//! `chatsurface mcp`: an MCP server on stdio (the official Rust SDK, `rmcp`) that lets an agent
//! ask the human and mirror its session through the running surface.
//!
//! This module owns the tools (`ask_user_question`, `get_pending_answer`,
//! `open_chat_clarification_batch`, `submit_chat_clarification_response`, `post_message`,
//! `open_thread`), where the MCP server finds its session, socket and tokens, and the stdio
//! service. Each tool is one or two requests to the surface's HTTP API over the unix socket
//! (`client`); the translations between the tools' shapes and the API's are in `mapping`, the
//! argument types in `schema`. It must not touch the store or the server, nor check the rules
//! of a batch: the surface does, and its refusals come back as tool errors. Stdout belongs to
//! the protocol; nothing else may print there.

mod client;
mod framing;
mod mapping;
mod schema;

use chatsurface_model::ClarificationItem;
use client::{segment, SurfaceCallError};
use hyper::Method;
use mapping::Outcome;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, RoleServer, ServerHandler, ServiceExt};
use schema::{
    AskUserQuestionArgs, BatchArgs, GetPendingAnswerArgs, OpenThreadArgs, PostMessageArgs,
    SubmitArgs,
};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

/// The session used when neither `--session` nor `CHATSURFACE_SESSION` names one.
pub const DEFAULT_SESSION: &str = "mcp";

/// Where the MCP server finds the surface, and who it is there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpConfig {
    /// The session the tools write to (created by the surface on first use).
    pub session: String,
    /// The API socket.
    pub socket: PathBuf,
    /// The integration token (`CHATSURFACE_TOKEN`), for every tool but the operator's.
    pub token: Option<String>,
    /// The operator token (`CHATSURFACE_OPERATOR_TOKEN`), only for
    /// `submit_chat_clarification_response`.
    pub operator_token: Option<String>,
}

impl McpConfig {
    /// The configuration from `--session` and the environment: the session from the flag,
    /// else `CHATSURFACE_SESSION`, else [`DEFAULT_SESSION`]; the socket as every client finds
    /// it; the tokens from `CHATSURFACE_TOKEN` and `CHATSURFACE_OPERATOR_TOKEN`. Empty values
    /// count as unset.
    pub fn from_env(session: Option<String>, env: impl Fn(&str) -> Option<String>) -> McpConfig {
        let set = |name: &str| env(name).filter(|value| !value.is_empty());
        McpConfig {
            session: session
                .filter(|session| !session.is_empty())
                .or_else(|| set("CHATSURFACE_SESSION"))
                .unwrap_or_else(|| DEFAULT_SESSION.to_owned()),
            socket: crate::client::ask::socket_path(&env),
            token: set("CHATSURFACE_TOKEN"),
            operator_token: set("CHATSURFACE_OPERATOR_TOKEN"),
        }
    }
}

/// Serves the tools on stdin/stdout until the client closes the connection.
pub async fn serve_stdio(config: McpConfig) -> Result<(), String> {
    let service = ChatSurfaceMcp::new(config)
        .serve(framing::frame(tokio::io::stdin(), tokio::io::stdout()))
        .await
        .map_err(|error| format!("the MCP session did not start: {error}"))?;
    service
        .waiting()
        .await
        .map(drop)
        .map_err(|error| format!("the MCP session failed: {error}"))
}

/// A token and the variable it came from, so a refusal can say which to fix.
struct Auth<'a> {
    var: &'static str,
    token: &'a str,
}

/// The MCP server: its configuration, the batches it opened, and its tools.
#[derive(Clone)]
pub struct ChatSurfaceMcp {
    config: Arc<McpConfig>,
    /// The items of the `ask_user_question` batches still waiting, by batch id, so that
    /// `get_pending_answer` can turn option ids back into labels.
    asked: Arc<Mutex<HashMap<String, Vec<ClarificationItem>>>>,
    tool_router: ToolRouter<ChatSurfaceMcp>,
}

impl ChatSurfaceMcp {
    /// A server with this configuration.
    pub fn new(config: McpConfig) -> ChatSurfaceMcp {
        ChatSurfaceMcp {
            config: Arc::new(config),
            asked: Arc::default(),
            tool_router: Self::tool_router(),
        }
    }

    fn integration(&self) -> Result<Auth<'_>, String> {
        match &self.config.token {
            Some(token) => Ok(Auth {
                var: "CHATSURFACE_TOKEN",
                token,
            }),
            None => Err(
                "no integration token: set CHATSURFACE_TOKEN in the MCP server's \
                         environment to a token printed by `chatsurface integration add SLUG`"
                    .to_owned(),
            ),
        }
    }

    fn operator(&self) -> Result<Auth<'_>, String> {
        match &self.config.operator_token {
            Some(token) => Ok(Auth {
                var: "CHATSURFACE_OPERATOR_TOKEN",
                token,
            }),
            None => Err(
                "submit_chat_clarification_response answers as the human, so it needs \
                         the operator token, and CHATSURFACE_OPERATOR_TOKEN is not set in the \
                         MCP server's environment (the token is in the surface's data dir, \
                         operator.token); an integration token can never answer a question"
                    .to_owned(),
            ),
        }
    }

    /// `/v1/sessions/{session}/{rest}`.
    /// Posts something to mirror into the session (`messages`, `threads`) as this
    /// integration; the surface's answer, as JSON text.
    async fn mirror(
        &self,
        context: &RequestContext<RoleServer>,
        what: &str,
        body: Value,
    ) -> Result<String, String> {
        let auth = self.integration()?;
        let reply = self
            .call(
                context,
                Method::POST,
                &self.session_path(what),
                &auth,
                Some(&body),
            )
            .await?;
        Ok(reply.to_string())
    }

    fn session_path(&self, rest: &str) -> String {
        format!("/v1/sessions/{}/{rest}", segment(&self.config.session))
    }

    /// Opens a clarification batch in the configured session (`body` as the API takes it).
    async fn open_batch(
        &self,
        context: &RequestContext<RoleServer>,
        auth: &Auth<'_>,
        body: &Value,
    ) -> Result<Value, String> {
        let path = self.session_path("clarifications");
        self.call(context, Method::POST, &path, auth, Some(body))
            .await
    }

    /// One request, given up when the client cancels the tool call.
    async fn call(
        &self,
        context: &RequestContext<RoleServer>,
        method: Method,
        path: &str,
        auth: &Auth<'_>,
        body: Option<&Value>,
    ) -> Result<Value, String> {
        tokio::select! {
            result = client::call(&self.config.socket, method, path, auth.token, body) => {
                result.map_err(|error| match error {
                    SurfaceCallError::Refused { status: 401, .. } => {
                        format!("{error} (check the token in {})", auth.var)
                    }
                    _ => error.to_string(),
                })
            }
            () = context.ct.cancelled() => Err("the tool call was cancelled".to_owned()),
        }
    }

    fn remember(&self, batch_id: &str, items: Vec<ClarificationItem>) {
        self.asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(batch_id.to_owned(), items);
    }

    fn forget(&self, batch_id: &str) -> Option<Vec<ClarificationItem>> {
        self.asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(batch_id)
    }

    /// The items of a batch: the ones this process asked, else from the session's snapshot.
    async fn items_of(
        &self,
        context: &RequestContext<RoleServer>,
        auth: &Auth<'_>,
        batch_id: &str,
    ) -> Result<Vec<ClarificationItem>, String> {
        if let Some(items) = self.forget(batch_id) {
            return Ok(items);
        }
        let snapshot = self
            .call(
                context,
                Method::GET,
                &self.session_path("snapshot"),
                auth,
                None,
            )
            .await?;
        mapping::batch_items_in_snapshot(&snapshot, batch_id).ok_or_else(|| {
            format!(
                "the session {:?} has no question {batch_id:?}",
                self.config.session
            )
        })
    }
}

#[tool_router]
impl ChatSurfaceMcp {
    #[tool(
        name = "ask_user_question",
        description = "Ask the user brief, direct, self-contained questions about missing \
                       information, preferences or decisions; they appear in the chatsurface \
                       window. Use user-facing terms; assume no knowledge of background work or \
                       internal names. Use distinct stable question ids. The result is \
                       {\"answers\":[{\"id\",\"selected\":[labels],\"custom\"?}]}: an answer \
                       with empty selected and no custom means the user skipped that question: \
                       continue without it, do not ask it again, and do not treat the skip as \
                       permission. With a finite timeout that passes, the result is \
                       {\"pending\":true,\"callId\",\"message\"}: the user can still answer, \
                       pending is never approval, and get_pending_answer fetches the answer \
                       later."
    )]
    async fn ask_user_question(
        &self,
        Parameters(args): Parameters<AskUserQuestionArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<String, String> {
        let auth = self.integration()?;
        let wait = mapping::check_ask(&args)?;
        let items = mapping::question_items(&args.questions);
        let batch_id = format!("ask-{:016x}", fastrand::u64(..));
        let body = mapping::batch_body(&batch_id, &items, wait);
        let reply = self.open_batch(&context, &auth, &body).await?;
        match mapping::outcome_of(&reply)? {
            Outcome::Answered(response) => {
                Ok(mapping::answers_result(&items, &response).to_string())
            }
            Outcome::Pending { batch_id } => {
                self.remember(&batch_id, items);
                Ok(mapping::pending_result(&batch_id).to_string())
            }
            Outcome::Closed { batch_id, status } => {
                Err(mapping::closed_message(&batch_id, &status))
            }
        }
    }

    #[tool(
        name = "get_pending_answer",
        description = "Fetch the answer to questions that ask_user_question left pending (its \
                       callId), or to a batch opened with open_chat_clarification_batch (its \
                       batch_id). Returns the same shapes as ask_user_question: the answers, or \
                       pending again if the user has not answered yet (pending is never \
                       approval). With wait, waits up to that many seconds for the answer."
    )]
    async fn get_pending_answer(
        &self,
        Parameters(args): Parameters<GetPendingAnswerArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<String, String> {
        let auth = self.integration()?;
        let path = format!(
            "{}/{}?wait={}",
            self.session_path("clarifications"),
            segment(&args.call_id),
            args.wait.unwrap_or(0)
        );
        let reply = self.call(&context, Method::GET, &path, &auth, None).await?;
        match mapping::outcome_of(&reply)? {
            Outcome::Answered(response) => {
                let items = self.items_of(&context, &auth, &args.call_id).await?;
                Ok(mapping::answers_result(&items, &response).to_string())
            }
            Outcome::Pending { batch_id } => Ok(mapping::pending_result(&batch_id).to_string()),
            Outcome::Closed { batch_id, status } => {
                self.forget(&batch_id);
                Err(mapping::closed_message(&batch_id, &status))
            }
        }
    }

    #[tool(
        name = "open_chat_clarification_batch",
        description = "Open a clarification batch (several questions at once, in the session \
                       log's shape: text, multiline, choice or yes_no items) and return at once \
                       with {\"batch_id\"}; the human answers in chatsurface. Fetch \
                       the answer later with get_pending_answer (callId = batch_id)."
    )]
    async fn open_chat_clarification_batch(
        &self,
        Parameters(batch): Parameters<BatchArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<String, String> {
        let auth = self.integration()?;
        let mut body = json!(batch);
        body["wait"] = json!(0);
        let reply = self.open_batch(&context, &auth, &body).await?;
        match mapping::outcome_of(&reply)? {
            Outcome::Pending { batch_id } => Ok(json!({ "batch_id": batch_id }).to_string()),
            Outcome::Answered(_) | Outcome::Closed { .. } => Ok(reply.to_string()),
        }
    }

    #[tool(
        name = "submit_chat_clarification_response",
        description = "Answer an open clarification batch as the human operator (for operator \
                       tooling and tests). Works only when CHATSURFACE_OPERATOR_TOKEN is set in \
                       this MCP server's environment; an agent's own integration token can never \
                       answer a question."
    )]
    async fn submit_chat_clarification_response(
        &self,
        Parameters(args): Parameters<SubmitArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<String, String> {
        let auth = self.operator()?;
        let path = format!("/v1/pending/{}", segment(&args.batch_id));
        let reply = self
            .call(&context, Method::POST, &path, &auth, Some(&json!(args)))
            .await?;
        Ok(reply.to_string())
    }

    #[tool(
        name = "post_message",
        description = "Post a message (markdown) to the session shown in the chatsurface \
                       window, to mirror your work for the human. Returns {\"id\"}."
    )]
    async fn post_message(
        &self,
        Parameters(args): Parameters<PostMessageArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<String, String> {
        self.mirror(&context, "messages", json!(args)).await
    }

    #[tool(
        name = "open_thread",
        description = "Open a thread (a topic, a branch off another thread, or an exploration) \
                       in the session, so messages and questions can be grouped by what they \
                       are about. Returns {\"id\"}."
    )]
    async fn open_thread(
        &self,
        Parameters(args): Parameters<OpenThreadArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<String, String> {
        self.mirror(&context, "threads", json!(args)).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for ChatSurfaceMcp {
    fn get_info(&self) -> ServerConfig {
        let mut config = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_instructions(
                "chatsurface shows your questions and messages to the human in its window. Ask \
                 with ask_user_question; a pending result is never approval.",
            );
        config.server_info = Implementation::new("chatsurface", env!("CARGO_PKG_VERSION"));
        config
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of<'a>(vars: &'a [(&str, &str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        }
    }

    #[test]
    fn session_comes_from_the_flag_then_the_environment_then_the_default() {
        let vars = [
            ("CHATSURFACE_SESSION", "from-env"),
            ("CHATSURFACE_TOKEN", "cs_agent"),
            ("CHATSURFACE_SOCKET", "/run/cs.sock"),
        ];
        let config = McpConfig::from_env(Some("flag".into()), env_of(&vars));
        assert_eq!(
            config,
            McpConfig {
                session: "flag".into(),
                socket: PathBuf::from("/run/cs.sock"),
                token: Some("cs_agent".into()),
                operator_token: None,
            }
        );
        assert_eq!(
            McpConfig::from_env(Some(String::new()), env_of(&vars)).session,
            "from-env"
        );
        let empty = [("CHATSURFACE_SESSION", ""), ("CHATSURFACE_TOKEN", "")];
        let config = McpConfig::from_env(None, env_of(&empty));
        assert_eq!(config.session, DEFAULT_SESSION);
        assert_eq!(config.token, None);
    }

    #[test]
    fn the_six_tools_are_listed_with_object_schemas() {
        let server = ChatSurfaceMcp::new(McpConfig::from_env(None, env_of(&[])));
        let mut names: Vec<String> = server
            .tool_router
            .list_all()
            .into_iter()
            .map(|tool| {
                assert_eq!(tool.input_schema.get("type"), Some(&json!("object")));
                tool.name.to_string()
            })
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "ask_user_question",
                "get_pending_answer",
                "open_chat_clarification_batch",
                "open_thread",
                "post_message",
                "submit_chat_clarification_response"
            ]
        );
        let ask = server
            .tool_router
            .get("ask_user_question")
            .expect("ask_user_question is routed");
        let question = &ask.input_schema["properties"]["questions"];
        assert_eq!(question["type"], json!("array"));
        assert!(ask.input_schema["required"]
            .as_array()
            .is_some_and(|required| required == &[json!("questions")]));
    }

    #[test]
    fn missing_tokens_say_which_variable_to_set() {
        let server = ChatSurfaceMcp::new(McpConfig::from_env(None, env_of(&[])));
        let integration = server.integration().err().unwrap_or_default();
        assert!(integration.contains("CHATSURFACE_TOKEN"), "{integration}");
        let operator = server.operator().err().unwrap_or_default();
        assert!(
            operator.contains("CHATSURFACE_OPERATOR_TOKEN"),
            "{operator}"
        );
    }
}
