//! The header band: the session's title, where the focus is, and what awaits the human.
//!
//! What awaits is the one thing an operator must see at a glance from across the desk, so it
//! sits in a filled pill in the question colour (the danger colour when a confirmation waits)
//! whenever anything is open. On a panel too narrow for title and pill side by side, the pill
//! takes the line under the title instead of being pushed over it.

use super::lines::LineCache;
use crate::declutter::HeaderSummary;
use crate::scene::{Layer, Quad, Scene, TextRun};
use crate::text::{SpanStyle, TextSystem};
use crate::theme::Style;
use crate::units::{Pixels, Point, Rect};
use crate::words::Word;

/// Paints the header into `region`; returns where the pill of what awaits is, which a click
/// follows to the next open question.
pub(super) fn paint_header(
    summary: &HeaderSummary,
    region: Rect,
    style: &Style,
    scene: &mut Scene,
    lines: &mut LineCache,
    text: &mut TextSystem,
) -> Rect {
    let palette = style.palette;
    let metrics = style.metrics;
    let pad = metrics.card_padding + Pixels(6.0);
    let bold = SpanStyle {
        strong: true,
        ..SpanStyle::default()
    };
    let title = lines.line(summary.title, bold, metrics.title_font_size, text);
    let awaiting = summary.awaiting();
    let wide_pill = lines.line(&awaiting, bold, metrics.font_size, text);
    let side_by_side = title.width + wide_pill.width + Pixels(28.0) + pad * 3.0 <= region.width;

    let (pill_line, pill) = if side_by_side {
        let (width, height) = (
            wide_pill.width + Pixels(28.0),
            wide_pill.height + Pixels(12.0),
        );
        let pill = Rect {
            x: region.right() - pad - width,
            y: region.y + (region.height - height) * 0.5,
            width,
            height,
        };
        (wide_pill, pill)
    } else {
        let line = lines.line(&awaiting, bold, metrics.small_font_size, text);
        let (width, height) = (line.width + Pixels(20.0), line.height + Pixels(6.0));
        let top = region.y
            + (region.height - title.height - height - Pixels(6.0)) * 0.5
            + title.height
            + Pixels(6.0);
        (
            line,
            Rect {
                x: region.x + pad,
                y: top,
                width: width.min(region.width - pad * 2.0),
                height,
            },
        )
    };
    let waiting =
        summary.open_questions + summary.pending_confirmations + summary.elsewhere.questions > 0;
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
            corner_radius: pill.height * 0.5,
            layer: Layer::Panels,
        });
    }
    let inset = (pill.width - pill_line.width) * 0.5;
    let pill_color = if waiting {
        palette.background
    } else {
        palette.muted
    };
    let pill_text = Point {
        x: pill.x + inset.max(Pixels::ZERO),
        y: pill.y + (pill.height - pill_line.height) * 0.5,
    };
    scene.push_text(TextRun {
        origin: pill_text,
        clip: pill,
        text: pill_line,
        color: pill_color,
        layer: Layer::Panels,
    });

    if let Some(notice) = summary.notice.as_ref().filter(|notice| notice.alarm) {
        // A failure to save an answer must be impossible to miss: it takes the whole band.
        scene.push_quad(Quad {
            bounds: region,
            clip: region,
            fill: Some(palette.danger),
            border: None,
            corner_radius: Pixels::ZERO,
            layer: Layer::Panels,
        });
        let line = lines.line(&notice.text, bold, metrics.font_size, text);
        scene.push_text(TextRun {
            origin: Point {
                x: region.x + pad,
                y: region.y + (region.height - line.height) * 0.5,
            },
            clip: region,
            text: line,
            color: palette.background,
            layer: Layer::Panels,
        });
        return region;
    }
    let title_right = if side_by_side {
        pill.x - pad
    } else {
        region.right() - pad
    };
    let title_clip = Rect {
        width: (title_right - region.x).max(Pixels::ZERO),
        ..region
    };
    if !side_by_side {
        let top = pill.y - Pixels(6.0) - title.height;
        scene.push_text(TextRun {
            origin: Point {
                x: region.x + pad,
                y: top,
            },
            clip: title_clip,
            text: title,
            color: palette.text,
            layer: Layer::Panels,
        });
        return pill;
    }
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
    if let Some(notice) = &summary.notice {
        sub.push(notice.text.clone());
    }
    if let Some(agent) = summary.agent {
        sub.push(format!("agent: {agent}"));
    }
    if summary.breadcrumb.is_empty() {
        sub.push(summary.lang.word(Word::WholeSession).to_owned());
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
    pill
}
