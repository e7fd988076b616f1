//! `chatsurface snapshot LOG`: the folded snapshot as JSON on stdout, or with `--tree` the
//! session's threads as an indented tree (for terminals and diffs).

use super::{load, print};
use crate::error::AppError;
use chatsurface_compositor::one_line;
use chatsurface_model::{NodeRef, Snapshot, ThreadStatus};
use std::fmt::Write as _;
use std::path::Path;

/// Longest title or question printed in the tree, in chars; the rest is cut with "…".
const TREE_TITLE_CHARS: usize = 120;

/// Prints the snapshot of the log at `path`, as JSON or, with `tree`, as [`tree_text`].
pub(super) fn run(
    path: &Path,
    format: Option<crate::agents::Format>,
    tree: bool,
) -> Result<(), AppError> {
    let loaded = load(path, format)?;
    if tree {
        return print(&tree_text(&loaded.snapshot));
    }
    let json = serde_json::to_string_pretty(&loaded.snapshot).map_err(|error| {
        AppError::BadInput(format!(
            "{}: cannot encode the snapshot: {error}",
            path.display()
        ))
    })?;
    print(&format!("{json}\n"))
}

/// The session as text: its title, then each thread indented under its parent (in the order
/// they were opened) with its status and counts, its open questions (`?`, `!` for a pending
/// confirmation) and its decisions (`◆`) under it. The thread the session was last active in
/// is marked `← latest`. Agent text is made safe for a terminal first.
fn tree_text(snapshot: &Snapshot) -> String {
    let count = snapshot.threads.len();
    let (roots, children) = snapshot.thread_tree();
    let mut open = vec![Vec::new(); count];
    for entry in &snapshot.timeline {
        if snapshot.is_open_question(entry.node) {
            open[entry.thread].push(entry.node);
        }
    }
    let mut decisions = vec![Vec::new(); count];
    for decision in &snapshot.decisions {
        if let Some(thread) = snapshot.thread_index(&decision.spec.thread_id) {
            decisions[thread].push(decision.spec.text.as_str());
        }
    }
    let latest = (0..count).max_by_key(|&thread| snapshot.threads[thread].last_activity_seq);

    let mut out = format!("{}\n", one_line(snapshot.title(), TREE_TITLE_CHARS));
    // An explicit stack, not recursion: an agent can nest threads 50,000 deep.
    let mut stack: Vec<(usize, usize)> = roots.iter().rev().map(|&root| (root, 0)).collect();
    while let Some((thread, depth)) = stack.pop() {
        let node = &snapshot.threads[thread];
        let indent = "  ".repeat(depth);
        let (mark, status) = match node.status {
            ThreadStatus::Active => ("●", "active"),
            ThreadStatus::Parked => ("‖", "parked"),
            ThreadStatus::Resolved => ("✓", "resolved"),
        };
        let mut facts = vec![status.to_owned(), counted(node.messages, "message")];
        if node.open_questions > 0 {
            facts.push(counted(node.open_questions, "open question"));
        }
        if node.pending_confirmations > 0 {
            facts.push(counted(node.pending_confirmations, "pending confirmation"));
        }
        if node.decisions > 0 {
            facts.push(counted(node.decisions, "decision"));
        }
        let latest_mark = if latest == Some(thread) {
            "  ← latest"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{indent}{mark} {}  [{}]{latest_mark}",
            one_line(&node.spec.title, TREE_TITLE_CHARS),
            facts.join(" · ")
        );
        for &question in &open[thread] {
            let (sign, words) = question_words(snapshot, question);
            let _ = writeln!(
                out,
                "{indent}  {sign} {}",
                one_line(&words, TREE_TITLE_CHARS)
            );
        }
        for text in &decisions[thread] {
            let _ = writeln!(out, "{indent}  ◆ {}", one_line(text, TREE_TITLE_CHARS));
        }
        stack.extend(
            children[thread]
                .iter()
                .rev()
                .map(|&child| (child, depth + 1)),
        );
    }
    out
}

/// "1 message", "3 messages".
fn counted(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// An open question's sign and words: `?` and a batch's title with its item count, or `!` and
/// a confirmation's title (its message when untitled).
fn question_words(snapshot: &Snapshot, node: NodeRef) -> (char, String) {
    match node {
        NodeRef::Batch(index) => {
            let batch = &snapshot.batches[index];
            let items = counted(batch.spec.items.len(), "item");
            ('?', format!("{} ({items})", batch.display_title()))
        }
        NodeRef::Confirmation(index) => {
            let spec = &snapshot.confirmations[index].spec;
            (
                '!',
                spec.title.clone().unwrap_or_else(|| spec.message.clone()),
            )
        }
        _ => (' ', String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chatsurface_model::{Event, EventBody};

    fn fold(bodies: &[&str]) -> Snapshot {
        Snapshot::from_events(bodies.iter().enumerate().map(|(index, body)| Event {
            v: 1,
            seq: index as u64 + 1,
            at: "2026-12-05T00:00:00Z".into(),
            body: serde_json::from_str::<EventBody>(body).unwrap(),
        }))
        .unwrap()
    }

    #[test]
    fn the_tree_nests_threads_with_their_counts_questions_and_decisions() {
        let snapshot = fold(&[
            r#"{"type":"session_started","session":{"id":"s","title":"Release 4.13"}}"#,
            r#"{"type":"thread_opened","thread":{"id":"main","parent":null,"title":"Plan","kind":"topic"}}"#,
            r#"{"type":"thread_opened","thread":{"id":"side","parent":"main","title":"Side \u001b[31mquest","kind":"branch"}}"#,
            r#"{"type":"thread_opened","thread":{"id":"deep","parent":"side","title":"Deeper","kind":"exploration"}}"#,
            r#"{"type":"message_appended","message":{"id":"m1","thread_id":"main","role":"agent","text":"hi"}}"#,
            r#"{"type":"decision_recorded","decision":{"id":"d1","thread_id":"side","text":"Use JSONL"}}"#,
            r#"{"type":"thread_status_changed","thread_id":"side","status":"parked"}"#,
            r#"{"type":"clarification_batch_opened","batch":{"id":"b","thread_id":"deep","title":"Pick","items":[{"id":"q","prompt":"Which?","kind":"choice","options":[{"id":"a","label":"A"},{"id":"b","label":"B"}]}]}}"#,
            r#"{"type":"thread_opened","thread":{"id":"other","parent":null,"title":"Other topic","kind":"topic"}}"#,
        ]);
        assert_eq!(
            tree_text(&snapshot),
            "Release 4.13\n\
             ● Plan  [active · 1 message]\n\
             \x20 ‖ Side ^[[31mquest  [parked · 0 messages · 1 decision]\n\
             \x20   ◆ Use JSONL\n\
             \x20   ● Deeper  [active · 0 messages · 1 open question]\n\
             \x20     ? Pick (1 item)\n\
             ● Other topic  [active · 0 messages]  ← latest\n"
        );
    }

    #[test]
    fn a_chain_fifty_thousand_deep_prints_without_recursion() {
        let text = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let mut bodies = vec![r#"{"type":"thread_opened","thread":{"id":"t0","parent":null,"title":"t0","kind":"topic"}}"#.to_owned()];
                for level in 1..50_000 {
                    bodies.push(format!(
                        r#"{{"type":"thread_opened","thread":{{"id":"t{level}","parent":"t{}","title":"t{level}","kind":"branch"}}}}"#,
                        level - 1
                    ));
                }
                let bodies: Vec<&str> = bodies.iter().map(String::as_str).collect();
                tree_text(&fold(&bodies)).lines().count()
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(text, 50_001);
    }
}
