//! Clarification batches: several questions asked at once, answered item by item.
//!
//! A response is structured as `item id → answer`, never one parsed string, so that the answer
//! to each question keeps its own identity in the log and in the overview.

use crate::ids::{BatchId, ItemId, OptionId, ThreadId};
use serde::{Deserialize, Serialize};

/// How an item is answered.
#[derive(
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum AnswerKind {
    /// One line of free text.
    Text,
    /// Several lines of free text.
    Multiline,
    /// One or several of the offered options (and free text when `custom`).
    Choice,
    /// Yes or no, answered with `selected: ["yes"]` or `["no"]`.
    YesNo,
}

impl AnswerKind {
    /// The words shown on an item's badge.
    pub fn label(self) -> &'static str {
        match self {
            AnswerKind::Text => "text",
            AnswerKind::Multiline => "multi-line text",
            AnswerKind::Choice => "choice",
            AnswerKind::YesNo => "yes / no",
        }
    }
}

/// One option of a choice item.
#[derive(
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    Clone,
    Debug,
    PartialEq,
    Serialize,
    Deserialize,
)]
pub struct ChoiceOption {
    /// Stable id, unique within the item.
    pub id: OptionId,
    /// What the human reads.
    pub label: String,
    /// A longer explanation shown under the label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// One question of a batch.
#[derive(
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    Clone,
    Debug,
    PartialEq,
    Serialize,
    Deserialize,
)]
pub struct ClarificationItem {
    /// Stable id, unique within the batch.
    pub id: ItemId,
    /// The question (at most 600 characters).
    pub prompt: String,
    /// A short header that names the question in summaries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// How it is answered.
    pub kind: AnswerKind,
    /// The options of a choice item (at most 9).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<ChoiceOption>,
    /// Whether several options may be chosen (needs at least 2 options).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub multiple: bool,
    /// Whether free text may be given besides the options.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub custom: bool,
    /// The option the agent recommends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended: Option<OptionId>,
}

impl ClarificationItem {
    /// The label of an option id, including the implicit `yes` / `no` of a yes/no item.
    pub fn option_label<'a>(&'a self, id: &'a OptionId) -> &'a str {
        self.options
            .iter()
            .find(|option| &option.id == id)
            .map_or(id.as_str(), |option| option.label.as_str())
    }
}

/// A batch as an agent opens it.
#[derive(
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    Clone,
    Debug,
    PartialEq,
    Serialize,
    Deserialize,
)]
pub struct BatchSpec {
    /// The batch's id, unique in the session.
    pub id: BatchId,
    /// The thread that asks.
    pub thread_id: ThreadId,
    /// A short title (at most 60 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The questions, in the order they are asked.
    pub items: Vec<ClarificationItem>,
    /// Whether a general note may be given besides the items.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub general_field: bool,
    /// Seconds after which the batch expires, if it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<f64>,
    /// An absolute path the human can open from the question (a diff, a plan, a log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attachment: Option<String>,
    /// Whether the question lives only as long as the connection that asked it (the API's
    /// `hold`): a server starting after a crash withdraws such a question still waiting,
    /// since no client can be waiting for it any more.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub held: bool,
}

/// The answer to one item.
#[derive(
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    Clone,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    Default,
)]
pub struct ItemAnswer {
    /// The item answered.
    pub item_id: ItemId,
    /// The chosen option ids (choice and yes/no items).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub selected: Vec<OptionId>,
    /// Free text (text items, or the custom field of a choice item).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// True when the human chose not to answer this item.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
}

/// A human's answer to a batch, or a draft of one.
#[derive(
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    Clone,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    Default,
)]
pub struct ClarificationResponse {
    /// One answer per item answered.
    pub answers: Vec<ItemAnswer>,
    /// The general note, when the batch offers one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub general: Option<String>,
}

impl ClarificationResponse {
    /// The answer given to an item, if any.
    pub fn answer(&self, item: &ItemId) -> Option<&ItemAnswer> {
        self.answers.iter().find(|answer| &answer.item_id == item)
    }
}

/// Where a batch stands.
#[derive(
    rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Serialize,
)]
#[serde(rename_all = "snake_case")]
pub enum BatchStatus {
    /// Waiting for the human.
    Open,
    /// The human submitted a response.
    Answered,
    /// Its timeout passed unanswered.
    Expired,
    /// The agent took it back.
    Withdrawn,
}

impl BatchStatus {
    /// The status as written in snapshots.
    pub fn as_str(self) -> &'static str {
        match self {
            BatchStatus::Open => "open",
            BatchStatus::Answered => "answered",
            BatchStatus::Expired => "expired",
            BatchStatus::Withdrawn => "withdrawn",
        }
    }
}

/// A batch in the snapshot.
#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Clone, Debug, PartialEq, Serialize)]
pub struct ClarificationBatch {
    /// What the agent asked.
    #[serde(flatten)]
    pub spec: BatchSpec,
    /// Open, answered, expired or withdrawn.
    pub status: BatchStatus,
    /// The submitted response, once answered.
    pub response: Option<ClarificationResponse>,
    /// The latest saved draft, while open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draft: Option<ClarificationResponse>,
    /// When it was asked (RFC 3339, from its event).
    pub opened_at: String,
    /// The sequence number of the last event that changed it.
    pub revision: u64,
}

/// How long a question asked at `opened_at` (RFC 3339) has waited at `now`; none when the
/// time does not parse, zero when it lies in the future (another machine's clock).
pub(crate) fn waited(opened_at: &str, now: std::time::SystemTime) -> Option<std::time::Duration> {
    use time::format_description::well_known::Rfc3339;
    let opened = time::OffsetDateTime::parse(opened_at, &Rfc3339).ok()?;
    let waited = time::OffsetDateTime::from(now) - opened;
    Some(std::time::Duration::try_from(waited).unwrap_or(std::time::Duration::ZERO))
}

/// How long from `now` until a question asked at `opened_at` (RFC 3339) with a timeout of
/// `timeout_s` seconds expires (zero once it has); none without a timeout, a readable time or
/// a deadline a date can hold.
/// The one rule for batches and confirmations alike.
pub(crate) fn time_left(
    opened_at: &str,
    timeout_s: Option<f64>,
    now: std::time::SystemTime,
) -> Option<std::time::Duration> {
    use time::format_description::well_known::Rfc3339;
    let timeout = timeout_s.filter(|seconds| seconds.is_finite())?;
    let opened = time::OffsetDateTime::parse(opened_at, &Rfc3339).ok()?;
    // A time near the end of year 9999 plus its timeout is past what a date can hold: such a
    // question has no deadline one can reach, rather than a panic.
    let due = opened.checked_add(time::Duration::seconds_f64(timeout.clamp(0.0, 1e9)))?;
    let left = due - time::OffsetDateTime::from(now);
    Some(std::time::Duration::try_from(left).unwrap_or(std::time::Duration::ZERO))
}

impl ClarificationBatch {
    /// How long from `now` until the batch's timeout passes (zero when it has), counted from
    /// when it was asked; none when it has no timeout or its time does not parse. Lets a
    /// server that starts after the batch was opened expire it when it was meant to.
    pub fn time_left(&self, now: std::time::SystemTime) -> Option<std::time::Duration> {
        time_left(&self.opened_at, self.spec.timeout_s, now)
    }

    /// How long the batch has waited at `now`, counted from when it was asked; none when its
    /// time does not parse.
    pub fn waited(&self, now: std::time::SystemTime) -> Option<std::time::Duration> {
        waited(&self.opened_at, now)
    }

    /// The title to show: the batch's own, or its first item's header or prompt.
    pub fn display_title(&self) -> &str {
        self.spec
            .title
            .as_deref()
            .or_else(|| {
                self.spec
                    .items
                    .first()
                    .and_then(|item| item.header.as_deref())
            })
            .or_else(|| self.spec.items.first().map(|item| item.prompt.as_str()))
            .unwrap_or("Questions")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime, UNIX_EPOCH};

    fn batch(timeout_s: Option<f64>, opened_at: &str) -> ClarificationBatch {
        ClarificationBatch {
            spec: BatchSpec {
                held: false,
                id: "b".into(),
                thread_id: "t".into(),
                title: None,
                items: Vec::new(),
                general_field: false,
                timeout_s,
                attachment: None,
            },
            status: BatchStatus::Open,
            response: None,
            draft: None,
            opened_at: opened_at.to_owned(),
            revision: 1,
        }
    }

    #[test]
    fn time_left_counts_from_when_the_batch_was_asked() {
        // 2026-12-02T10:00:00Z
        let asked = UNIX_EPOCH + Duration::from_secs(1_796_205_600);
        let opened = "2026-12-02T10:00:00Z";
        let later = |seconds| asked + Duration::from_secs(seconds);
        assert_eq!(
            batch(Some(90.0), opened).time_left(later(30)),
            Some(Duration::from_secs(60))
        );
        assert_eq!(
            batch(Some(90.0), opened).time_left(later(600)),
            Some(Duration::ZERO),
            "a timeout that passed while no server ran is due at once"
        );
        assert_eq!(batch(None, opened).time_left(SystemTime::now()), None);
        assert_eq!(batch(Some(90.0), "yesterday").time_left(later(0)), None);
    }

    #[test]
    fn waited_counts_from_when_the_batch_was_asked() {
        // 2026-12-02T10:00:00Z
        let asked = UNIX_EPOCH + Duration::from_secs(1_796_205_600);
        let opened = "2026-12-02T10:00:00+00:00";
        assert_eq!(
            batch(None, opened).waited(asked + Duration::from_secs(75)),
            Some(Duration::from_secs(75))
        );
        assert_eq!(
            batch(None, "2026-12-02T13:00:00+03:00").waited(asked + Duration::from_secs(5)),
            Some(Duration::from_secs(5)),
            "an offset is honoured"
        );
        assert_eq!(
            batch(None, opened).waited(asked - Duration::from_secs(30)),
            Some(Duration::ZERO),
            "a time ahead of this clock has waited no time"
        );
        assert_eq!(batch(None, "soon").waited(asked), None);
    }

    #[test]
    fn a_deadline_past_the_last_date_is_none_not_a_panic() {
        let now = SystemTime::now();
        assert_eq!(time_left("9999-12-31T23:59:59Z", Some(1.0), now), None);
        assert!(time_left("9999-12-31T23:59:00Z", Some(1.0), now).is_some());
    }
}
