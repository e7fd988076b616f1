//! The session switcher's panel: the filter line, the keys, and one row per matching session,
//! drawn over the frame.
//!
//! It is an overlay: it hides what is under it but moves nothing, so closing it shows the
//! frame exactly as it was. Rows beyond the panel's height are not drawn; the window of rows
//! shown slides so that the selected one is always among them.

use super::lines::LineCache;
use super::HitTarget;
use crate::scene::{Layer, Quad, Scene, TextRun};
use crate::switcher::SwitcherView;
use crate::text::{SpanStyle, TextSystem};
use crate::theme::Style;
use crate::units::{Pixels, Point, Rect};
use crate::words::{Lang, Noun, Word};

/// The widest the panel gets; wider, a row's title is too far from its counts to read as one.
const MAX_WIDTH: Pixels = Pixels(820.0);

/// Paints the switcher over `frame`; returns what its parts are for the pointer, rows first.
pub(super) fn paint_switcher(
    view: &SwitcherView,
    frame: Rect,
    (style, lang): (&Style, Lang),
    scene: &mut Scene,
    lines: &mut LineCache,
    text: &mut TextSystem,
) -> Vec<(Rect, HitTarget)> {
    let palette = style.palette;
    let metrics = style.metrics;
    let pad = metrics.card_padding;
    let bold = SpanStyle {
        strong: true,
        ..SpanStyle::default()
    };
    let width = MAX_WIDTH.min(frame.width - Pixels(24.0));
    let left = frame.x + (frame.width - width) * 0.5;
    let top = frame.y + (frame.height * 0.08).min(Pixels(72.0));

    let query = lines.line(&format!("› {}▏", view.query), bold, metrics.font_size, text);
    let count = lines.line(
        &format!(
            "{} / {}",
            view.rows.len(),
            lang.count(view.total, Noun::Session)
        ),
        SpanStyle::default(),
        metrics.small_font_size,
        text,
    );
    let keys = lines.line(
        lang.word(Word::SwitcherKeys),
        SpanStyle::default(),
        metrics.small_font_size,
        text,
    );
    let title_height = lines.line("Ag", bold, metrics.font_size, text).height;
    let detail_height = keys.height;
    let row_height = title_height + detail_height + Pixels(10.0);
    let head_height = query.height + keys.height + pad * 2.0 + Pixels(6.0);
    let room = frame.bottom() - top - head_height - pad - Pixels(12.0);
    let fits = ((room / row_height).floor() as usize).max(1);
    let shown_rows = view.rows.len().min(fits);
    let first = (view.selected + 1).saturating_sub(shown_rows);
    let body_height = if view.rows.is_empty() {
        row_height
    } else {
        row_height * shown_rows as f32
    };
    let panel = Rect {
        x: left,
        y: top,
        width,
        height: head_height + body_height + pad,
    };
    scene.push_quad(Quad {
        bounds: panel,
        clip: frame,
        fill: Some(palette.panel),
        border: Some((palette.accent, Pixels(2.0))),
        corner_radius: metrics.corner_radius,
        layer: Layer::Overlay,
    });
    let inner = Rect {
        x: panel.x + pad,
        y: panel.y + pad,
        width: panel.width - pad * 2.0,
        height: panel.height - pad * 2.0,
    };
    let text_at = |scene: &mut Scene, x: Pixels, y: Pixels, line, color| {
        scene.push_text(TextRun {
            origin: Point { x, y },
            clip: inner,
            text: line,
            color,
            layer: Layer::Overlay,
        });
    };
    text_at(scene, inner.x, inner.y, query.clone(), palette.text);
    let count_x = inner.right() - count.width;
    text_at(scene, count_x, inner.y, count, palette.muted);
    let keys_y = inner.y + query.height + Pixels(4.0);
    text_at(scene, inner.x, keys_y, keys, palette.muted);

    let mut hits = Vec::new();
    let rows_top = panel.y + head_height;
    if view.rows.is_empty() {
        let word = if view.scanning {
            Word::ReadingSessions
        } else {
            Word::NoSessionMatches
        };
        let line = lines.line(
            lang.word(word),
            SpanStyle::default(),
            metrics.font_size,
            text,
        );
        text_at(scene, inner.x, rows_top + Pixels(5.0), line, palette.muted);
    }
    for (slot, index) in (first..first + shown_rows).enumerate() {
        let row = &view.rows[index];
        let bounds = Rect {
            x: inner.x - Pixels(6.0),
            y: rows_top + row_height * slot as f32,
            width: inner.width + Pixels(12.0),
            height: row_height,
        };
        if index == view.selected {
            scene.push_quad(Quad {
                bounds,
                clip: panel,
                fill: Some(palette.focus_fill),
                border: Some((palette.accent, Pixels(1.0))),
                corner_radius: Pixels(4.0),
                layer: Layer::Overlay,
            });
        }
        let y = bounds.y + Pixels(5.0);
        let mut right = inner.right();
        if row.waiting > 0 {
            let pill = lines.line(
                &lang.count(row.waiting, Noun::OpenQuestion),
                bold,
                metrics.small_font_size,
                text,
            );
            let pill_rect = Rect {
                x: right - pill.width - Pixels(12.0),
                y,
                width: pill.width + Pixels(12.0),
                height: pill.height + Pixels(4.0),
            };
            scene.push_quad(Quad {
                bounds: pill_rect,
                clip: inner,
                fill: Some(palette.question),
                border: None,
                corner_radius: pill_rect.height * 0.5,
                layer: Layer::Overlay,
            });
            text_at(
                scene,
                pill_rect.x + Pixels(6.0),
                y + Pixels(2.0),
                pill,
                palette.background,
            );
            right = pill_rect.x - Pixels(8.0);
        }
        let title = lines.line(&row.title, bold, metrics.font_size, text);
        scene.push_text(TextRun {
            origin: Point { x: inner.x, y },
            clip: Rect {
                width: (right - inner.x).max(Pixels::ZERO),
                ..inner
            },
            text: title,
            color: palette.text,
            layer: Layer::Overlay,
        });
        let mut parts = vec![row.agent.clone()];
        parts.extend(row.project.clone());
        parts.push(row.last_activity.clone());
        parts.push(lang.count(row.messages, Noun::Message));
        if row.shown {
            parts.insert(0, lang.word(Word::ShownNow).to_owned());
        }
        let detail = parts.join(" · ");
        let detail = lines.line(&detail, SpanStyle::default(), metrics.small_font_size, text);
        let color = if row.shown {
            palette.accent
        } else {
            palette.muted
        };
        text_at(scene, inner.x, y + title_height, detail, color);
        hits.push((bounds, HitTarget::SwitcherRow(index)));
    }
    hits.push((panel, HitTarget::Switcher));
    hits
}

#[cfg(test)]
mod tests {
    use super::super::{overview_capacity, LayoutEngine};
    use super::*;
    use crate::declutter::declutter;
    use crate::intent::{resolve_intent, IntentRequest, Viewport};
    use crate::switcher::SwitcherRow;
    use crate::test_support::{message, snapshot_from, thread};
    use crate::text::FontSet;
    use crate::units::ScaleFactor;

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

    fn hits_for(view: SwitcherView, height: f32) -> Vec<(Rect, HitTarget)> {
        let snapshot = snapshot_from(&[thread("main", None), message("m", "main", "Hello.")]);
        let request = IntentRequest {
            viewport: Viewport {
                width: Pixels(1000.0),
                height: Pixels(height),
                scale: ScaleFactor(1.0),
            },
            switcher: Some(view),
            ..IntentRequest::default()
        };
        let intent = resolve_intent(&snapshot, &request).unwrap();
        let view = declutter(&snapshot, &intent, overview_capacity(&intent));
        let mut engine = LayoutEngine::new(FontSet::BundledOnly);
        engine.layout(&snapshot, &view, &intent).hits
    }

    fn rows_hit(hits: &[(Rect, HitTarget)]) -> Vec<usize> {
        hits.iter()
            .filter_map(|(_, target)| match target {
                HitTarget::SwitcherRow(index) => Some(*index),
                _ => None,
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
        assert!(matches!(hits[0].1, HitTarget::SwitcherRow(_)));
        let panel = hits
            .iter()
            .find(|(_, target)| *target == HitTarget::Switcher)
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
            .any(|(_, target)| *target == HitTarget::Switcher));
    }
}
