//! Search in one session: which nodes say what the operator typed, and how Layout marks them.
//!
//! [`find_in_session`] reads every node's words as the transcript shows them (messages and
//! tool output, folded or not; a batch's title, prompts, options and answers; a
//! confirmation's words and the human's comment; decisions; thread titles) and returns the
//! nodes that contain the query, ignoring case (Unicode's, so «Поиск» finds «поиск»), newest
//! first. The window keeps the matches and which one is current and hands them over as a
//! [`SearchView`]; Layout draws the search bar and marks the threads with matches in the
//! overview and the map. [`nodes_to_unfold`] says what must be unfolded for a match to show.
//! This module reads the snapshot only; it never decides what the transcript shows.

use crate::color::Color;
use crate::text::SpanStyle;
use chatsurface_model::{NodeRef, Snapshot, ThreadStatus};
use regex::{Regex, RegexBuilder};
use std::sync::Arc;

/// The longest query searched for, in characters.
pub const QUERY_CHARS: usize = 200;

/// One node that says what was searched for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchHit {
    /// The node.
    pub node: NodeRef,
    /// Its thread's index in the snapshot.
    pub thread: usize,
}

/// The search as the window hands it to the pipeline.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchView {
    /// What was typed.
    pub query: String,
    /// The nodes that match, newest first (shared, since the window hands them over with
    /// every frame).
    pub hits: Arc<[SearchHit]>,
    /// The match shown now, an index into `hits`.
    pub current: Option<usize>,
}

impl SearchView {
    /// How many matches there are in each thread, by the thread's index.
    pub(crate) fn per_thread(&self, threads: usize) -> Vec<usize> {
        let mut counts = vec![0; threads];
        for hit in self.hits.iter() {
            if let Some(count) = counts.get_mut(hit.thread) {
                *count += 1;
            }
        }
        counts
    }
}

/// Marks where a query occurs in a card's text, so Layout draws the matched words apart.
#[derive(Clone, Debug)]
pub(crate) struct Highlighter {
    matcher: Regex,
}

impl Highlighter {
    /// The highlighter for a query; none for an empty one.
    pub(crate) fn new(query: &str) -> Option<Highlighter> {
        matcher(query).map(|matcher| Highlighter { matcher })
    }

    /// The spans with every match cut out into a span of its own, bold in `color`.
    pub(crate) fn mark(
        &self,
        spans: Vec<(String, SpanStyle)>,
        color: Color,
    ) -> Vec<(String, SpanStyle)> {
        let mut marked = Vec::with_capacity(spans.len());
        for (words, style) in spans {
            let mut at = 0;
            for found in self.matcher.find_iter(&words) {
                if found.start() > at {
                    marked.push((words[at..found.start()].to_owned(), style));
                }
                let strong = SpanStyle {
                    strong: true,
                    color: Some(color),
                    ..style
                };
                marked.push((found.as_str().to_owned(), strong));
                at = found.end();
            }
            if at == 0 {
                marked.push((words, style));
            } else if at < words.len() {
                marked.push((words[at..].to_owned(), style));
            }
        }
        marked
    }
}

fn matcher(query: &str) -> Option<Regex> {
    let query: String = query.trim().chars().take(QUERY_CHARS).collect();
    if query.is_empty() {
        return None;
    }
    // A literal, so what is typed is never a pattern; the crate folds case by Unicode's rules
    // and searches long texts with its literal optimisations.
    RegexBuilder::new(&regex::escape(&query))
        .case_insensitive(true)
        .build()
        .ok()
}

/// Every piece of words a node shows, as the transcript shows them: a message's text (tool
/// output too), a decision, a thread's title; a confirmation's title, words and the human's
/// comment; a batch's title, each item's header, prompt and options, and the answers typed.
/// What search looks in, here and in the app's index of every session.
pub fn node_words(snapshot: &Snapshot, node: NodeRef) -> Vec<&str> {
    match node {
        NodeRef::Message(index) => vec![snapshot.messages[index].spec.text.as_str()],
        NodeRef::Decision(index) => vec![snapshot.decisions[index].spec.text.as_str()],
        NodeRef::Thread(index) => vec![snapshot.threads[index].spec.title.as_str()],
        NodeRef::Confirmation(index) => {
            let confirmation = &snapshot.confirmations[index];
            let spec = &confirmation.spec;
            let mut words = vec![spec.message.as_str()];
            words.extend(spec.title.as_deref());
            words.extend(confirmation.outcome_comment.as_deref());
            words
        }
        NodeRef::Batch(index) => {
            let batch = &snapshot.batches[index];
            let spec = &batch.spec;
            let mut words: Vec<&str> = spec.title.as_deref().into_iter().collect();
            for item in &spec.items {
                words.push(&item.prompt);
                words.extend(item.header.as_deref());
                for option in &item.options {
                    words.push(&option.label);
                    words.extend(option.detail.as_deref());
                }
            }
            if let Some(response) = &batch.response {
                words.extend(response.general.as_deref());
                words.extend(
                    response
                        .answers
                        .iter()
                        .filter_map(|answer| answer.text.as_deref()),
                );
            }
            words
        }
    }
}

/// Whether any of a node's words contain the query.
fn says(snapshot: &Snapshot, node: NodeRef, matcher: &Regex) -> bool {
    node_words(snapshot, node)
        .into_iter()
        .any(|words| matcher.is_match(words))
}

/// The nodes of the session that contain `query` (case ignored), newest first; none for an
/// empty query.
pub fn find_in_session(snapshot: &Snapshot, query: &str) -> Vec<SearchHit> {
    let Some(matcher) = matcher(query) else {
        return Vec::new();
    };
    snapshot
        .timeline
        .iter()
        .rev()
        .filter(|entry| says(snapshot, entry.node, &matcher))
        .map(|entry| SearchHit {
            node: entry.node,
            thread: entry.thread,
        })
        .collect()
}

/// What must be unfolded for `node` to show as a card of its own, whole: the node itself,
/// and every resolved thread from its own up to its topic (a resolved thread folds into one
/// summary line, with all it holds). These go into the request's `expanded`.
pub fn nodes_to_unfold(snapshot: &Snapshot, node: NodeRef) -> Vec<NodeRef> {
    let mut unfold = vec![node];
    let thread = snapshot
        .timeline
        .iter()
        .find(|entry| entry.node == node)
        .map(|entry| entry.thread);
    let mut current = thread;
    while let Some(index) = current {
        if snapshot.threads[index].status == ThreadStatus::Resolved {
            unfold.push(NodeRef::Thread(index));
        }
        current = snapshot.parent_of(index);
    }
    unfold
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{answer, batch, decision, message, resolve, snapshot_from, thread};

    fn session() -> Snapshot {
        snapshot_from(&[
            thread("main", None),
            message("m1", "main", "Поиск по журналу работает."),
            thread("side", Some("main")),
            message(
                "m2",
                "side",
                &format!("{}needle at the end", "x".repeat(5000)),
            ),
            resolve("side"),
            batch("b1", "main"),
            answer("b1"),
            decision("d1", "main", "Use the NEEDLE approach"),
        ])
    }

    #[test]
    fn finds_words_in_any_case_in_folded_output_and_decisions_newest_first() {
        let snapshot = session();
        let found = |query: &str| -> Vec<NodeRef> {
            find_in_session(&snapshot, query)
                .iter()
                .map(|hit| hit.node)
                .collect()
        };
        assert_eq!(
            found("needle"),
            vec![NodeRef::Decision(0), NodeRef::Message(1)]
        );
        assert_eq!(found("ПОИСК"), vec![NodeRef::Message(0)]);
        assert_eq!(found("which?"), vec![NodeRef::Batch(0)], "a prompt");
        assert_eq!(found("Thread side"), vec![NodeRef::Thread(1)]);
        assert_eq!(
            found(".*"),
            Vec::<NodeRef>::new(),
            "a literal, not a pattern"
        );
        assert!(found("   ").is_empty());
        assert!(found("absent").is_empty());
    }

    #[test]
    fn a_highlighter_cuts_each_match_into_a_bold_coloured_span_of_its_own() {
        let marker = Color::hex(0xffcc00);
        let plain = SpanStyle::default();
        let code = SpanStyle {
            mono: true,
            ..SpanStyle::default()
        };
        let marked = Highlighter::new("ПОИСК").unwrap().mark(
            vec![
                ("Поиск и поиск.".to_owned(), plain),
                ("no match".to_owned(), code),
                ("x поиск".to_owned(), code),
            ],
            marker,
        );
        let strong = |style: SpanStyle| SpanStyle {
            strong: true,
            color: Some(marker),
            ..style
        };
        assert_eq!(
            marked,
            vec![
                ("Поиск".to_owned(), strong(plain)),
                (" и ".to_owned(), plain),
                ("поиск".to_owned(), strong(plain)),
                (".".to_owned(), plain),
                ("no match".to_owned(), code),
                ("x ".to_owned(), code),
                ("поиск".to_owned(), strong(code)),
            ]
        );
        assert!(Highlighter::new("  ").is_none());
    }

    #[test]
    fn a_match_in_a_resolved_branch_unfolds_the_branch_and_itself() {
        let snapshot = session();
        assert_eq!(
            nodes_to_unfold(&snapshot, NodeRef::Message(1)),
            vec![NodeRef::Message(1), NodeRef::Thread(1)]
        );
        assert_eq!(
            nodes_to_unfold(&snapshot, NodeRef::Message(0)),
            vec![NodeRef::Message(0)]
        );
    }
}
