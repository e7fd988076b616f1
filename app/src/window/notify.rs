//! Desktop notifications: a question that arrives in another session than the one shown is
//! announced through the desktop's notification server (freedesktop notifications over D-Bus,
//! by notify-rust), so an operator looking elsewhere learns of it. `--no-notify` turns it off.
//!
//! [`Announcer`] decides what is news and words it; it runs in the desk, without D-Bus, and is
//! tested there. [`Notifier`] only delivers, on a thread of its own, so a notification server
//! that is slow or missing never holds up a frame. Nothing here moves the keyboard focus or
//! the session shown: a notification must never take an answer being typed away from the
//! human.

use super::shelf::WaitingQuestion;
use chatsurface_compositor::{one_line, InboxRow, WaitingKind};
use std::collections::HashSet;
use std::sync::mpsc::{self, Sender};

/// The longest a notification's summary gets, in characters.
const SUMMARY_CHARS: usize = 120;
/// The longest a notification's body gets, in characters.
const BODY_CHARS: usize = 240;

/// One notification, worded and made safe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct DesktopNotice {
    /// The first line: who asks what.
    pub summary: String,
    /// Where it waits, and how to answer it.
    pub body: String,
}

/// Text a notification server may read as markup (the specification allows `<b>`, `<a>` and
/// entities in the body) with the markup characters escaped, so an agent's words show as
/// written.
fn escape_markup(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

impl DesktopNotice {
    fn of(row: &InboxRow) -> DesktopNotice {
        let verb = match row.kind {
            WaitingKind::Batch => "asks",
            WaitingKind::Confirmation => "asks to confirm",
        };
        let place = if row.thread.is_empty() {
            row.session.clone()
        } else {
            format!("{} › {}", row.session, row.thread)
        };
        DesktopNotice {
            summary: one_line(
                &format!("{} {verb}: {}", row.agent, row.asks),
                SUMMARY_CHARS,
            ),
            body: escape_markup(&format!(
                "{} — i in chatsurface lists what waits",
                one_line(&place, BODY_CHARS)
            )),
        }
    }
}

/// What has been announced: every waiting question seen so far.
#[derive(Debug, Default)]
pub(super) struct Announcer {
    /// `None` until the first look, whose questions were there before the window was.
    known: Option<HashSet<WaitingQuestion>>,
}

impl Announcer {
    /// A notice for each question in `waiting` not seen before and not in the session shown.
    /// The first call only learns what waits: those questions are in the inbox and the
    /// header's count, not news.
    pub(super) fn fresh(&mut self, waiting: &[(WaitingQuestion, InboxRow)]) -> Vec<DesktopNotice> {
        let first = self.known.is_none();
        let known = self.known.get_or_insert_with(HashSet::new);
        let notices = waiting
            .iter()
            .filter(|(question, row)| known.insert(question.clone()) && !first && !row.here)
            .map(|(_, row)| DesktopNotice::of(row))
            .collect();
        // A question answered or withdrawn is forgotten: the same node cannot wait again.
        known.retain(|question| waiting.iter().any(|(waiting, _)| waiting == question));
        notices
    }
}

/// Delivers notices to the desktop's notification server, from a thread of its own.
#[derive(Debug)]
pub(super) struct Notifier {
    notices: Sender<DesktopNotice>,
}

impl Notifier {
    /// Starts the delivering thread; it ends when the notifier is dropped.
    pub(super) fn start() -> Notifier {
        let (notices, incoming) = mpsc::channel::<DesktopNotice>();
        let started = std::thread::Builder::new()
            .name("notifier".into())
            .spawn(move || {
                let mut warned = false;
                while let Ok(notice) = incoming.recv() {
                    let shown = notify_rust::Notification::new()
                        .appname("chatsurface")
                        .summary(&notice.summary)
                        .body(&notice.body)
                        .show();
                    if let Err(error) = shown {
                        // Said once: a desktop without a notification server stays quiet.
                        if !warned {
                            tracing::warn!("cannot show a desktop notification: {error}");
                            warned = true;
                        }
                    }
                }
            });
        if let Err(error) = started {
            tracing::warn!("cannot start the desktop notifications: {error}");
        }
        Notifier { notices }
    }

    /// Hands a notice to the delivering thread.
    pub(super) fn send(&self, notice: DesktopNotice) {
        // A thread that could not start takes nothing; the warning above said why.
        let _ = self.notices.send(notice);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chatsurface_model::NodeRef;
    use std::path::PathBuf;

    fn waiting(log: &str, index: usize, here: bool) -> (WaitingQuestion, InboxRow) {
        (
            WaitingQuestion {
                log: PathBuf::from(log),
                node: NodeRef::Batch(index),
            },
            InboxRow {
                kind: WaitingKind::Batch,
                agent: "codex".into(),
                session: format!("Session {log}"),
                thread: "Main".into(),
                asks: format!("Question {index}?"),
                waited: None,
                here,
            },
        )
    }

    #[test]
    fn only_questions_new_since_the_first_look_and_outside_the_session_shown_are_news() {
        let mut announcer = Announcer::default();
        assert!(announcer.fresh(&[waiting("a", 0, false)]).is_empty());
        let news = announcer.fresh(&[
            waiting("a", 0, false),
            waiting("b", 0, false),
            waiting("c", 0, true),
        ]);
        assert_eq!(
            news,
            [DesktopNotice {
                summary: "codex asks: Question 0?".into(),
                body: "Session b › Main — i in chatsurface lists what waits".into(),
            }]
        );
        assert!(
            announcer
                .fresh(&[waiting("b", 0, false), waiting("c", 0, false)])
                .is_empty(),
            "each question is announced once, and a shown one not when moving away from it"
        );
    }

    #[test]
    fn an_agents_words_cannot_act_as_markup_or_controls() {
        let (_, mut row) = waiting("a", 0, false);
        row.asks = "<a href=\"x\">rm</a>\u{202E}\x1b[2J\nsecond line".into();
        row.session = "<b>&</b>".into();
        let notice = DesktopNotice::of(&row);
        assert!(
            !notice.summary.contains(['\n', '\u{202E}', '\x1b']),
            "{notice:?}"
        );
        assert!(
            notice.body.starts_with("&lt;b&gt;&amp;&lt;/b&gt; › Main"),
            "{notice:?}"
        );
    }
}
