//! The header band: the session's title, where the focus is, and what awaits the human.
//!
//! What awaits is the one thing an operator must see at a glance from across the desk, so it
//! sits in a filled pill in the question colour whenever anything is open.

use super::lines::LineCache;
use crate::declutter::HeaderSummary;
use crate::scene::{Layer, Quad, Scene, TextRun};
use crate::text::{SpanStyle, TextSystem};
use crate::theme::Style;
use crate::units::{Pixels, Point, Rect};

/// Paints the header into `region`.
pub fn paint_header(
    summary: &HeaderSummary,
    region: Rect,
    style: &Style,
    scene: &mut Scene,
    lines: &mut LineCache,
    text: &mut TextSystem,
) {
    let palette = style.palette;
    let metrics = style.metrics;
    let pad = metrics.card_padding + Pixels(6.0);
    let bold = SpanStyle {
        strong: true,
        ..SpanStyle::default()
    };

    let awaiting = summary.awaiting();
    let waiting = summary.open_questions + summary.pending_confirmations > 0;
    let pill_line = lines.line(&awaiting, bold, metrics.font_size, text);
    let pill_width = pill_line.width + Pixels(28.0);
    let pill_height = pill_line.height + Pixels(12.0);
    let pill = Rect {
        x: region.right() - pad - pill_width,
        y: region.y + (region.height - pill_height) * 0.5,
        width: pill_width,
        height: pill_height,
    };
    if waiting {
        let fill = if summary.pending_confirmations > 0 {
            palette.danger
        } else {
            palette.question
        };
        scene.push_quad(Quad {
            bounds: pill,
            clip: region,
            fill: Some(fill),
            border: None,
            corner_radius: pill_height * 0.5,
            layer: Layer::Panels,
        });
    }
    let pill_color = if waiting {
        palette.background
    } else {
        palette.muted
    };
    scene.push_text(TextRun {
        origin: Point {
            x: pill.x + Pixels(14.0),
            y: pill.y + Pixels(6.0),
        },
        clip: pill,
        text: pill_line,
        color: pill_color,
        layer: Layer::Panels,
    });

    let title_clip = Rect {
        width: (pill.x - region.x - pad).max(Pixels::ZERO),
        ..region
    };
    let title = lines.line(summary.title, bold, metrics.title_font_size, text);
    let sub_size = metrics.small_font_size;
    let block_height = title.height + Pixels(4.0) + Pixels((sub_size.0 * 1.3).round());
    let top = region.y + (region.height - block_height) * 0.5;
    scene.push_text(TextRun {
        origin: Point {
            x: region.x + pad,
            y: top,
        },
        clip: title_clip,
        text: title.clone(),
        color: palette.text,
        layer: Layer::Panels,
    });

    let mut sub = Vec::new();
    if let Some(agent) = summary.agent {
        sub.push(format!("agent: {agent}"));
    }
    if summary.breadcrumb.is_empty() {
        sub.push("whole session".to_owned());
    } else {
        sub.push(format!("focus: {}", summary.breadcrumb.join(" › ")));
    }
    let sub_line = lines.line(&sub.join("  ·  "), SpanStyle::default(), sub_size, text);
    scene.push_text(TextRun {
        origin: Point {
            x: region.x + pad,
            y: top + title.height + Pixels(4.0),
        },
        clip: title_clip,
        text: sub_line,
        color: palette.muted,
        layer: Layer::Panels,
    });
}
