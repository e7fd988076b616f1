//! The overview panel: topics → branches → open questions and decisions, one row each.
//!
//! Declutter has already chosen and ordered the rows to fit; this module only places and
//! paints them: indentation by depth, a status mark, the title clipped to the panel, and the
//! counts of open work right-aligned so they line up for a glance.

use super::lines::LineCache;
use super::HitTarget;
use crate::color::Color;
use crate::declutter::{OverviewEntry, OverviewRow};
use crate::markdown::plain_text;
use crate::scene::{Layer, Quad, Scene, TextRun};
use crate::text::{SpanStyle, TextSystem};
use crate::theme::Style;
use crate::units::{Pixels, Point, Rect};
use crate::words::{Lang, Noun, Word};
use chatsurface_model::{NodeRef, Snapshot, ThreadStatus};

/// Indentation per depth level.
pub(super) const INDENT: Pixels = Pixels(14.0);

struct RowPainter<'a> {
    scene: &'a mut Scene,
    lines: &'a mut LineCache,
    text: &'a mut TextSystem,
    style: &'a Style,
    clip: Rect,
}

impl RowPainter<'_> {
    /// Draws one line at `x` on a row starting at `top`; returns its width.
    fn words(
        &mut self,
        words: &str,
        strong: bool,
        color: Color,
        x: Pixels,
        top: Pixels,
        clip: Rect,
    ) -> Pixels {
        let metrics = self.style.metrics;
        let size = metrics.font_size;
        let style = SpanStyle {
            strong,
            ..SpanStyle::default()
        };
        let room = clip.intersect(&self.clip).right() - x;
        let mut line = self.lines.line(words, style, size, self.text);
        if line.width > room && room > Pixels::ZERO {
            // Cut at a character and say so with an ellipsis, never mid-glyph at the edge:
            // the longest prefix whose "…" still fits, found by halving.
            let chars: Vec<(usize, char)> = words.char_indices().collect();
            let (mut fits, mut too_long) = (0, chars.len());
            while too_long - fits > 1 {
                let middle = (fits + too_long) / 2;
                let candidate = format!("{}…", words[..chars[middle].0].trim_end());
                if self.lines.line(&candidate, style, size, self.text).width <= room {
                    fits = middle;
                } else {
                    too_long = middle;
                }
            }
            let cut = chars.get(fits).map_or(words.len(), |(at, _)| *at);
            line = self.lines.line(
                &format!("{}…", words[..cut].trim_end()),
                style,
                size,
                self.text,
            );
        }
        let width = line.width;
        let y = top + (metrics.overview_row_height - line.height) * 0.5;
        self.scene.push_text(TextRun {
            origin: Point { x, y },
            clip: clip.intersect(&self.clip),
            text: line,
            color,
            layer: Layer::Panels,
        });
        width
    }

    fn measure(&mut self, words: &str) -> Pixels {
        self.lines
            .line(
                words,
                SpanStyle::default(),
                self.style.metrics.font_size,
                self.text,
            )
            .width
    }
}

/// How far below the panel's top the first row starts (after the heading line).
fn rows_top(style: &Style) -> Pixels {
    style.metrics.line_height + Pixels(4.0)
}

/// How many rows fit in an overview panel of this size.
pub(super) fn rows_that_fit(region: Rect, style: &Style) -> usize {
    let room = region.height - rows_top(style);
    (room.0 / style.metrics.overview_row_height.0)
        .floor()
        .max(0.0) as usize
}

/// Paints the overview rows into `region`; returns what each thread row lets the pointer hit.
pub(super) fn paint_overview(
    snapshot: &Snapshot,
    rows: &[OverviewRow],
    region: Rect,
    (style, lang): (&Style, Lang),
    scene: &mut Scene,
    lines: &mut LineCache,
    text: &mut TextSystem,
) -> Vec<(Rect, HitTarget)> {
    let palette = style.palette;
    let row_height = style.metrics.overview_row_height;
    let mut hits = Vec::new();
    let mut painter = RowPainter {
        scene,
        lines,
        text,
        style,
        clip: region,
    };
    painter.heading(snapshot, lang);
    let mut top = region.y + rows_top(style);
    for row in rows {
        if top + row_height > region.bottom() {
            break;
        }
        let row_rect = Rect {
            x: region.x,
            y: top,
            width: region.width,
            height: row_height,
        };
        let x = region.x + Pixels(6.0) + INDENT * f32::from(row.depth.min(12));
        match &row.entry {
            OverviewEntry::Thread { thread, focused } => {
                painter.thread_row(snapshot, *thread, *focused, x, row_rect);
                hits.push((row_rect, HitTarget::OverviewThread(*thread)));
            }
            OverviewEntry::Question { node } => {
                let (words, color) = question_words(snapshot, *node, style);
                painter.words(&words, false, color, x, top, row_rect);
                hits.push((row_rect, HitTarget::Block(*node)));
            }
            OverviewEntry::Decision { decision } => {
                let words = format!("◆ {}", plain_text(&snapshot.decisions[*decision].spec.text));
                painter.words(&words, false, palette.decision, x, top, row_rect);
                hits.push((row_rect, HitTarget::Block(NodeRef::Decision(*decision))));
            }
            OverviewEntry::Collapsed { threads, resolved } => {
                let words = lang.more(*threads, Noun::Thread, Some(*resolved));
                painter.words(&words, false, palette.muted, x, top, row_rect);
            }
            OverviewEntry::MoreQuestions { count } => {
                let words = lang.more(*count, Noun::OpenQuestion, None);
                painter.words(&words, false, palette.question, x, top, row_rect);
                hits.push((row_rect, HitTarget::Waiting));
            }
        }
        top += row_height;
    }
    hits
}

impl RowPainter<'_> {
    /// The panel's heading: "Overview · 12 threads · 5 open".
    fn heading(&mut self, snapshot: &Snapshot, lang: Lang) {
        let open = snapshot
            .threads
            .iter()
            .filter(|thread| thread.status != ThreadStatus::Resolved)
            .count();
        let heading = format!(
            "{} · {} · {open} {}",
            lang.word(Word::Overview),
            lang.count(snapshot.threads.len(), Noun::Thread),
            lang.word(Word::Open)
        );
        let line = self.lines.line(
            &heading,
            SpanStyle {
                strong: true,
                ..SpanStyle::default()
            },
            self.style.metrics.small_font_size,
            self.text,
        );
        self.scene.push_text(TextRun {
            origin: Point {
                x: self.clip.x,
                y: self.clip.y,
            },
            clip: self.clip,
            text: line,
            color: self.style.palette.muted,
            layer: Layer::Panels,
        });
    }

    /// A thread's row: the focus bar when focused, its status mark, its title clipped before
    /// the counts of open questions, pending confirmations and decisions, right-aligned.
    fn thread_row(
        &mut self,
        snapshot: &Snapshot,
        thread: usize,
        focused: bool,
        x: Pixels,
        row: Rect,
    ) {
        let palette = self.style.palette;
        let node = &snapshot.threads[thread];
        if focused {
            self.scene.push_quad(Quad {
                bounds: row,
                clip: self.clip,
                fill: Some(palette.focus_fill),
                border: None,
                corner_radius: Pixels(4.0),
                layer: Layer::Panels,
            });
            self.scene.push_quad(Quad {
                bounds: Rect {
                    width: Pixels(3.0),
                    ..row
                },
                clip: self.clip,
                fill: Some(palette.accent),
                border: None,
                corner_radius: Pixels::ZERO,
                layer: Layer::Panels,
            });
        }
        let (mark, mark_color) = match node.status {
            ThreadStatus::Active => ("●", palette.accent),
            ThreadStatus::Parked => ("‖", palette.muted),
            ThreadStatus::Resolved => ("✓", palette.decision),
        };
        let mark_width = self.words(mark, false, mark_color, x, row.y, row);
        let counts = [
            (node.open_questions, '?', palette.question),
            (node.pending_confirmations, '⚠', palette.danger),
            (node.decisions, '✓', palette.decision),
        ];
        let mut right = row.right() - Pixels(6.0);
        for (count, sign, color) in counts.into_iter().rev().filter(|(count, ..)| *count > 0) {
            let words = format!("{sign}{count}");
            right -= self.measure(&words);
            self.words(&words, true, color, right, row.y, row);
            right -= Pixels(8.0);
        }
        let title_x = x + mark_width + Pixels(6.0);
        let title_clip = Rect {
            x: title_x,
            width: (right - title_x).max(Pixels::ZERO),
            ..row
        };
        let color = if node.status == ThreadStatus::Resolved {
            palette.muted
        } else {
            palette.text
        };
        let title = plain_text(&node.spec.title);
        let strong = node.spec.parent.is_none();
        self.words(&title, strong, color, title_x, row.y, title_clip);
    }
}

/// An open question's row words and colour: "? title (items)" or "⚠ title".
fn question_words(snapshot: &Snapshot, node: NodeRef, style: &Style) -> (String, Color) {
    let palette = style.palette;
    match node {
        NodeRef::Batch(index) => {
            let batch = &snapshot.batches[index];
            let title = plain_text(batch.display_title());
            let words = format!("? {title} ({})", batch.spec.items.len());
            (words, palette.question)
        }
        NodeRef::Confirmation(index) => {
            let spec = &snapshot.confirmations[index].spec;
            let title = plain_text(spec.title.as_deref().unwrap_or(&spec.message));
            (format!("⚠ {title}"), palette.danger)
        }
        _ => (String::new(), palette.muted),
    }
}
