//! Stage two, Declutter: what earns a place in the frame.
//!
//! From the whole snapshot and the operator's intent this stage picks what is shown and in
//! which form: resolved threads and answered batches fold to one-line summaries, long messages
//! fold with a way to expand, open questions and pending confirmations are never hidden, and
//! the overview ranks branches by open work and recency within a row budget. It decides, it
//! does not measure: text is never shaped here, and the only size it reads is how many
//! overview rows fit.

use crate::intent::{Elsewhere, Intent, Notice};
use crate::words::{Lang, Noun, Word};
use chatsurface_model::{
    BatchStatus, ConfirmationStatus, History, NodeRef, Role, Snapshot, ThreadKind, ThreadNode,
    ThreadStatus,
};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// Messages longer than this many characters fold until expanded.
pub(crate) const FOLD_CHARS: usize = 1200;
/// Messages with more lines than this fold until expanded.
pub(crate) const FOLD_LINES: usize = 18;
/// A tool's message with more lines than this folds until expanded.
pub(crate) const TOOL_FOLD_LINES: usize = 8;
/// A tool's message longer than this many characters folds until expanded.
pub(crate) const TOOL_FOLD_CHARS: usize = 500;
/// Open questions listed under one thread in the overview before the rest are counted.
pub(crate) const QUESTIONS_PER_THREAD: usize = 3;

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

/// What an overview row stands for.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum OverviewEntry {
    /// A topic, branch or exploration.
    Thread {
        /// Index into the snapshot's threads.
        thread: usize,
        /// Whether it is the focused thread.
        focused: bool,
    },
    /// An open batch or a pending confirmation.
    Question {
        /// The batch or confirmation.
        node: NodeRef,
    },
    /// A recorded decision.
    Decision {
        /// Index into the snapshot's decisions.
        decision: usize,
    },
    /// Threads left out for room, counted.
    Collapsed {
        /// How many threads (with everything below them) are not listed.
        threads: usize,
        /// How many of those are resolved.
        resolved: usize,
    },
    /// Open questions of a thread not listed one by one.
    MoreQuestions {
        /// How many.
        count: usize,
    },
}

/// One line of the overview.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OverviewRow {
    /// Nesting depth: 0 for topics.
    pub depth: u8,
    /// What the row shows.
    pub entry: OverviewEntry,
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

/// Open batches and pending confirmations of each thread, in the order they were asked.
fn open_questions_by_thread(snapshot: &Snapshot) -> Vec<Vec<NodeRef>> {
    let mut by_thread = vec![Vec::new(); snapshot.threads.len()];
    for entry in &snapshot.timeline {
        if snapshot.is_open_question(entry.node) {
            by_thread[entry.thread].push(entry.node);
        }
    }
    by_thread
}

fn open_work(thread: &ThreadNode) -> usize {
    thread.open_questions + thread.pending_confirmations
}

fn status_rank(status: ThreadStatus) -> u8 {
    match status {
        ThreadStatus::Active => 0,
        ThreadStatus::Parked => 1,
        ThreadStatus::Resolved => 2,
    }
}

/// The tree of threads with children ranked by open work, then status, then recency.
struct ThreadTree {
    roots: Vec<usize>,
    children: Vec<Vec<usize>>,
    subtree_open_work: Vec<usize>,
    subtree_size: Vec<usize>,
    subtree_resolved: Vec<usize>,
    /// The newest activity anywhere in the subtree.
    subtree_recency: Vec<u64>,
}

impl ThreadTree {
    fn new(snapshot: &Snapshot) -> ThreadTree {
        let count = snapshot.threads.len();
        let mut roots = Vec::new();
        let mut children = vec![Vec::new(); count];
        for index in 0..count {
            match snapshot.parent_of(index) {
                Some(parent) => children[parent].push(index),
                None => roots.push(index),
            }
        }
        let mut subtree_open_work: Vec<usize> = snapshot.threads.iter().map(open_work).collect();
        let mut subtree_size = vec![1; count];
        let mut subtree_resolved: Vec<usize> = snapshot
            .threads
            .iter()
            .map(|thread| usize::from(thread.status == ThreadStatus::Resolved))
            .collect();
        let mut subtree_recency: Vec<u64> = snapshot
            .threads
            .iter()
            .map(|thread| thread.last_activity_seq)
            .collect();
        // Children always come after their parents, so walking backwards sums bottom-up.
        for index in (0..count).rev() {
            if let Some(parent) = snapshot.parent_of(index) {
                subtree_open_work[parent] += subtree_open_work[index];
                subtree_size[parent] += subtree_size[index];
                subtree_resolved[parent] += subtree_resolved[index];
                subtree_recency[parent] = subtree_recency[parent].max(subtree_recency[index]);
            }
        }
        let rank = |&index: &usize| {
            let thread = &snapshot.threads[index];
            (
                std::cmp::Reverse(subtree_open_work[index] > 0),
                status_rank(thread.status),
                std::cmp::Reverse(subtree_recency[index]),
            )
        };
        roots.sort_by_key(rank);
        for list in &mut children {
            list.sort_by_key(rank);
        }
        ThreadTree {
            roots,
            children,
            subtree_open_work,
            subtree_size,
            subtree_resolved,
            subtree_recency,
        }
    }
}

fn choose_overview_rows(snapshot: &Snapshot, intent: &Intent, budget: usize) -> Vec<OverviewRow> {
    let tree = ThreadTree::new(snapshot);
    let questions = open_questions_by_thread(snapshot);
    let question_rows = |thread: usize| {
        let count = questions[thread].len();
        if count > QUESTIONS_PER_THREAD {
            QUESTIONS_PER_THREAD + 1
        } else {
            count
        }
    };

    // Choose threads by priority: the focus path and threads with open work first, then by
    // rank. Choosing a thread chooses its ancestors, so the tree stays connected.
    let mut order: Vec<usize> = (0..snapshot.threads.len()).collect();
    order.sort_by_key(|&index| {
        let thread = &snapshot.threads[index];
        (
            std::cmp::Reverse(intent.breadcrumb.contains(&index)),
            std::cmp::Reverse(tree.subtree_open_work[index] > 0),
            status_rank(thread.status),
            std::cmp::Reverse(tree.subtree_recency[index]),
        )
    });
    let mut chosen = vec![false; snapshot.threads.len()];
    let mut chosen_children = vec![0usize; snapshot.threads.len()];
    let mut chosen_roots = 0usize;
    // Rows in use: each listed thread with its question rows, plus one "more" row for every
    // level that leaves threads out. Before anything is chosen that is the topics' "more" row.
    let mut rows = usize::from(!tree.roots.is_empty());
    for &candidate in &order {
        let must = intent.breadcrumb.contains(&candidate) || tree.subtree_open_work[candidate] > 0;
        // The candidate and its ancestors not chosen yet, bottom-up.
        let mut path = Vec::new();
        let mut current = Some(candidate);
        while let Some(index) = current {
            if chosen[index] {
                break;
            }
            path.push(index);
            current = snapshot.parent_of(index);
        }
        let Some(&top) = path.last() else { continue };
        let mut added: isize = 0;
        for (position, &index) in path.iter().enumerate() {
            added += 1 + question_rows(index) as isize;
            // Below a new thread only the path's next thread is listed so far.
            let listed_children = usize::from(position > 0);
            if tree.children[index].len() > listed_children {
                added += 1;
            }
        }
        // The level the path hangs from loses its "more" row when its last thread is listed.
        let (listed, total) = match snapshot.parent_of(top) {
            Some(parent) => (chosen_children[parent], tree.children[parent].len()),
            None => (chosen_roots, tree.roots.len()),
        };
        if listed + 1 == total {
            added -= 1;
        }
        let after = (rows as isize + added).max(0) as usize;
        if !must && after > budget {
            continue;
        }
        for &index in &path {
            chosen[index] = true;
            match snapshot.parent_of(index) {
                Some(parent) => chosen_children[parent] += 1,
                None => chosen_roots += 1,
            }
        }
        rows = after;
    }

    let mut emitter = RowEmitter {
        intent,
        tree: &tree,
        questions: &questions,
        chosen: &chosen,
        out: Vec::new(),
    };
    emitter.emit_tree(&tree.roots);
    let mut out = emitter.out;
    add_decisions(snapshot, intent, &chosen, budget, &mut out);
    out
}

/// Walks the chosen threads in rank order and writes their rows.
struct RowEmitter<'a> {
    intent: &'a Intent,
    tree: &'a ThreadTree,
    questions: &'a [Vec<NodeRef>],
    chosen: &'a [bool],
    out: Vec<OverviewRow>,
}

/// One level of the thread tree being written: its threads, the next one to look at, and
/// what it has left out so far.
struct Level<'a> {
    threads: &'a [usize],
    next: usize,
    depth: u8,
    left_out: usize,
    left_out_resolved: usize,
}

impl<'a> Level<'a> {
    fn new(threads: &'a [usize], depth: u8) -> Level<'a> {
        Level {
            threads,
            next: 0,
            depth,
            left_out: 0,
            left_out_resolved: 0,
        }
    }
}

impl<'a> RowEmitter<'a> {
    /// Writes each chosen thread's row, its open questions, then its children's rows, depth
    /// first; threads left out of a level are summed into one row after it. The walk keeps
    /// its own stack: an agent can nest threads 50,000 deep, and recursion that deep would
    /// overflow the call stack.
    fn emit_tree(&mut self, roots: &'a [usize]) {
        let tree = self.tree;
        let mut stack = vec![Level::new(roots, 0)];
        while let Some(level) = stack.last_mut() {
            let Some(&thread) = level.threads.get(level.next) else {
                if level.left_out > 0 {
                    let entry = OverviewEntry::Collapsed {
                        threads: level.left_out,
                        resolved: level.left_out_resolved,
                    };
                    self.out.push(OverviewRow {
                        depth: level.depth,
                        entry,
                    });
                }
                stack.pop();
                continue;
            };
            level.next += 1;
            if !self.chosen[thread] {
                level.left_out += tree.subtree_size[thread];
                level.left_out_resolved += tree.subtree_resolved[thread];
                continue;
            }
            let depth = level.depth;
            self.emit_thread(thread, depth);
            stack.push(Level::new(&tree.children[thread], depth.saturating_add(1)));
        }
    }

    /// A thread's row and those of its open questions.
    fn emit_thread(&mut self, thread: usize, depth: u8) {
        let focused = self.intent.focus == Some(thread);
        self.out.push(OverviewRow {
            depth,
            entry: OverviewEntry::Thread { thread, focused },
        });
        let open = &self.questions[thread];
        let listed = open.len().min(QUESTIONS_PER_THREAD);
        for &node in &open[..listed] {
            self.out.push(OverviewRow {
                depth: depth.saturating_add(1),
                entry: OverviewEntry::Question { node },
            });
        }
        if open.len() > listed {
            let count = open.len() - listed;
            self.out.push(OverviewRow {
                depth: depth.saturating_add(1),
                entry: OverviewEntry::MoreQuestions { count },
            });
        }
    }
}

/// Fills rows left over with decisions, newest first (the focused thread's before others),
/// each placed under its thread.
fn add_decisions(
    snapshot: &Snapshot,
    intent: &Intent,
    chosen: &[bool],
    budget: usize,
    out: &mut Vec<OverviewRow>,
) {
    let room = budget.saturating_sub(out.len());
    if room == 0 {
        return;
    }
    let mut candidates: Vec<usize> = (0..snapshot.decisions.len())
        .filter(|&index| {
            snapshot
                .thread_index(&snapshot.decisions[index].spec.thread_id)
                .is_some_and(|thread| chosen[thread])
        })
        .collect();
    candidates.sort_by_key(|&index| {
        let in_focus = snapshot
            .thread_index(&snapshot.decisions[index].spec.thread_id)
            .is_some_and(|thread| intent.focus == Some(thread));
        (
            std::cmp::Reverse(in_focus),
            std::cmp::Reverse(snapshot.decisions[index].revision),
        )
    });
    let picked: HashSet<usize> = candidates.into_iter().take(room).collect();
    if picked.is_empty() {
        return;
    }
    let mut with_decisions = Vec::with_capacity(out.len() + picked.len());
    for row in out.drain(..) {
        let thread_row = match row.entry {
            OverviewEntry::Thread { thread, .. } => Some((thread, row.depth)),
            _ => None,
        };
        with_decisions.push(row);
        if let Some((thread, depth)) = thread_row {
            let id = &snapshot.threads[thread].spec.id;
            let mut mine: Vec<usize> = picked
                .iter()
                .copied()
                .filter(|&index| &snapshot.decisions[index].spec.thread_id == id)
                .collect();
            mine.sort_unstable();
            for decision in mine {
                with_decisions.push(OverviewRow {
                    depth: depth + 1,
                    entry: OverviewEntry::Decision { decision },
                });
            }
        }
    }
    *out = with_decisions;
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
                focused: true
            }));
    }

    #[test]
    fn two_hundred_threads_fit_the_overview_with_every_open_question_and_counts_for_the_rest() {
        let mut events = vec![thread("t0", None)];
        for index in 1..200 {
            let parent = format!("t{}", (index - 1) / 5);
            events.push(thread(&format!("t{index}"), Some(&parent)));
            events.push(message(&format!("m{index}"), &format!("t{index}"), "work"));
            if index % 3 == 0 {
                events.push(resolve(&format!("t{index}")));
            }
        }
        events.push(batch("b1", "t150"));
        events.push(batch("b2", "t7"));
        let snapshot = snapshot_from(&events);
        let request = IntentRequest::default();
        let budget = ROWS;
        let view = view_of(&snapshot, &request);
        assert!(
            view.overview.len() <= budget,
            "{} rows for a budget of {budget}",
            view.overview.len()
        );
        let questions: Vec<&OverviewEntry> = view
            .overview
            .iter()
            .map(|row| &row.entry)
            .filter(|entry| matches!(entry, OverviewEntry::Question { .. }))
            .collect();
        assert_eq!(questions.len(), 2, "both open batches are listed");
        let listed = view
            .overview
            .iter()
            .filter(|row| matches!(row.entry, OverviewEntry::Thread { .. }))
            .count();
        let counted: usize = view
            .overview
            .iter()
            .map(|row| match row.entry {
                OverviewEntry::Collapsed { threads, .. } => threads,
                _ => 0,
            })
            .sum();
        assert_eq!(listed + counted, 200, "every thread is listed or counted");
        assert!(listed < 200);
    }

    #[test]
    fn the_overview_ranks_branches_with_open_work_first() {
        let snapshot = snapshot_from(&[
            thread("main", None),
            thread("quiet", Some("main")),
            thread("asking", Some("main")),
            thread("recent", Some("main")),
            batch("b1", "asking"),
            message("m0", "recent", "latest"),
        ]);
        let view = view_of(&snapshot, &IntentRequest::default());
        let order: Vec<usize> = view
            .overview
            .iter()
            .filter_map(|row| match row.entry {
                OverviewEntry::Thread { thread, .. } => Some(thread),
                _ => None,
            })
            .collect();
        assert_eq!(order, vec![0, 2, 3, 1], "open work, then recency");
    }

    #[test]
    fn a_chain_of_fifty_thousand_nested_threads_is_walked_without_recursion() {
        // Run on a thread with a small stack: a recursive walk of this chain overflows it.
        let walked = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let mut events = vec![thread("t0", None)];
                for level in 1..50_000 {
                    events.push(thread(
                        &format!("t{level}"),
                        Some(&format!("t{}", level - 1)),
                    ));
                }
                events.push(batch("deep", "t49999"));
                let snapshot = snapshot_from(&events);
                let view = view_of(&snapshot, &IntentRequest::default());
                view.overview
                    .iter()
                    .any(|row| matches!(row.entry, OverviewEntry::Question { .. }))
            })
            .unwrap()
            .join();
        assert_eq!(
            walked.ok(),
            Some(true),
            "the open question at the bottom is listed"
        );
    }
}
