//! A panel of rows over the frame: a heading, a count, the keys, and one row per entry (a
//! title, a line of detail, a pill), one of them selected. The session switcher and the
//! questions inbox are both drawn as one.
//!
//! It is an overlay: it hides what is under it but moves nothing, so closing it shows the
//! frame exactly as it was. Rows beyond the panel's height are not drawn; the window of rows
//! shown slides so that the selected one is always among them. This module knows nothing of
//! sessions or questions: its callers turn their views into a [`ListPanel`].

use super::lines::LineCache;
use super::HitTarget;
use crate::color::Color;
use crate::scene::{Layer, Quad, Scene, TextRun};
use crate::text::{SpanStyle, TextSystem};
use crate::theme::Style;
use crate::units::{Pixels, Point, Rect};

/// The widest the panel gets; wider, a row's title is too far from its pill to read as one.
const MAX_WIDTH: Pixels = Pixels(820.0);

/// One row: a title, a line under it, and a pill at its right end.
#[derive(Clone, Debug)]
pub(super) struct ListRow {
    /// The first line, bold (untrusted text is fine: lines are shaped safely).
    pub title: String,
    /// The second line, small.
    pub detail: String,
    /// The second line's colour.
    pub detail_color: Color,
    /// A pill at the right of the title: its words and its fill.
    pub pill: Option<(String, Color)>,
}

/// A panel as its caller describes it.
#[derive(Clone, Debug)]
pub(super) struct ListPanel {
    /// The first line, bold (the switcher's filter, the inbox's heading).
    pub heading: String,
    /// At the right of the heading, muted.
    pub count: String,
    /// Under the heading: the keys that work here.
    pub keys: &'static str,
    /// What the panel says when it has no rows.
    pub empty: &'static str,
    /// The rows, in order.
    pub rows: Vec<ListRow>,
    /// The selected row, an index into `rows` (the caller keeps it within them).
    pub selected: usize,
}

impl ListPanel {
    /// Paints the panel over `frame`; returns what its parts are for the pointer, rows first
    /// (`HitTarget::OverlayRow` with the index into `rows`), then the panel.
    pub(super) fn paint(
        &self,
        frame: Rect,
        style: &Style,
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

        let heading = lines.line(&self.heading, bold, metrics.font_size, text);
        let count = lines.line(
            &self.count,
            SpanStyle::default(),
            metrics.small_font_size,
            text,
        );
        let keys = lines.line(
            self.keys,
            SpanStyle::default(),
            metrics.small_font_size,
            text,
        );
        let title_height = lines.line("Ag", bold, metrics.font_size, text).height;
        let detail_height = keys.height;
        let row_height = title_height + detail_height + Pixels(10.0);
        let head_height = heading.height + keys.height + pad * 2.0 + Pixels(6.0);
        let room = frame.bottom() - top - head_height - pad - Pixels(12.0);
        let fits = ((room / row_height).floor() as usize).max(1);
        let shown_rows = self.rows.len().min(fits);
        let first = (self.selected + 1).saturating_sub(shown_rows);
        let body_height = if self.rows.is_empty() {
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
        let count_x = inner.right() - count.width;
        scene.push_text(TextRun {
            origin: Point {
                x: inner.x,
                y: inner.y,
            },
            clip: Rect {
                width: (count_x - Pixels(12.0) - inner.x).max(Pixels::ZERO),
                ..inner
            },
            text: heading.clone(),
            color: palette.text,
            layer: Layer::Overlay,
        });
        text_at(scene, count_x, inner.y, count, palette.muted);
        let keys_y = inner.y + heading.height + Pixels(4.0);
        text_at(scene, inner.x, keys_y, keys, palette.muted);

        let mut hits = Vec::new();
        let rows_top = panel.y + head_height;
        if self.rows.is_empty() {
            let line = lines.line(self.empty, SpanStyle::default(), metrics.font_size, text);
            text_at(scene, inner.x, rows_top + Pixels(5.0), line, palette.muted);
        }
        for (slot, index) in (first..first + shown_rows).enumerate() {
            let row = &self.rows[index];
            let bounds = Rect {
                x: inner.x - Pixels(6.0),
                y: rows_top + row_height * slot as f32,
                width: inner.width + Pixels(12.0),
                height: row_height,
            };
            if index == self.selected {
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
            if let Some((words, fill)) = &row.pill {
                let pill = lines.line(words, bold, metrics.small_font_size, text);
                let pill_rect = Rect {
                    x: right - pill.width - Pixels(12.0),
                    y,
                    width: pill.width + Pixels(12.0),
                    height: pill.height + Pixels(4.0),
                };
                scene.push_quad(Quad {
                    bounds: pill_rect,
                    clip: inner,
                    fill: Some(*fill),
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
            let detail = lines.line(
                &row.detail,
                SpanStyle::default(),
                metrics.small_font_size,
                text,
            );
            text_at(scene, inner.x, y + title_height, detail, row.detail_color);
            hits.push((bounds, HitTarget::OverlayRow(index)));
        }
        hits.push((panel, HitTarget::OverlayPanel));
        hits
    }
}

#[cfg(test)]
pub(super) mod tests {
    //! Frames with a panel open, laid out through the whole pipeline, for the panels' tests.
    use super::super::{overview_capacity, LayoutEngine};
    use super::*;
    use crate::declutter::declutter;
    use crate::intent::{resolve_intent, IntentRequest, Overlay, Viewport};
    use crate::test_support::{message, snapshot_from, thread};
    use crate::text::FontSet;
    use crate::units::ScaleFactor;

    /// What the pointer can hit in a 1000 px wide frame of `height` with `overlay` open.
    pub(in crate::layout) fn overlay_hits(overlay: Overlay, height: f32) -> Vec<(Rect, HitTarget)> {
        let snapshot = snapshot_from(&[thread("main", None), message("m", "main", "Hello.")]);
        let request = IntentRequest {
            viewport: Viewport {
                width: Pixels(1000.0),
                height: Pixels(height),
                scale: ScaleFactor(1.0),
            },
            overlay: Some(overlay),
            ..IntentRequest::default()
        };
        let intent = resolve_intent(&snapshot, &request).unwrap();
        let view = declutter(&snapshot, &intent, overview_capacity(&intent));
        let mut engine = LayoutEngine::new(FontSet::BundledOnly);
        engine.layout(&snapshot, &view, &intent).hits
    }

    /// The rows drawn, by their index in the view's rows.
    pub(in crate::layout) fn rows_hit(hits: &[(Rect, HitTarget)]) -> Vec<usize> {
        hits.iter()
            .filter_map(|(_, target)| match target {
                HitTarget::OverlayRow(index) => Some(*index),
                _ => None,
            })
            .collect()
    }
}
