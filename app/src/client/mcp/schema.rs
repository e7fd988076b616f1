//! The MCP tools' arguments: what each tool accepts, with the descriptions a model reads in
//! `tools/list`.
//!
//! This module owns the argument types only (their JSON Schema comes from `schemars`, their
//! doc comments are the field descriptions). Types that are forwarded to the surface as they
//! are serialise to the log's field names. It must not check the rules of a batch or a
//! message (the surface does) nor decide what a tool does with its arguments.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Arguments of `ask_user_question`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub(super) struct AskUserQuestionArgs {
    /// Questions to ask the user, shown together as one batch.
    pub questions: Vec<Question>,
    /// Seconds to wait for the answers; omit (or -1) to wait until the user answers. Give a
    /// number only when you have independent work to continue: when it passes, the result is
    /// pending and the questions stay answerable.
    #[serde(default)]
    pub timeout: Option<i64>,
}

/// One question of `ask_user_question`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub(super) struct Question {
    /// Stable id for this question, unique in the call; echoed in the answer.
    pub id: String,
    /// The specific question to ask the user.
    pub question: String,
    /// Optional short heading for the question, such as "Confirm" or "Choose mode".
    #[serde(default)]
    pub header: Option<String>,
    /// Optional choices to show the user (at most 9). If you recommend one, put it first and
    /// append "(Recommended)" to its label. The user may always answer in their own words.
    #[serde(default)]
    pub options: Option<Vec<QuestionOption>>,
    /// Whether the user may select more than one option. Defaults to false.
    #[serde(default)]
    pub multi_select: Option<bool>,
}

/// One choice of a question.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub(super) struct QuestionOption {
    /// Short user-facing option label; echoed in `selected` when chosen.
    pub label: String,
    /// One sentence explaining the tradeoff or impact.
    #[serde(default)]
    pub description: Option<String>,
}

/// Arguments of `get_pending_answer`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub(super) struct GetPendingAnswerArgs {
    /// The `callId` of a pending `ask_user_question` result (or the `batch_id` of
    /// `open_chat_clarification_batch`).
    #[serde(rename = "callId")]
    pub call_id: String,
    /// Seconds to wait for the answer before returning pending again; 0 (the default) looks
    /// once and returns at once.
    #[serde(default)]
    pub wait: Option<u32>,
}

/// Arguments of `open_chat_clarification_batch`: a batch as the session log holds it.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub(super) struct BatchArgs {
    /// The batch's id, unique in the session.
    pub id: String,
    /// The thread that asks; "main" when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<String>,
    /// A short title (at most 60 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The questions, in the order they are asked.
    pub items: Vec<BatchItem>,
    /// Whether the human may add a general note besides the items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub general_field: Option<bool>,
    /// Seconds after which the batch expires unanswered; never when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<f64>,
}

/// One question of a batch.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub(super) struct BatchItem {
    /// Stable id, unique within the batch.
    pub id: String,
    /// The question (at most 600 characters).
    pub prompt: String,
    /// A short header that names the question in summaries (at most 60 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// How it is answered.
    pub kind: ItemKind,
    /// The options of a choice item (at most 9).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<BatchOption>>,
    /// Whether several options may be chosen (needs at least 2 options).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multiple: Option<bool>,
    /// Whether free text may be given besides the options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<bool>,
    /// The id of the option you recommend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended: Option<String>,
}

/// How a batch item is answered.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(super) enum ItemKind {
    /// One line of free text.
    Text,
    /// Several lines of free text.
    Multiline,
    /// One or several of the options (and free text when `custom`).
    Choice,
    /// Yes or no; answered with `selected: ["yes"]` or `["no"]`.
    YesNo,
}

/// One option of a choice item.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub(super) struct BatchOption {
    /// Stable id, unique within the item.
    pub id: String,
    /// What the human reads.
    pub label: String,
    /// A longer explanation shown under the label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// Arguments of `submit_chat_clarification_response`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub(super) struct SubmitArgs {
    /// The batch answered.
    #[serde(skip_serializing)]
    pub batch_id: String,
    /// One answer per item answered.
    pub answers: Vec<ItemAnswer>,
    /// The general note, when the batch offers one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub general: Option<String>,
}

/// The answer to one item of a batch.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub(super) struct ItemAnswer {
    /// The item answered.
    pub item_id: String,
    /// The chosen option ids (choice and yes/no items).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<Vec<String>>,
    /// Free text (text items, or the custom answer of a choice item).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// True when the human chose not to answer this item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<bool>,
}

/// Arguments of `post_message`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub(super) struct PostMessageArgs {
    /// The message, in markdown.
    pub text: String,
    /// The thread it belongs to; "main" when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<String>,
    /// Who wrote it; "agent" when omitted.
    #[serde(default)]
    pub role: Role,
}

/// Who wrote a message.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(super) enum Role {
    /// The agent (you).
    #[default]
    Agent,
    /// The human, when you mirror what they wrote to you.
    User,
    /// The system running the agent.
    System,
    /// Output of a tool the agent ran.
    Tool,
}

/// Arguments of `open_thread`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub(super) struct OpenThreadArgs {
    /// The thread's id, unique in the session.
    pub id: String,
    /// Its title (at most 60 characters).
    pub title: String,
    /// The thread it branches off, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// What kind of thread it is; "topic" when omitted.
    #[serde(default)]
    pub kind: ThreadKind,
}

/// What kind of thread.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(super) enum ThreadKind {
    /// A main topic of the session.
    #[default]
    Topic,
    /// A branch taken off another thread, meant to come back.
    Branch,
    /// A side exploration that may be dropped.
    Exploration,
}
