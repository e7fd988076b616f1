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
    /// The whole words of the last row painted, when they were cut to fit.
    cut: Option<String>,
}

/// What the overview marks besides its rows: the search's matches per thread, the row the
/// keyboard is on and the one under the pointer (by their place from the top), and the
/// thread of the topmost card in view.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct OverviewMarks<'a> {
    /// Search matches by thread index (empty without a search).
    pub found: &'a [usize],
    /// The row the keyboard is on.
    pub cursor: Option<usize>,
    /// The row under the pointer.
    pub hovered: Option<usize>,
    /// The thread the transcript shows at its top.
    pub in_view: Option<usize>,
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
        let (line, shown) = self.lines.line_within(words, style, size, room, self.text);
        if shown != words {
            self.cut = Some(words.to_owned());
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

/// A folded path's titles joined by "›" for its hover: whole, unless it is longer than a
/// screen could show (a chain can be 50,000 deep), when its middle says how many are left out.
fn whole_path(titles: &[String]) -> String {
    /// Titles kept at each end of a very long path.
    const ENDS: usize = 6;
    if titles.len() <= ENDS * 2 + 1 {
        return titles.join(" › ");
    }
    let left_out = titles.len() - ENDS * 2;
    format!(
        "{} › … {left_out} … › {}",
        titles[..ENDS].join(" › "),
        titles[titles.len() - ENDS..].join(" › ")
    )
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
    (snapshot, marks): (&Snapshot, OverviewMarks),
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
        cut: None,
    };
    let mut tooltip = None;
    painter.heading(snapshot, lang);
    let mut top = region.y + rows_top(style);
    for (place, row) in rows.iter().enumerate() {
        if top + row_height > region.bottom() {
            break;
        }
        painter.cut = None;
        let row_rect = Rect {
            x: region.x,
            y: top,
            width: region.width,
            height: row_height,
        };
        let x = region.x + Pixels(6.0) + INDENT * f32::from(row.depth.min(12));
        match &row.entry {
            OverviewEntry::Thread {
                thread,
                above,
                focused,
            } => {
                let found = marks.found.get(*thread).copied().unwrap_or(0);
                if marks.in_view == Some(*thread) && !*focused {
                    painter.scene.push_quad(Quad {
                        bounds: Rect {
                            width: Pixels(3.0),
                            ..row_rect
                        },
                        clip: region,
                        fill: Some(palette.accent.with_alpha(150)),
                        border: None,
                        corner_radius: Pixels::ZERO,
                        layer: Layer::Panels,
                    });
                }
                painter.thread_row(snapshot, (*thread, above), (*focused, found), x, row_rect);
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
            OverviewEntry::Unlisted { count } => {
                let words = format!("{} · o", lang.more(*count, Noun::OpenQuestion, None));
                painter.words(&words, false, palette.question, x, top, row_rect);
                hits.push((row_rect, HitTarget::Waiting));
            }
        }
        if marks.cursor == Some(place) {
            painter.scene.push_quad(Quad {
                bounds: row_rect,
                clip: region,
                fill: None,
                border: Some((palette.accent, Pixels(1.5))),
                corner_radius: Pixels(4.0),
                layer: Layer::Panels,
            });
        }
        if marks.hovered == Some(place) {
            tooltip = painter.cut.take().map(|whole| (row_rect, whole));
        }
        top += row_height;
    }
    if let Some((row, whole)) = tooltip {
        painter.tooltip(row, &whole);
    }
    hits
}

impl RowPainter<'_> {
    /// The whole words of a row that was cut, on a panel just below it, over whatever is
    /// there (it may reach into the transcript).
    fn tooltip(&mut self, row: Rect, whole: &str) {
        let palette = self.style.palette;
        let frame = self.scene.bounds();
        let size = self.style.metrics.font_size;
        let room = frame.right() - row.x - Pixels(24.0);
        let (line, _) = self
            .lines
            .line_within(whole, SpanStyle::default(), size, room, self.text);
        let bounds = Rect {
            x: row.x,
            y: row.bottom() + Pixels(2.0),
            width: line.width + Pixels(16.0),
            height: line.height + Pixels(10.0),
        };
        self.scene.push_quad(Quad {
            bounds,
            clip: frame,
            fill: Some(palette.card),
            border: Some((palette.accent, Pixels(1.0))),
            corner_radius: Pixels(4.0),
            layer: Layer::Overlay,
        });
        self.scene.push_text(TextRun {
            origin: Point {
                x: bounds.x + Pixels(8.0),
                y: bounds.y + Pixels(5.0),
            },
            clip: bounds,
            text: line,
            color: palette.text,
            layer: Layer::Overlay,
        });
    }

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

    /// A thread's row: the focus bar when focused, its status mark, its title (after the
    /// titles of the threads folded into the row) clipped before the counts of open questions,
    /// pending confirmations and decisions, right-aligned.
    fn thread_row(
        &mut self,
        snapshot: &Snapshot,
        (thread, above): (usize, &[usize]),
        (focused, found): (bool, usize),
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
        // `found`: the search's matches in the thread.
        let counts = [
            (found, '⌕', palette.accent),
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
        let (title, whole) = if above.is_empty() {
            (plain_text(&node.spec.title), None)
        } else {
            let titles: Vec<String> = above
                .iter()
                .chain([&thread])
                .map(|&index| plain_text(&snapshot.threads[index].spec.title))
                .collect();
            let shown = self.path_that_fits(&titles, title_clip.width);
            (shown, Some(whole_path(&titles)))
        };
        let strong = node.spec.parent.is_none();
        self.words(&title, strong, color, title_x, row.y, title_clip);
        // A folded path shortened to fit is shown whole on hover.
        if let Some(whole) = whole.filter(|whole| *whole != title) {
            self.cut = Some(whole);
        }
    }

    /// The titles of a folded path joined by "›", shortened in the middle until the line fits
    /// `room`: the first title, "…", then as many of the last ones as fit. When even "first ›
    /// … › last" is too wide, the first title is cut so that the last (the thread the row
    /// stands for) stays whole, or, where that leaves too little of it, to two fifths of the
    /// row, with the last cut at its end by `words`.
    fn path_that_fits(&mut self, titles: &[String], room: Pixels) -> String {
        /// More of a path than this is never tried whole: a chain can be 50,000 threads deep.
        const MOST_TITLES: usize = 8;
        /// A first title cut shorter than this says nothing; it is dropped instead.
        const FEWEST_CHARS: usize = 4;
        let whole = titles.join(" › ");
        if titles.len() <= MOST_TITLES && self.measure(&whole) <= room {
            return whole;
        }
        let (first, rest) = titles.split_first().expect("a path has a title");
        let Some(last) = rest.last() else {
            return whole;
        };
        let shortened = |tail: usize| {
            let kept = &rest[rest.len() - tail..];
            format!("{first} › … › {}", kept.join(" › "))
        };
        let most = rest.len().saturating_sub(1).min(MOST_TITLES);
        if let Some(fits) = (1..=most)
            .rev()
            .map(shortened)
            .find(|candidate| self.measure(candidate) <= room)
        {
            return fits;
        }
        let joint = if rest.len() > 1 {
            " › … › "
        } else {
            " › "
        };
        let cut_first = |chars: usize| {
            let cut: String = first.chars().take(chars).collect();
            format!("{}…{joint}", cut.trim_end())
        };
        // The longest cut of the first title that leaves `room` for what follows it, found by
        // halving.
        let longest_cut = |this: &mut Self, room: Pixels, last: &str| {
            let (mut fits, mut too_long) = (0, first.chars().count());
            while too_long - fits > 1 {
                let middle = (fits + too_long) / 2;
                if this.measure(&format!("{}{last}", cut_first(middle))) <= room {
                    fits = middle;
                } else {
                    too_long = middle;
                }
            }
            fits
        };
        // The last title whole if the first can keep a few chars; else the first gets at most
        // two fifths of the row and the last is cut at its end by `words`.
        let whole_last = longest_cut(self, room, last);
        if whole_last >= FEWEST_CHARS {
            return format!("{}{last}", cut_first(whole_last));
        }
        let share = longest_cut(self, room * 0.4, "");
        if share >= FEWEST_CHARS {
            format!("{}{last}", cut_first(share))
        } else {
            format!("… › {last}")
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::FontSet;
    use crate::theme::{Density, Theme};

    /// What `path_that_fits` makes of `titles` in `room`, and the width of that line.
    fn fitted(titles: &[String], room: f32) -> (String, Pixels) {
        let style = Style::new(Theme::Dark, Density::Comfortable);
        let mut scene = Scene::new(Pixels(800.0), Pixels(600.0), style.palette.background);
        let mut lines = LineCache::default();
        let mut text = TextSystem::new(FontSet::BundledOnly);
        let clip = Rect {
            x: Pixels::ZERO,
            y: Pixels::ZERO,
            width: Pixels(800.0),
            height: Pixels(600.0),
        };
        let mut painter = RowPainter {
            scene: &mut scene,
            lines: &mut lines,
            text: &mut text,
            style: &style,
            clip,
            cut: None,
        };
        let line = painter.path_that_fits(titles, Pixels(room));
        let width = painter.measure(&line);
        (line, width)
    }

    fn titles(words: &[&str]) -> Vec<String> {
        words.iter().map(|&word| word.to_owned()).collect()
    }

    #[test]
    fn a_path_that_fits_is_shown_whole() {
        let path = titles(&["Topic", "Branch", "Leaf"]);
        assert_eq!(fitted(&path, 400.0).0, "Topic › Branch › Leaf");
    }

    #[test]
    fn a_long_path_loses_its_middle_first_then_the_start_of_its_first_title() {
        let path = titles(&[
            "Release planning for the winter",
            "Storage",
            "Event log",
            "Torn tail handling",
        ]);
        let (middle_gone, width) = fitted(&path, 420.0);
        assert_eq!(
            middle_gone, "Release planning for the winter › … › Torn tail handling",
            "{width:?}"
        );
        let (first_cut, width) = fitted(&path, 230.0);
        assert!(width <= Pixels(230.0), "{first_cut}: {width:?}");
        assert!(
            first_cut.starts_with("Rel") && first_cut.ends_with("… › … › Torn tail handling"),
            "the thread the row stands for stays whole: {first_cut}"
        );
    }

    #[test]
    fn a_row_too_narrow_for_the_last_title_keeps_two_fifths_for_the_first() {
        let path = titles(&[
            "Release planning for the winter",
            "A branch whose title is longer than the whole row can hold",
        ]);
        let (line, width) = fitted(&path, 200.0);
        let (first, last) = line.split_once(" › ").unwrap();
        assert!(
            first.starts_with("Rel") && first.ends_with('…'),
            "{line} {width:?}"
        );
        assert!(last.starts_with("A branch whose"), "{line}");
        let (_, first_width) = fitted(&[first.to_owned()], 800.0);
        assert!(
            first_width <= Pixels(80.0),
            "two fifths of 200 px: {first_width:?}"
        );
    }

    #[test]
    fn a_chain_fifty_thousand_deep_reads_its_first_and_last_titles() {
        let path: Vec<String> = (0..50_000).map(|level| format!("t{level}")).collect();
        let (line, _) = fitted(&path, 300.0);
        assert!(line.starts_with("t0 › … › "), "{line}");
        assert!(line.ends_with("› t49999"), "{line}");
    }

    #[test]
    fn a_hovered_row_cut_to_fit_shows_whole_and_the_keyboards_row_is_ringed() {
        use crate::declutter::declutter;
        use crate::intent::{resolve_intent, IntentRequest, Viewport};
        use crate::layout::{overview_capacity, LayoutEngine};
        use crate::scene::Layer;
        use crate::test_support::snapshot_from;
        use crate::units::ScaleFactor;
        let long = "A thread title far too long for the overview of a frame";
        let snapshot = snapshot_from(&[format!(
            r#"{{"type":"thread_opened","thread":{{"id":"t","parent":null,"title":"{long}","kind":"topic"}}}}"#
        )]);
        let frame = |hover: Option<usize>, cursor: Option<usize>| {
            let request = IntentRequest {
                viewport: Viewport {
                    width: Pixels(900.0),
                    height: Pixels(500.0),
                    scale: ScaleFactor(1.0),
                },
                overview_hover: hover,
                overview_cursor: cursor,
                ..IntentRequest::default()
            };
            let intent = resolve_intent(&snapshot, &request).unwrap();
            let view = declutter(&snapshot, &intent, overview_capacity(&intent));
            LayoutEngine::new(FontSet::BundledOnly).layout(&snapshot, &view, &intent)
        };
        let overlay_texts = |hover| {
            frame(hover, None)
                .scene
                .texts
                .iter()
                .filter(|run| run.layer == Layer::Overlay)
                .map(|run| run.text.width)
                .collect::<Vec<_>>()
        };
        assert!(overlay_texts(None).is_empty());
        let shown = overlay_texts(Some(0));
        assert_eq!(shown.len(), 1, "the whole title beside the row");
        let row = frame(None, None)
            .hits
            .iter()
            .find(|(_, t)| *t == HitTarget::OverviewThread(0))
            .unwrap()
            .0;
        assert!(shown[0] > row.width, "wider than the row it stands for");
        let rings = |cursor| {
            frame(None, cursor)
                .scene
                .quads
                .iter()
                .filter(|quad| quad.fill.is_none() && quad.bounds == row)
                .count()
        };
        assert_eq!((rings(None), rings(Some(0))), (0, 1));
    }
}
