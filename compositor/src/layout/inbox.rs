//! The questions inbox's panel: a heading that counts what waits and where, the keys, and one
//! row per waiting question, oldest first, drawn over the frame as a [`ListPanel`].

use super::list_panel::{ListPanel, ListRow};
use crate::inbox::{InboxView, WaitingKind};
use crate::theme::Style;
use crate::words::{Lang, Word};

/// The separator between a thread's titles from its topic down, as the overview writes it.
const PATH: &str = " › ";

/// The inbox as a panel of rows: what each question asks, then who asks it, in which session
/// and thread and for how long, and a pill saying whether it is a question or a confirmation.
pub(super) fn inbox_panel(view: &InboxView, style: &Style, lang: Lang) -> ListPanel {
    let palette = style.palette;
    let rows = view
        .rows
        .iter()
        .map(|row| {
            let mut parts = Vec::new();
            if row.here {
                parts.push(lang.word(Word::InThisSession).to_owned());
            }
            parts.push(row.agent.clone());
            parts.push(if row.thread.is_empty() {
                row.session.clone()
            } else {
                format!("{}{PATH}{}", row.session, row.thread)
            });
            parts.extend(row.waited.map(|waited| lang.waited(waited)));
            let pill = match row.kind {
                WaitingKind::Batch => (lang.word(Word::QuestionMark), palette.question),
                WaitingKind::Confirmation => (lang.word(Word::ConfirmationMark), palette.danger),
            };
            ListRow {
                title: row.asks.clone(),
                detail: parts.join(" · "),
                detail_color: if row.here {
                    palette.accent
                } else {
                    palette.muted
                },
                pill: Some((pill.0.to_owned(), pill.1)),
            }
        })
        .collect();
    ListPanel {
        heading: lang.word(Word::InboxTitle).to_owned(),
        count: lang.waiting_across(view.rows.len(), view.sessions),
        keys: lang.word(Word::InboxKeys),
        empty: lang.word(Word::InboxEmpty),
        rows,
        selected: view.selected,
    }
}

#[cfg(test)]
mod tests {
    use super::super::list_panel::tests::{overlay_hits, rows_hit};
    use super::*;
    use crate::inbox::InboxRow;
    use crate::intent::Overlay;
    use crate::theme::{Density, Theme};
    use std::time::Duration;

    fn row(index: usize) -> InboxRow {
        InboxRow {
            kind: if index.is_multiple_of(2) {
                WaitingKind::Batch
            } else {
                WaitingKind::Confirmation
            },
            agent: "claude-code".into(),
            session: format!("Session {index}"),
            thread: "Release › Rollback".into(),
            asks: format!("Question {index}?"),
            waited: Some(Duration::from_secs(90 + index as u64 * 60)),
            here: index == 0,
        }
    }

    #[test]
    fn each_row_says_what_is_asked_by_whom_where_and_for_how_long() {
        let view = InboxView {
            rows: (0..3).map(row).collect(),
            selected: 1,
            sessions: 3,
        };
        let panel = inbox_panel(
            &view,
            &Style::new(Theme::Dark, Density::Comfortable),
            Lang::En,
        );
        assert_eq!(panel.count, "3 waiting in 3 sessions");
        assert_eq!(panel.rows[1].title, "Question 1?");
        assert_eq!(
            panel.rows[1].detail,
            "claude-code · Session 1 › Release › Rollback · waited 2 min"
        );
        assert!(panel.rows[0].detail.starts_with("this session · "));
        let pills: Vec<&str> = panel
            .rows
            .iter()
            .map(|row| row.pill.as_ref().unwrap().0.as_str())
            .collect();
        assert_eq!(pills, ["question", "confirm", "question"]);
        assert_eq!(
            inbox_panel(
                &view,
                &Style::new(Theme::Dark, Density::Comfortable),
                Lang::Ru
            )
            .count,
            "3 ждут в 3 сессиях"
        );
    }

    #[test]
    fn the_selected_question_is_drawn_however_far_down_the_inbox_it_is() {
        let view = InboxView {
            rows: (0..80).map(row).collect(),
            selected: 71,
            sessions: 80,
        };
        let shown = rows_hit(&overlay_hits(Overlay::Inbox(view), 600.0));
        assert!(shown.contains(&71), "rows drawn: {shown:?}");
        assert!(!shown.contains(&0));
    }

    #[test]
    fn an_empty_inbox_says_nothing_waits() {
        let panel = inbox_panel(
            &InboxView::default(),
            &Style::new(Theme::Dark, Density::Comfortable),
            Lang::En,
        );
        assert_eq!(panel.empty, "Nothing waits in any session");
        assert_eq!(panel.count, "0 waiting in 0 sessions");
    }
}
