//! Stage two, Declutter: what earns a place in the frame.
//!
//! From the whole snapshot and the operator's intent this stage picks what is shown and in
//! which form: resolved threads and answered batches fold to one-line summaries, long messages
//! fold with a way to expand, and open questions and pending confirmations are never hidden.
//! `overview.rs` chooses the overview's rows within the panel's room, every open question
//! among them. It decides, it does not measure: text is never shaped here, and the only size
//! it reads is how many overview rows fit.

mod overview;

use overview::choose_overview_rows;
pub(crate) use overview::{OverviewEntry, OverviewRow};

use crate::intent::{Elsewhere, Intent, Notice};
use crate::words::{Lang, Noun, Word};
use chatsurface_model::{
    BatchStatus, ConfirmationStatus, History, NodeRef, Role, Snapshot, ThreadKind, ThreadStatus,
};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// Messages longer than this many characters fold until expanded.
pub(crate) const FOLD_CHARS: usize = 1200;
/// Messages with more lines than this fold until expanded.
pub(crate) const FOLD_LINES: usize = 18;
/// A tool's message with more lines than this folds until expanded.
pub(crate) const TOOL_FOLD_LINES: usize = 8;
/// A tool's message longer than this many characters folds until expanded.
pub(crate) const TOOL_FOLD_CHARS: usize = 500;

/// The header's facts: the session and what awaits the human.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct HeaderSummary<'s> {
    /// The session's title.
    pub title: &'s str,
    /// The agent running it, when known.
    pub agent: Option<&'s str>,
    /// Unanswered items across open batches.
    pub open_questions: usize,
    /// Confirmations waiting.
    pub pending_confirmations: usize,
    /// Titles from the topic down to the focused thread.
    pub breadcrumb: Vec<&'s str>,
    /// What waits in other sessions.
    pub elsewhere: Elsewhere,
    /// The window's last word to the human.
    pub notice: Option<Notice>,
    /// The language of the surface's words.
    pub lang: Lang,
}

impl HeaderSummary<'_> {
    /// "3 open questions · 1 confirmation", or that nothing awaits.
    pub(crate) fn awaiting(&self) -> String {
        let lang = self.lang;
        let mut parts = Vec::new();
        if self.open_questions > 0 {
            parts.push(lang.count(self.open_questions, Noun::OpenQuestion));
        }
        if self.pending_confirmations > 0 {
            parts.push(lang.count(self.pending_confirmations, Noun::Confirmation));
        }
        let elsewhere = (self.elsewhere.questions > 0)
            .then(|| lang.waiting_in(self.elsewhere.questions, self.elsewhere.sessions));
        match (parts.is_empty(), elsewhere) {
            (true, None) => lang.word(Word::NothingAwaits).to_owned(),
            (true, Some(elsewhere)) => format!(
                "{} · {elsewhere} ({})",
                lang.word(Word::NothingHere),
                lang.word(Word::GoThere)
            ),
            (false, None) => parts.join(" · "),
            (false, Some(elsewhere)) => {
                format!("{} {} · {elsewhere}", parts.join(" · "), lang.here())
            }
        }
    }
}

/// How a transcript block is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Presentation {
    /// In full.
    Full,
    /// Cut short, with a way to expand.
    Folded,
    /// One line with the outcome (resolved threads, answered batches, settled confirmations).
    Summary,
    /// In full and standing out: it waits for the human.
    Attention,
}

/// One block of the transcript.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct TranscriptBlock {
    /// The node shown.
    pub node: NodeRef,
    /// Its thread.
    pub thread: usize,
    /// In which form.
    pub presentation: Presentation,
    /// Whether the block names its thread (it differs from the block before).
    pub show_thread: bool,
}

/// The output of Declutter: everything the frame will show, nothing it will not.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct DeclutteredView<'s> {
    /// The header band.
    pub header: HeaderSummary<'s>,
    /// The overview rows, in display order.
    pub overview: Vec<OverviewRow>,
    /// The transcript blocks, oldest first.
    pub transcript: Arc<Vec<TranscriptBlock>>,
    /// Where each shown node is in `transcript`.
    pub positions: Arc<HashMap<NodeRef, usize>>,
}

fn positions_of(blocks: &[TranscriptBlock]) -> HashMap<NodeRef, usize> {
    blocks
        .iter()
        .enumerate()
        .map(|(index, block)| (block.node, index))
        .collect()
}

/// A decluttered transcript and overview, kept for reuse.
#[derive(Debug)]
struct CachedView {
    transcript: Arc<Vec<TranscriptBlock>>,
    positions: Arc<HashMap<NodeRef, usize>>,
    overview: Vec<OverviewRow>,
}

/// What the transcript's blocks depend on: the snapshot (its address and last event), the
/// thread drilled into and what is unfolded.
#[derive(Clone, Debug, PartialEq)]
struct TranscriptKey {
    history: History,
    last_seq: u64,
    timeline: usize,
    focus: Option<usize>,
    expanded: BTreeSet<NodeRef>,
    overview_rows: usize,
}

/// The last transcript and overview decluttered, kept while nothing they depend on changes.
///
/// Choosing the transcript's blocks and the overview's rows walks the whole timeline (and
/// measures every message), which on a 100,000-message session costs more than a whole
/// scrolled frame should. A frame that only scrolls, moves focus or edits an answer changes
/// none of their inputs, so they are reused; any new event changes `last_seq` and they are
/// chosen again.
#[derive(Debug, Default)]
pub(crate) struct TranscriptCache {
    entry: Option<(TranscriptKey, CachedView)>,
}

/// Stage two, reusing the transcript from `cache` when its inputs are unchanged.
pub(crate) fn declutter_cached<'s>(
    snapshot: &'s Snapshot,
    intent: &Intent,
    overview_rows: usize,
    cache: &mut TranscriptCache,
) -> DeclutteredView<'s> {
    let key = TranscriptKey {
        history: snapshot.history,
        last_seq: snapshot.last_seq,
        timeline: snapshot.timeline.len(),
        focus: intent.focus,
        expanded: intent.expanded.clone(),
        overview_rows,
    };
    let fresh = cache
        .entry
        .as_ref()
        .is_none_or(|(cached, _)| *cached != key);
    if fresh {
        let transcript = transcript_blocks(snapshot, intent);
        let view = CachedView {
            positions: Arc::new(positions_of(&transcript)),
            transcript: Arc::new(transcript),
            overview: choose_overview_rows(snapshot, intent, overview_rows),
        };
        cache.entry = Some((key, view));
    }
    let Some((_, view)) = &cache.entry else {
        return declutter(snapshot, intent, overview_rows);
    };
    DeclutteredView {
        header: header_summary(snapshot, intent),
        overview: view.overview.clone(),
        transcript: view.transcript.clone(),
        positions: view.positions.clone(),
    }
}

fn header_summary<'s>(snapshot: &'s Snapshot, intent: &Intent) -> HeaderSummary<'s> {
    HeaderSummary {
        title: snapshot.title(),
        agent: snapshot
            .session
            .as_ref()
            .and_then(|session| session.agent.as_deref()),
        open_questions: snapshot.open_questions(),
        pending_confirmations: snapshot.pending_confirmations(),
        breadcrumb: intent
            .breadcrumb
            .iter()
            .map(|&thread| snapshot.threads[thread].spec.title.as_str())
            .collect(),
        elsewhere: intent.elsewhere,
        notice: intent.notice.clone(),
        lang: intent.lang,
    }
}

/// Stage two: decides what is shown. `overview_rows` is how many overview rows the frame has
/// room for (layout knows; see `layout::overview_capacity`).
pub(crate) fn declutter<'s>(
    snapshot: &'s Snapshot,
    intent: &Intent,
    overview_rows: usize,
) -> DeclutteredView<'s> {
    let transcript = transcript_blocks(snapshot, intent);
    DeclutteredView {
        header: header_summary(snapshot, intent),
        overview: choose_overview_rows(snapshot, intent, overview_rows),
        positions: Arc::new(positions_of(&transcript)),
        transcript: Arc::new(transcript),
    }
}

fn message_is_long(text: &str) -> bool {
    text.len() > FOLD_CHARS && text.chars().count() > FOLD_CHARS
        || text.lines().count() > FOLD_LINES
}

/// Whether a message folds until expanded: a long one, or a tool's output of more than a
/// few lines (its call is the line worth a glance; the output is there on demand).
fn message_folds(message: &chatsurface_model::MessageSpec) -> bool {
    let tool_is_long = message.role == Role::Tool
        && (message.text.lines().count() > TOOL_FOLD_LINES
            || message.text.chars().count() > TOOL_FOLD_CHARS);
    tool_is_long || message_is_long(&message.text)
}

/// For each thread, the resolved thread its content folds into, if any.
fn collapse_targets(snapshot: &Snapshot, intent: &Intent) -> Vec<Option<usize>> {
    let mut targets: Vec<Option<usize>> = vec![None; snapshot.threads.len()];
    // Threads are opened after their parents, so a parent's target is known before its children.
    for (index, thread) in snapshot.threads.iter().enumerate() {
        let inherited = snapshot.parent_of(index).and_then(|parent| targets[parent]);
        let folds_itself = thread.status == ThreadStatus::Resolved
            && !intent.expanded.contains(&NodeRef::Thread(index))
            && !intent.breadcrumb.contains(&index);
        targets[index] = inherited.or(folds_itself.then_some(index));
    }
    targets
}

fn transcript_blocks(snapshot: &Snapshot, intent: &Intent) -> Vec<TranscriptBlock> {
    let targets = collapse_targets(snapshot, intent);
    let mut blocks: Vec<TranscriptBlock> = Vec::new();
    let mut last_thread = None;
    for entry in &snapshot.timeline {
        if !intent.shows_thread(snapshot, entry.thread) {
            continue;
        }
        let expanded = intent.expanded.contains(&entry.node);
        let presentation = match entry.node {
            NodeRef::Thread(index) => match targets[index] {
                Some(target) if target == index => Presentation::Summary,
                Some(_) => continue,
                None => Presentation::Full,
            },
            NodeRef::Batch(index) => match snapshot.batches[index].status {
                BatchStatus::Open => Presentation::Attention,
                _ if targets[entry.thread].is_some() => continue,
                _ if expanded => Presentation::Full,
                _ => Presentation::Summary,
            },
            NodeRef::Confirmation(index) => match snapshot.confirmations[index].status {
                ConfirmationStatus::Pending => Presentation::Attention,
                _ if targets[entry.thread].is_some() => continue,
                _ if expanded => Presentation::Full,
                _ => Presentation::Summary,
            },
            _ if targets[entry.thread].is_some() => continue,
            NodeRef::Message(index)
                if !expanded && message_folds(&snapshot.messages[index].spec) =>
            {
                Presentation::Folded
            }
            NodeRef::Message(_) | NodeRef::Decision(_) => Presentation::Full,
        };
        let show_thread =
            last_thread != Some(entry.thread) && !matches!(entry.node, NodeRef::Thread(_));
        last_thread = Some(entry.thread);
        blocks.push(TranscriptBlock {
            node: entry.node,
            thread: entry.thread,
            presentation,
            show_thread,
        });
    }
    blocks
}

/// The word for a thread's kind, as the overview and transcript show it.
pub(crate) fn kind_label(kind: ThreadKind) -> &'static str {
    match kind {
        ThreadKind::Topic => "topic",
        ThreadKind::Branch => "branch",
        ThreadKind::Exploration => "exploration",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intent::{resolve_intent, IntentRequest};
    use crate::test_support::{answer, batch, message, resolve, snapshot_from, thread};

    /// The overview's room in these tests.
    const ROWS: usize = 30;

    fn view_of(snapshot: &Snapshot, request: &IntentRequest) -> DeclutteredView<'static> {
        let intent = resolve_intent(snapshot, request).unwrap();
        let view = declutter(snapshot, &intent, ROWS);
        // The view borrows titles from the snapshot; tests compare owned copies.
        DeclutteredView {
            header: HeaderSummary {
                title: "",
                agent: None,
                breadcrumb: Vec::new(),
                ..view.header
            },
            overview: view.overview,
            transcript: view.transcript,
            positions: view.positions,
        }
    }

    fn presentations(view: &DeclutteredView) -> Vec<(NodeRef, Presentation)> {
        view.transcript
            .iter()
            .map(|block| (block.node, block.presentation))
            .collect()
    }

    #[test]
    fn the_transcript_is_reused_until_the_snapshot_or_the_focus_changes() {
        let events = [thread("main", None), message("m0", "main", "start")];
        let mut snapshot = snapshot_from(&events);
        let mut cache = TranscriptCache::default();
        let intent = resolve_intent(&snapshot, &IntentRequest::default()).unwrap();
        let first = declutter_cached(&snapshot, &intent, ROWS, &mut cache).transcript;
        let again = declutter_cached(&snapshot, &intent, ROWS, &mut cache).transcript;
        assert!(
            Arc::ptr_eq(&first, &again),
            "nothing changed: the same blocks"
        );
        let mut expanded = IntentRequest::default();
        expanded.expanded.insert(NodeRef::Message(0));
        let intent_expanded = resolve_intent(&snapshot, &expanded).unwrap();
        let unfolded = declutter_cached(&snapshot, &intent_expanded, ROWS, &mut cache).transcript;
        assert!(!Arc::ptr_eq(&again, &unfolded));
        snapshot = snapshot_from(&[
            events[0].clone(),
            events[1].clone(),
            message("m1", "main", "more"),
        ]);
        let grown = declutter_cached(&snapshot, &intent, ROWS, &mut cache).transcript;
        assert_eq!(
            grown.len(),
            first.len() + 1,
            "a new event chooses the blocks again"
        );
    }

    #[test]
    fn a_resolved_branch_folds_to_one_summary_until_expanded() {
        let snapshot = snapshot_from(&[
            thread("main", None),
            message("m0", "main", "start"),
            thread("side", Some("main")),
            message("m1", "side", "side work"),
            message("m2", "side", "more side work"),
            resolve("side"),
            message("m3", "main", "back on the main line"),
        ]);
        let folded = view_of(&snapshot, &IntentRequest::default());
        assert_eq!(
            presentations(&folded),
            vec![
                (NodeRef::Thread(0), Presentation::Full),
                (NodeRef::Message(0), Presentation::Full),
                (NodeRef::Thread(1), Presentation::Summary),
                (NodeRef::Message(3), Presentation::Full),
            ]
        );
        let mut request = IntentRequest::default();
        request.expanded.insert(NodeRef::Thread(1));
        let expanded = view_of(&snapshot, &request);
        assert_eq!(
            expanded.transcript.len(),
            6,
            "the branch marker and both its messages come back"
        );
    }

    #[test]
    fn an_open_question_in_a_resolved_thread_is_never_hidden() {
        let snapshot = snapshot_from(&[
            thread("main", None),
            thread("side", Some("main")),
            batch("b1", "side"),
            resolve("side"),
        ]);
        let view = view_of(&snapshot, &IntentRequest::default());
        assert!(presentations(&view).contains(&(NodeRef::Batch(0), Presentation::Attention)));
        assert_eq!(view.header.open_questions, 1);
        assert_eq!(view.header.awaiting(), "1 open question");
    }

    #[test]
    fn a_tools_long_output_folds_and_a_short_one_shows_whole() {
        let output = "line\n".repeat(TOOL_FOLD_LINES + 1);
        let tool = |id: &str, text: &str| {
            message(id, "main", text).replace(r#""role":"agent""#, r#""role":"tool""#)
        };
        let snapshot = snapshot_from(&[
            thread("main", None),
            tool("m0", &format!("**Bash** `ls`\n{output}")),
            tool("m1", "**Bash** `pwd`\n/work"),
            message("m2", "main", &output),
        ]);
        let shown = presentations(&view_of(&snapshot, &IntentRequest::default()));
        assert!(shown.contains(&(NodeRef::Message(0), Presentation::Folded)));
        assert!(shown.contains(&(NodeRef::Message(1), Presentation::Full)));
        assert!(
            shown.contains(&(NodeRef::Message(2), Presentation::Full)),
            "an agent's nine lines are not long"
        );
    }

    #[test]
    fn answered_batches_summarise_and_long_messages_fold() {
        let long = "word ".repeat(FOLD_CHARS);
        let snapshot = snapshot_from(&[
            thread("main", None),
            batch("b1", "main"),
            answer("b1"),
            message("m0", "main", &long),
        ]);
        let view = view_of(&snapshot, &IntentRequest::default());
        assert!(presentations(&view).contains(&(NodeRef::Batch(0), Presentation::Summary)));
        assert!(presentations(&view).contains(&(NodeRef::Message(0), Presentation::Folded)));
        let mut request = IntentRequest::default();
        request
            .expanded
            .extend([NodeRef::Batch(0), NodeRef::Message(0)]);
        let view = view_of(&snapshot, &request);
        assert!(presentations(&view).contains(&(NodeRef::Batch(0), Presentation::Full)));
        assert!(presentations(&view).contains(&(NodeRef::Message(0), Presentation::Full)));
        assert_eq!(view.header.awaiting(), "Nothing awaits you");
    }

    #[test]
    fn focus_keeps_only_the_focused_thread_and_its_branches() {
        let snapshot = snapshot_from(&[
            thread("main", None),
            message("m0", "main", "main"),
            thread("side", Some("main")),
            message("m1", "side", "side"),
            thread("deeper", Some("side")),
            message("m2", "deeper", "deeper"),
        ]);
        let request = IntentRequest {
            focus: Some("side".into()),
            ..IntentRequest::default()
        };
        let view = view_of(&snapshot, &request);
        let nodes: Vec<NodeRef> = view.transcript.iter().map(|block| block.node).collect();
        assert_eq!(
            nodes,
            vec![
                NodeRef::Thread(1),
                NodeRef::Message(1),
                NodeRef::Thread(2),
                NodeRef::Message(2)
            ]
        );
        assert!(view.overview.iter().any(|row| row.entry
            == OverviewEntry::Thread {
                thread: 1,
                above: Vec::new(),
                focused: true
            }));
    }
}
