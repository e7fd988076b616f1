//! The overview's rows: which threads, open questions and decisions get a line, in which
//! order, within the rows the panel has.
//!
//! The rule this module keeps: every open question and pending confirmation has a row, under
//! the path of threads that leads to it, whatever the size of the session and the panel. What
//! has nothing open folds first, into counted summaries. Four ways to fit are tried in turn:
//!
//! 1. **The tree.** Every thread with open work below it and the focused path get a row each,
//!    with their open questions under them; the room left goes to the other threads by rank
//!    (open work, then status, then recency), and what is left out of a level is counted in
//!    one row after it. Decisions fill what is still free.
//! 2. **Folded chains.** When the tree of open work alone does not fit, only threads with open
//!    work keep rows, and a chain of threads with one listed child each and nothing open of
//!    their own folds into its last thread's row ("topic › branch › branch"): siblings still
//!    share their ancestors' rows, but a deep path costs one row. Every other thread is counted
//!    in one row at the end.
//! 3. **Paths.** When that does not fit either, each thread with open questions has one row
//!    that reads its whole path, and nothing else does: the path may repeat, but the rows
//!    are the fewest that still show where each question was asked.
//! 4. **Cut, and counted.** When even that does not fit (hundreds of open questions), the rows
//!    that fit are kept and the last one says how many open questions have no row; the
//!    window's `o` still reaches each.
//!
//! Owns the choice, never the drawing (`layout/overview.rs` paints the rows) and never the
//! counting of open work (the fold keeps it). Every walk over the thread tree keeps its own
//! stack: an agent can nest threads 50,000 deep.

use crate::intent::Intent;
use chatsurface_model::{NodeRef, Snapshot, ThreadNode, ThreadStatus};
use std::collections::HashSet;

/// What an overview row stands for.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum OverviewEntry {
    /// A topic, branch or exploration.
    Thread {
        /// Index into the snapshot's threads: the thread the row stands for.
        thread: usize,
        /// The threads above it folded into its row, outermost first (the row reads
        /// "a › b › thread"); empty when each of them has a row of its own.
        above: Vec<usize>,
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
    /// Open questions and pending confirmations that have no row, counted: the last row when
    /// even folded chains do not fit.
    Unlisted {
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

/// Chooses the overview's rows for a panel with room for `budget` of them.
pub(crate) fn choose_overview_rows(
    snapshot: &Snapshot,
    intent: &Intent,
    budget: usize,
) -> Vec<OverviewRow> {
    let tree = ThreadTree::new(snapshot, intent);
    let questions = open_questions_by_thread(snapshot);
    let tree_rows = as_tree(snapshot, intent, &tree, &questions, budget);
    if tree_rows.rows.len() <= budget {
        let mut rows = tree_rows.rows;
        add_decisions(snapshot, intent, &tree_rows.listed, budget, &mut rows);
        return rows;
    }
    let mut rows = as_folded_chains(intent, &tree, &questions);
    if rows.len() > budget {
        rows = as_paths(intent, &tree, &questions, budget);
        if rows.len() > budget {
            let open = questions.iter().map(Vec::len).sum();
            cut_to(budget, open, &mut rows);
        }
        return rows;
    }
    let listed = tree.needed.iter().filter(|&&needed| needed).count();
    let unlisted = snapshot.threads.len() - listed;
    if unlisted > 0 && rows.len() < budget {
        let listed_resolved = (0..snapshot.threads.len())
            .filter(|&index| {
                tree.needed[index] && snapshot.threads[index].status == ThreadStatus::Resolved
            })
            .count();
        rows.push(OverviewRow {
            depth: 0,
            entry: OverviewEntry::Collapsed {
                threads: unlisted,
                resolved: tree.subtree_resolved_total - listed_resolved,
            },
        });
    }
    add_decisions(snapshot, intent, &tree.needed, budget, &mut rows);
    rows
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

/// The tree of threads with children ranked by open work, then status, then recency, and
/// which threads must have a row (open work below them, or on the focused path).
struct ThreadTree {
    roots: Vec<usize>,
    children: Vec<Vec<usize>>,
    /// Whether the thread must be listed: open work in its subtree, or on the focused path.
    needed: Vec<bool>,
    subtree_size: Vec<usize>,
    subtree_resolved: Vec<usize>,
    /// Resolved threads in the whole session.
    subtree_resolved_total: usize,
    /// The newest activity anywhere in the subtree.
    subtree_recency: Vec<u64>,
}

impl ThreadTree {
    fn new(snapshot: &Snapshot, intent: &Intent) -> ThreadTree {
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
        let subtree_resolved_total = subtree_resolved.iter().sum();
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
        let mut needed: Vec<bool> = subtree_open_work.iter().map(|&work| work > 0).collect();
        for &index in &intent.breadcrumb {
            needed[index] = true;
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
            needed,
            subtree_size,
            subtree_resolved,
            subtree_resolved_total,
            subtree_recency,
        }
    }
}

impl ThreadTree {
    /// The needed topics, last-ranked first: pushed onto a stack in this order, popping visits
    /// them in rank order, depth first.
    fn needed_roots_reversed(&self) -> impl Iterator<Item = usize> + '_ {
        self.roots
            .iter()
            .rev()
            .copied()
            .filter(|&root| self.needed[root])
    }
}

/// The rows of the first way to fit, and which threads they list.
struct TreeRows {
    rows: Vec<OverviewRow>,
    listed: Vec<bool>,
}

/// The tree: every needed thread with all its open questions, then other threads by rank
/// while the rows stay within `budget`. The rows may exceed the budget only when the needed
/// threads alone do; the caller then folds chains instead.
fn as_tree(
    snapshot: &Snapshot,
    intent: &Intent,
    tree: &ThreadTree,
    questions: &[Vec<NodeRef>],
    budget: usize,
) -> TreeRows {
    // Needed threads first, then by rank. Choosing a thread chooses its ancestors, so the
    // tree stays connected.
    let mut order: Vec<usize> = (0..snapshot.threads.len()).collect();
    order.sort_by_key(|&index| {
        let thread = &snapshot.threads[index];
        (
            std::cmp::Reverse(tree.needed[index]),
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
    let mut path = Vec::new();
    for &candidate in &order {
        // The candidate and its ancestors not chosen yet, bottom-up.
        path.clear();
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
            added += 1 + questions[index].len() as isize;
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
        if !tree.needed[candidate] && after > budget {
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
        tree,
        questions,
        chosen: &chosen,
        out: Vec::new(),
    };
    emitter.emit_tree(&tree.roots);
    TreeRows {
        rows: emitter.out,
        listed: chosen,
    }
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
    /// first; threads left out of a level are summed into one row after it.
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
            push_thread(
                &mut self.out,
                self.intent,
                (thread, Vec::new()),
                &self.questions[thread],
                depth,
            );
            stack.push(Level::new(&tree.children[thread], depth.saturating_add(1)));
        }
    }
}

/// A thread's row (with the threads folded into it) and a row for each of its open questions.
fn push_thread(
    out: &mut Vec<OverviewRow>,
    intent: &Intent,
    (thread, above): (usize, Vec<usize>),
    questions: &[NodeRef],
    depth: u8,
) {
    out.push(OverviewRow {
        depth,
        entry: OverviewEntry::Thread {
            thread,
            above,
            focused: intent.focus == Some(thread),
        },
    });
    out.extend(questions.iter().map(|&node| OverviewRow {
        depth: depth.saturating_add(1),
        entry: OverviewEntry::Question { node },
    }));
}

/// The second way to fit: only needed threads, and a chain of them with a single listed child
/// each and nothing open of their own folded into the row of the chain's last thread.
fn as_folded_chains(
    intent: &Intent,
    tree: &ThreadTree,
    questions: &[Vec<NodeRef>],
) -> Vec<OverviewRow> {
    let needed_children = |thread: usize| {
        tree.children[thread]
            .iter()
            .copied()
            .filter(|&child| tree.needed[child])
    };
    let mut out = Vec::new();
    let mut stack: Vec<(usize, u8)> = tree.needed_roots_reversed().map(|root| (root, 0)).collect();
    while let Some((start, depth)) = stack.pop() {
        let mut above = Vec::new();
        let mut thread = start;
        while questions[thread].is_empty() && intent.focus != Some(thread) {
            let mut next = needed_children(thread);
            let (Some(only), None) = (next.next(), next.next()) else {
                break;
            };
            above.push(thread);
            thread = only;
        }
        push_thread(&mut out, intent, (thread, above), &questions[thread], depth);
        let children: Vec<usize> = needed_children(thread).collect();
        stack.extend(
            children
                .into_iter()
                .rev()
                .map(|child| (child, depth.saturating_add(1))),
        );
    }
    out
}

/// The third way to fit: a row for each thread with open questions, reading its whole path,
/// and a row for each of its questions under it; threads in rank order, depth first. Stops
/// once past `budget` rows: the rest would be cut (and each path costs its depth to copy).
fn as_paths(
    intent: &Intent,
    tree: &ThreadTree,
    questions: &[Vec<NodeRef>],
    budget: usize,
) -> Vec<OverviewRow> {
    let mut out = Vec::new();
    // (thread, its depth in the tree).
    let mut stack: Vec<(usize, usize)> =
        tree.needed_roots_reversed().map(|root| (root, 0)).collect();
    // The threads above the one being visited, root first.
    let mut path: Vec<usize> = Vec::new();
    while let Some((thread, depth)) = stack.pop() {
        if out.len() > budget {
            break;
        }
        path.truncate(depth);
        if !questions[thread].is_empty() {
            push_thread(
                &mut out,
                intent,
                (thread, path.clone()),
                &questions[thread],
                0,
            );
        }
        path.push(thread);
        let below = stack.len();
        stack.extend(
            tree.children[thread]
                .iter()
                .copied()
                .filter(|&child| tree.needed[child])
                .map(|child| (child, depth + 1)),
        );
        stack[below..].reverse();
    }
    out
}

/// The last way to fit: keeps the first rows and makes the last one count the open questions
/// (of `open` in all) left without a row. A thread's row is never kept without a question
/// under it.
fn cut_to(budget: usize, open: usize, rows: &mut Vec<OverviewRow>) {
    let Some(keep) = budget.checked_sub(1) else {
        rows.clear();
        return;
    };
    rows.truncate(keep);
    while rows
        .last()
        .is_some_and(|row| matches!(row.entry, OverviewEntry::Thread { .. }))
    {
        rows.pop();
    }
    let listed = rows
        .iter()
        .filter(|row| matches!(row.entry, OverviewEntry::Question { .. }))
        .count();
    rows.push(OverviewRow {
        depth: 0,
        entry: OverviewEntry::Unlisted {
            count: open - listed,
        },
    });
}

/// Fills rows left over with decisions, each placed under its thread after its open
/// questions: the latest of each
/// listed thread first (the focused thread's before others), then the rest, newest first.
fn add_decisions(
    snapshot: &Snapshot,
    intent: &Intent,
    listed: &[bool],
    budget: usize,
    out: &mut Vec<OverviewRow>,
) {
    let room = budget.saturating_sub(out.len());
    if room == 0 {
        return;
    }
    let thread_of =
        |decision: usize| snapshot.thread_index(&snapshot.decisions[decision].spec.thread_id);
    let mut latest_of_thread = vec![None; snapshot.threads.len()];
    for decision in 0..snapshot.decisions.len() {
        if let Some(thread) = thread_of(decision).filter(|&thread| listed[thread]) {
            latest_of_thread[thread] = Some(decision);
        }
    }
    let mut candidates: Vec<usize> = (0..snapshot.decisions.len())
        .filter(|&decision| thread_of(decision).is_some_and(|thread| listed[thread]))
        .collect();
    candidates.sort_by_key(|&decision| {
        let thread = thread_of(decision);
        (
            std::cmp::Reverse(thread.is_some() && thread == intent.focus),
            std::cmp::Reverse(
                thread.is_some_and(|thread| latest_of_thread[thread] == Some(decision)),
            ),
            std::cmp::Reverse(snapshot.decisions[decision].revision),
        )
    });
    let picked: HashSet<usize> = candidates.into_iter().take(room).collect();
    if picked.is_empty() {
        return;
    }
    let mut by_thread = vec![Vec::new(); snapshot.threads.len()];
    for &decision in &picked {
        if let Some(thread) = thread_of(decision) {
            by_thread[thread].push(decision);
        }
    }
    // Each thread's decisions go after its open questions, before its children.
    let mut with_decisions = Vec::with_capacity(out.len() + picked.len());
    let mut waiting: Option<(usize, u8)> = None;
    let mut flush = |waiting: &mut Option<(usize, u8)>, into: &mut Vec<OverviewRow>| {
        if let Some((thread, depth)) = waiting.take() {
            let mine = &mut by_thread[thread];
            mine.sort_unstable();
            into.extend(mine.iter().map(|&decision| OverviewRow {
                depth: depth.saturating_add(1),
                entry: OverviewEntry::Decision { decision },
            }));
        }
    };
    for row in out.drain(..) {
        match row.entry {
            OverviewEntry::Question { .. } => {}
            OverviewEntry::Thread { thread, .. } => {
                flush(&mut waiting, &mut with_decisions);
                waiting = Some((thread, row.depth));
            }
            _ => flush(&mut waiting, &mut with_decisions),
        }
        with_decisions.push(row);
    }
    flush(&mut waiting, &mut with_decisions);
    *out = with_decisions;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intent::{resolve_intent, IntentRequest};
    use crate::test_support::{
        answer, batch, breadth_session, decision, message, resolve, snapshot_from, thread,
    };

    /// The overview's room in these tests.
    const ROWS: usize = 30;

    fn rows_of(snapshot: &Snapshot, request: &IntentRequest, budget: usize) -> Vec<OverviewRow> {
        let intent = resolve_intent(snapshot, request).unwrap();
        choose_overview_rows(snapshot, &intent, budget)
    }

    /// The path of threads, root first, down to `thread`.
    fn path_to(snapshot: &Snapshot, thread: usize) -> Vec<usize> {
        let mut path = vec![thread];
        while let Some(parent) = snapshot.parent_of(*path.last().unwrap()) {
            path.push(parent);
        }
        path.reverse();
        path
    }

    /// Each listed open question with the path its rows show above it: the thread rows that
    /// enclose it by depth, each with the threads folded into it.
    fn questions_with_shown_paths(rows: &[OverviewRow]) -> Vec<(NodeRef, Vec<usize>)> {
        let mut enclosing: Vec<Vec<usize>> = Vec::new();
        let mut out = Vec::new();
        for row in rows {
            let depth = usize::from(row.depth);
            match &row.entry {
                OverviewEntry::Thread { thread, above, .. } => {
                    enclosing.truncate(depth);
                    assert_eq!(enclosing.len(), depth, "a thread row under its parent's");
                    enclosing.push(above.iter().copied().chain([*thread]).collect());
                }
                OverviewEntry::Question { node } => {
                    let path = enclosing[..depth].concat();
                    out.push((*node, path));
                }
                _ => {}
            }
        }
        out
    }

    /// Checks that every open question of the session has a row under its whole path.
    fn assert_every_question_listed_under_its_path(snapshot: &Snapshot, rows: &[OverviewRow]) {
        let shown = questions_with_shown_paths(rows);
        let open: Vec<NodeRef> = snapshot
            .timeline
            .iter()
            .map(|entry| entry.node)
            .filter(|&node| snapshot.is_open_question(node))
            .collect();
        assert_eq!(shown.len(), open.len(), "one row per open question");
        for (node, path) in shown {
            let NodeRef::Batch(batch) = node else {
                panic!("only batches are asked here")
            };
            let thread = snapshot
                .thread_index(&snapshot.batches[batch].spec.thread_id)
                .unwrap();
            assert_eq!(path, path_to(snapshot, thread), "the path above {node:?}");
        }
    }

    #[test]
    fn every_open_question_keeps_a_row_under_its_path_when_the_tree_does_not_fit() {
        let snapshot = breadth_session(20, 180, 15);
        for budget in [30, 32, 45, 60] {
            let rows = rows_of(&snapshot, &IntentRequest::default(), budget);
            assert!(rows.len() <= budget, "{} rows for {budget}", rows.len());
            assert_every_question_listed_under_its_path(&snapshot, &rows);
            assert!(
                rows.iter().any(|row| matches!(
                    &row.entry,
                    OverviewEntry::Thread { above, .. } if !above.is_empty()
                )),
                "the tree of open work alone needs more rows than {budget}: paths fold"
            );
        }
    }

    #[test]
    fn a_deep_path_with_nothing_open_on_the_way_folds_into_one_row() {
        let mut events = vec![thread("t0", None)];
        for level in 1..6 {
            events.push(thread(
                &format!("t{level}"),
                Some(&format!("t{}", level - 1)),
            ));
        }
        events.push(batch("deep", "t5"));
        events.push(batch("top", "t0"));
        for side in 0..20 {
            events.push(thread(&format!("s{side}"), Some("t0")));
        }
        let snapshot = snapshot_from(&events);
        let rows = rows_of(&snapshot, &IntentRequest::default(), 5);
        assert_every_question_listed_under_its_path(&snapshot, &rows);
        assert_eq!(
            rows[2].entry,
            OverviewEntry::Thread {
                thread: 5,
                above: vec![1, 2, 3, 4],
                focused: false
            },
            "t1 › t2 › t3 › t4 › t5 in one row, under t0's: {rows:?}"
        );
        assert_eq!(
            rows.last().map(|row| &row.entry),
            Some(&OverviewEntry::Collapsed {
                threads: 20,
                resolved: 0
            }),
            "the threads with nothing open are counted"
        );
    }

    #[test]
    fn when_even_folded_paths_do_not_fit_the_last_row_counts_the_questions_left_out() {
        let snapshot = breadth_session(20, 180, 500);
        let budget = 40;
        let rows = rows_of(&snapshot, &IntentRequest::default(), budget);
        assert_eq!(rows.len(), budget);
        let listed = questions_with_shown_paths(&rows).len();
        assert_eq!(
            rows.last().map(|row| &row.entry),
            Some(&OverviewEntry::Unlisted {
                count: 500 - listed
            })
        );
        assert!(listed > 0);
        for (index, row) in rows.iter().enumerate().skip(1) {
            if matches!(rows[index - 1].entry, OverviewEntry::Thread { .. }) {
                assert!(
                    row.depth > rows[index - 1].depth,
                    "a thread's row is followed by what is under it"
                );
            }
        }
        assert!(rows_of(&snapshot, &IntentRequest::default(), 0).is_empty());
        assert_eq!(
            rows_of(&snapshot, &IntentRequest::default(), 1)[0].entry,
            OverviewEntry::Unlisted { count: 500 }
        );
    }

    #[test]
    fn a_thread_lists_all_its_open_questions_when_they_fit() {
        let mut events = vec![thread("main", None)];
        for index in 0..7 {
            events.push(batch(&format!("b{index}"), "main"));
        }
        events.push(answer("b3"));
        let snapshot = snapshot_from(&events);
        let rows = rows_of(&snapshot, &IntentRequest::default(), ROWS);
        assert_every_question_listed_under_its_path(&snapshot, &rows);
        assert_eq!(questions_with_shown_paths(&rows).len(), 6);
    }

    #[test]
    fn the_latest_decision_of_each_listed_thread_comes_before_older_ones() {
        let snapshot = snapshot_from(&[
            thread("main", None),
            thread("side", Some("main")),
            decision("d0", "side", "side chose A"),
            decision("d1", "main", "main chose B"),
            decision("d2", "main", "main chose C"),
            decision("d3", "main", "main chose D"),
            batch("b", "main"),
        ]);
        // Two threads, a question and the room for two decisions.
        let rows = rows_of(&snapshot, &IntentRequest::default(), 5);
        let decisions: Vec<usize> = rows
            .iter()
            .filter_map(|row| match row.entry {
                OverviewEntry::Decision { decision } => Some(decision),
                _ => None,
            })
            .collect();
        assert_eq!(decisions, vec![3, 0], "each thread's latest: {rows:?}");
        assert_eq!(
            rows[1].entry,
            OverviewEntry::Question {
                node: NodeRef::Batch(0)
            },
            "a thread's open question comes before its decisions"
        );
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
        let rows = rows_of(&snapshot, &request, ROWS);
        assert!(
            rows.len() <= budget,
            "{} rows for a budget of {budget}",
            rows.len()
        );
        let questions: Vec<&OverviewEntry> = rows
            .iter()
            .map(|row| &row.entry)
            .filter(|entry| matches!(entry, OverviewEntry::Question { .. }))
            .collect();
        assert_eq!(questions.len(), 2, "both open batches are listed");
        let listed = rows
            .iter()
            .filter(|row| matches!(row.entry, OverviewEntry::Thread { .. }))
            .count();
        let counted: usize = rows
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
        let rows = rows_of(&snapshot, &IntentRequest::default(), ROWS);
        let order: Vec<usize> = rows
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
                rows_of(&snapshot, &IntentRequest::default(), ROWS)
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
