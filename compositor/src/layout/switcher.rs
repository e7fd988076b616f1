//! The session switcher's panel: the filter line, the keys, and one row per matching session,
//! drawn over the frame as a [`ListPanel`].

use super::list_panel::{ListPanel, ListRow};
use crate::switcher::SwitcherView;
use crate::theme::Style;
use crate::words::{Lang, Noun, Word};

/// The switcher as a panel of rows: each session's title, then its agent, project, last
/// activity and size, and a pill counting what waits in it.
pub(super) fn switcher_panel(view: &SwitcherView, style: &Style, lang: Lang) -> ListPanel {
    let palette = style.palette;
    let rows = view
        .rows
        .iter()
        .map(|row| {
            let mut parts = vec![row.agent.clone()];
            parts.extend(row.project.clone());
            parts.push(row.last_activity.clone());
            parts.push(lang.count(row.messages, Noun::Message));
            if row.shown {
                parts.insert(0, lang.word(Word::ShownNow).to_owned());
            }
            ListRow {
                title: row.title.clone(),
                detail: parts.join(" · "),
                detail_color: if row.shown {
                    palette.accent
                } else {
                    palette.muted
                },
                pill: (row.waiting > 0).then(|| {
                    (
                        lang.count(row.waiting, Noun::OpenQuestion),
                        palette.question,
                    )
                }),
            }
        })
        .collect();
    ListPanel {
        heading: format!("› {}▏", view.query),
        count: format!(
            "{} / {}",
            view.rows.len(),
            lang.count(view.total, Noun::Session)
        ),
        keys: lang.word(Word::SwitcherKeys),
        empty: lang.word(if view.scanning {
            Word::ReadingSessions
        } else {
            Word::NoSessionMatches
        }),
        rows,
        selected: view.selected,
    }
}

#[cfg(test)]
mod tests {
    use super::super::list_panel::tests::{overlay_hits, rows_hit};
    use super::super::HitTarget;
    use crate::intent::Overlay;
    use crate::switcher::{SwitcherRow, SwitcherView};
    use crate::units::Rect;

    fn hits_for(view: SwitcherView, height: f32) -> Vec<(Rect, HitTarget)> {
        overlay_hits(Overlay::Switcher(view), height)
    }

    fn rows(count: usize) -> Vec<SwitcherRow> {
        (0..count)
            .map(|index| SwitcherRow {
                agent: "claude-code".into(),
                title: format!("Session {index}"),
                project: Some("/home/op/project".into()),
                last_activity: "2026-12-04 01:00".into(),
                messages: 12,
                waiting: index % 3,
                shown: index == 0,
            })
            .collect()
    }

    #[test]
    fn the_selected_row_is_drawn_however_far_down_the_list_it_is() {
        let view = SwitcherView {
            rows: rows(60),
            selected: 47,
            total: 60,
            ..SwitcherView::default()
        };
        let hits = hits_for(view, 600.0);
        let shown = rows_hit(&hits);
        assert!(shown.contains(&47), "rows drawn: {shown:?}");
        assert!(shown.len() < 60, "a 600 px frame cannot hold 60 rows");
        assert!(!shown.contains(&0));
        // The switcher lies over everything, so its parts are hit first.
        assert!(matches!(hits[0].1, HitTarget::OverlayRow(_)));
        let panel = hits
            .iter()
            .find(|(_, target)| *target == HitTarget::OverlayPanel)
            .map(|(rect, _)| *rect)
            .unwrap();
        assert!(panel.bottom().as_f32() <= 600.0);
    }

    #[test]
    fn a_selection_past_the_rows_is_pulled_back_and_hostile_titles_are_drawn() {
        let mut rows = rows(3);
        rows[1].title = "\u{202E}evil\u{0301}\u{0301}\u{0301}\u{0301}\u{0301}\u{0301}\u{0301}\u{0301}\u{0301}\x1b[31m".repeat(400);
        let view = SwitcherView {
            rows,
            selected: 9,
            total: 3,
            ..SwitcherView::default()
        };
        assert_eq!(rows_hit(&hits_for(view, 700.0)), vec![0, 1, 2]);
    }

    #[test]
    fn an_empty_list_still_draws_the_panel() {
        let hits = hits_for(SwitcherView::default(), 300.0);
        assert!(rows_hit(&hits).is_empty());
        assert!(hits
            .iter()
            .any(|(_, target)| *target == HitTarget::OverlayPanel));
    }
}
