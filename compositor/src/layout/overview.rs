//! The overview panel: topics → branches → open questions and decisions, one row each.
//!
//! Declutter has already chosen and ordered the rows to fit; this module only places and
//! paints them: indentation by depth, a status mark, the title clipped to the panel, and the
//! counts of open work right-aligned so they line up for a glance. Rows the panel has room for
//! beyond those chosen go, top first, to titles too long for one line: such a row takes two
//! lines before its title is cut.

use super::lines::{LineCache, TwoLines};
use super::HitTarget;
use crate::color::Color;
use crate::declutter::{OverviewEntry, OverviewRow};
use crate::markdown::plain_text;
use crate::scene::{Layer, Quad, Scene, TextRun};
use crate::text::ShapedText;
use crate::text::{SpanStyle, TextSystem};
use crate::theme::Style;
use crate::units::{Pixels, Point, Rect};
use crate::words::{Lang, Noun, Word};
use chatsurface_model::{NodeRef, Snapshot, ThreadStatus};
use std::sync::Arc;

/// More of a path than this is never tried whole: a chain can be 50,000 threads deep.
const MOST_TITLES: usize = 8;

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
        let fitted = self.fit(words, strong, x, clip, false);
        let width = fitted.lines[0].width;
        self.paint_lines(fitted, color, x, top, clip);
        width
    }

    /// `words` fitted between `x` and the right of `clip`: on one line cut with "…", or, when
    /// `two_lines` allows it, wrapped onto a second line first. Words cut are remembered for
    /// the row's hover.
    fn fit(
        &mut self,
        words: &str,
        strong: bool,
        x: Pixels,
        clip: Rect,
        two_lines: bool,
    ) -> TwoLines {
        let size = self.style.metrics.font_size;
        let style = SpanStyle {
            strong,
            ..SpanStyle::default()
        };
        let room = clip.intersect(&self.clip).right() - x;
        let fitted = if two_lines {
            self.lines
                .two_lines_within(words, style, size, room, self.text)
        } else {
            let (line, shown) = self.lines.line_within(words, style, size, room, self.text);
            TwoLines {
                lines: vec![line],
                cut: shown != words,
            }
        };
        if fitted.cut {
            self.cut = Some(words.to_owned());
        }
        fitted
    }

    /// Draws fitted lines at `x`, one row height apart from `top`.
    fn paint_lines(&mut self, fitted: TwoLines, color: Color, x: Pixels, top: Pixels, clip: Rect) {
        let row_height = self.style.metrics.overview_row_height;
        for (line, row_top) in fitted
            .lines
            .into_iter()
            .zip(std::iter::successors(Some(top), |top| {
                Some(*top + row_height)
            }))
        {
            self.push_line(line, color, x, row_top, clip);
        }
    }

    fn push_line(
        &mut self,
        line: Arc<ShapedText>,
        color: Color,
        x: Pixels,
        top: Pixels,
        clip: Rect,
    ) {
        let y = top + (self.style.metrics.overview_row_height - line.height) * 0.5;
        self.scene.push_text(TextRun {
            origin: Point { x, y },
            clip: clip.intersect(&self.clip),
            text: line,
            color,
            layer: Layer::Panels,
        });
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
    // Rows the panel holds beyond those chosen: each lets one long title take a second line.
    let mut spare_lines = rows_that_fit(region, style).saturating_sub(rows.len());
    // A row's place counts the rows the pointer and the keyboard can reach, as the window
    // does (from the hits), so the rows of folded threads are not counted.
    let mut place = 0;
    let mut top = region.y + rows_top(style);
    for row in rows {
        if top + row_height > region.bottom() {
            break;
        }
        painter.cut = None;
        let line = Rect {
            x: region.x,
            y: top,
            width: region.width,
            height: row_height,
        };
        let x = region.x + Pixels(6.0) + INDENT * f32::from(row.depth.min(12));
        let two_lines = spare_lines > 0;
        let (lines, hit) = match &row.entry {
            OverviewEntry::Thread {
                thread,
                above,
                focused,
            } => {
                let found = marks.found.get(*thread).copied().unwrap_or(0);
                let in_view = marks.in_view == Some(*thread) && !*focused;
                let lines = painter.thread_row(
                    snapshot,
                    (*thread, above),
                    (*focused, in_view, found),
                    (x, line, two_lines),
                );
                (lines, Some(HitTarget::OverviewThread(*thread)))
            }
            OverviewEntry::Question { node } => {
                let (words, color) = question_words(snapshot, *node, style);
                let fitted = painter.fit(&words, false, x, line, two_lines);
                let lines = fitted.lines.len();
                painter.paint_lines(fitted, color, x, top, region);
                (lines, Some(HitTarget::Block(*node)))
            }
            OverviewEntry::Decision { decision } => {
                let words = format!("◆ {}", plain_text(&snapshot.decisions[*decision].spec.text));
                let fitted = painter.fit(&words, false, x, line, two_lines);
                let lines = fitted.lines.len();
                painter.paint_lines(fitted, palette.decision, x, top, region);
                (lines, Some(HitTarget::Block(NodeRef::Decision(*decision))))
            }
            OverviewEntry::Collapsed { threads, resolved } => {
                let words = lang.more(*threads, Noun::Thread, Some(*resolved));
                painter.words(&words, false, palette.muted, x, top, line);
                (1, None)
            }
            OverviewEntry::Unlisted { count } => {
                let words = format!("{} · o", lang.more(*count, Noun::OpenQuestion, None));
                painter.words(&words, false, palette.question, x, top, line);
                (1, Some(HitTarget::Waiting))
            }
        };
        spare_lines -= lines - 1;
        let row_rect = Rect {
            height: row_height * lines as f32,
            ..line
        };
        let Some(hit) = hit else {
            top += row_rect.height;
            continue;
        };
        hits.push((row_rect, hit));
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
        place += 1;
        top += row_rect.height;
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

    /// A thread's row: the focus bar when focused (a thinner one when it is the thread in
    /// view), its status mark, its title (after the titles of the threads folded into the row)
    /// clipped before the counts of open questions, pending confirmations and decisions,
    /// right-aligned. The title takes a second line where `two_lines` allows and it needs one;
    /// returns how many lines the row took.
    fn thread_row(
        &mut self,
        snapshot: &Snapshot,
        (thread, above): (usize, &[usize]),
        (focused, in_view, found): (bool, bool, usize),
        (x, line, two_lines): (Pixels, Rect, bool),
    ) -> usize {
        let palette = self.style.palette;
        let node = &snapshot.threads[thread];
        let (mark, mark_color) = match node.status {
            ThreadStatus::Active => ("●", palette.accent),
            ThreadStatus::Parked => ("‖", palette.muted),
            ThreadStatus::Resolved => ("✓", palette.decision),
        };
        // `found`: the search's matches in the thread.
        let counts: Vec<(String, Color)> = [
            (found, '⌕', palette.accent),
            (node.open_questions, '?', palette.question),
            (node.pending_confirmations, '⚠', palette.danger),
            (node.decisions, '✓', palette.decision),
        ]
        .into_iter()
        .filter(|(count, ..)| *count > 0)
        .map(|(count, sign, color)| (format!("{sign}{count}"), color))
        .collect();
        let mut right = line.right() - Pixels(6.0);
        let mut count_places = Vec::with_capacity(counts.len());
        for (words, _) in counts.iter().rev() {
            right -= self.measure(words);
            count_places.push(right);
            right -= Pixels(8.0);
        }
        let title_x = x + self.measure(mark) + Pixels(6.0);
        let title_clip = Rect {
            x: title_x,
            width: (right - title_x).max(Pixels::ZERO),
            height: line.height * 2.0,
            ..line
        };
        let strong = node.spec.parent.is_none();
        // A folded path's titles whole, and the line shown when it was shortened.
        let (fitted, path) = if above.is_empty() {
            let title = plain_text(&node.spec.title);
            (
                self.fit(&title, strong, title_x, title_clip, two_lines),
                None,
            )
        } else {
            let titles: Vec<String> = above
                .iter()
                .chain([&thread])
                .map(|&index| plain_text(&snapshot.threads[index].spec.title))
                .collect();
            let on_two = two_lines
                .then(|| self.path_on_two_lines(&titles, strong, title_x, title_clip))
                .flatten();
            let (fitted, shown) = on_two.unwrap_or_else(|| {
                let shown = self.path_that_fits(&titles, title_clip.width);
                (self.fit(&shown, strong, title_x, title_clip, false), shown)
            });
            (fitted, Some((whole_path(&titles), shown)))
        };
        let lines = fitted.lines.len();
        let row = Rect {
            height: line.height * lines as f32,
            ..line
        };
        if focused || in_view {
            if focused {
                self.scene.push_quad(Quad {
                    bounds: row,
                    clip: self.clip,
                    fill: Some(palette.focus_fill),
                    border: None,
                    corner_radius: Pixels(4.0),
                    layer: Layer::Panels,
                });
            }
            let bar = if focused {
                palette.accent
            } else {
                palette.accent.with_alpha(150)
            };
            self.scene.push_quad(Quad {
                bounds: Rect {
                    width: Pixels(3.0),
                    ..row
                },
                clip: self.clip,
                fill: Some(bar),
                border: None,
                corner_radius: Pixels::ZERO,
                layer: Layer::Panels,
            });
        }
        self.words(mark, false, mark_color, x, line.y, line);
        for ((words, color), at) in counts.iter().rev().zip(count_places) {
            self.words(words, true, *color, at, line.y, line);
        }
        let color = if node.status == ThreadStatus::Resolved {
            palette.muted
        } else {
            palette.text
        };
        let cut = fitted.cut;
        self.paint_lines(fitted, color, title_x, line.y, title_clip);
        // A folded path shortened to fit is shown whole on hover.
        if let Some((whole, _)) = path.filter(|(whole, shown)| cut || whole != shown) {
            self.cut = Some(whole);
        }
        lines
    }

    /// A folded path on two lines from `x` within `clip`: whole when it fits them, else
    /// shortened in the middle like [`path_that_fits`](Self::path_that_fits), keeping as many
    /// of the last titles as two lines hold; `None` when not even "first › … › last" does.
    fn path_on_two_lines(
        &mut self,
        titles: &[String],
        strong: bool,
        x: Pixels,
        clip: Rect,
    ) -> Option<(TwoLines, String)> {
        let (first, rest) = titles.split_first()?;
        let most = rest.len().min(MOST_TITLES);
        let whole = (titles.len() <= MOST_TITLES).then(|| titles.join(" › "));
        let shortened = (1..most).rev().map(|tail| {
            let kept = &rest[rest.len() - tail..];
            format!("{first} › … › {}", kept.join(" › "))
        });
        let saved = self.cut.take();
        let found = whole.into_iter().chain(shortened).find_map(|candidate| {
            let fitted = self.fit(&candidate, strong, x, clip, true);
            (!fitted.cut).then_some((fitted, candidate))
        });
        self.cut = saved;
        found
    }

    /// The titles of a folded path joined by "›", shortened in the middle until the line fits
    /// `room`: the first title, "…", then as many of the last ones as fit. When even "first ›
    /// … › last" is too wide, the first title is cut so that the last (the thread the row
    /// stands for) stays whole, or, where that leaves too little of it, to two fifths of the
    /// row, with the last cut at its end by `words`.
    fn path_that_fits(&mut self, titles: &[String], room: Pixels) -> String {
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

    /// The frame of `snapshot` at `width`×`height`, with the overview's pointer and keyboard
    /// on the rows given.
    fn frame_of(
        snapshot: &Snapshot,
        (width, height): (f32, f32),
        (hover, cursor): (Option<usize>, Option<usize>),
    ) -> (crate::layout::FrameLayout, Vec<OverviewRow>) {
        use crate::declutter::declutter;
        use crate::intent::{resolve_intent, IntentRequest, Viewport};
        use crate::layout::{overview_capacity, LayoutEngine};
        use crate::units::ScaleFactor;
        let request = IntentRequest {
            viewport: Viewport {
                width: Pixels(width),
                height: Pixels(height),
                scale: ScaleFactor(1.0),
            },
            overview_hover: hover,
            overview_cursor: cursor,
            ..IntentRequest::default()
        };
        let intent = resolve_intent(snapshot, &request).unwrap();
        let view = declutter(snapshot, &intent, overview_capacity(&intent));
        let frame = LayoutEngine::new(FontSet::BundledOnly).layout(snapshot, &view, &intent);
        (frame, view.overview)
    }

    /// The rows of the overview the pointer can hit, top first, as the window finds them.
    fn hit_rows(frame: &crate::layout::FrameLayout) -> Vec<(Rect, HitTarget)> {
        let panel = frame.regions.overview;
        let mut rows: Vec<_> = frame
            .hits
            .iter()
            .filter(|(rect, _)| panel.contains_xy(rect.x.as_f32() + 1.0, rect.y.as_f32() + 1.0))
            .copied()
            .collect();
        rows.sort_by(|a, b| a.0.y.as_f32().total_cmp(&b.0.y.as_f32()));
        rows
    }

    fn one_topic(title: &str) -> Snapshot {
        crate::test_support::snapshot_from(&[format!(
            r#"{{"type":"thread_opened","thread":{{"id":"t","parent":null,"title":"{title}","kind":"topic"}}}}"#
        )])
    }

    #[test]
    fn a_long_title_takes_a_second_line_where_the_panel_has_room() {
        let snapshot = one_topic("A thread title far too long for one row of the overview pane");
        let (frame, _) = frame_of(&snapshot, (1400.0, 500.0), (Some(0), None));
        let panel = frame.regions.overview;
        let rows = hit_rows(&frame);
        let row_height = Style::new(Theme::Dark, Density::Comfortable)
            .metrics
            .overview_row_height;
        assert_eq!(rows[0].0.height, row_height * 2.0, "{rows:?}");
        let title_lines: Vec<_> = frame
            .scene
            .texts
            .iter()
            .filter(|run| {
                run.layer == Layer::Panels
                    && rows[0]
                        .0
                        .contains_xy(run.origin.x.as_f32() + 1.0, run.origin.y.as_f32() + 1.0)
            })
            .filter(|run| run.text.width > Pixels(40.0))
            .collect();
        assert_eq!(title_lines.len(), 2, "the title on two lines");
        assert!(title_lines[1].origin.y > title_lines[0].origin.y);
        assert!(
            title_lines.iter().all(|run| run.text.width <= panel.width),
            "each line within the panel"
        );
        let overlays = frame
            .scene
            .texts
            .iter()
            .filter(|run| run.layer == Layer::Overlay);
        assert_eq!(
            overlays.count(),
            0,
            "nothing was cut, so the hover shows nothing"
        );
    }

    /// Sixty topics whose titles are too long for one row.
    fn many_long_topics() -> Snapshot {
        let long = "A thread title far too long for one row of the overview";
        let events: Vec<String> = (0..60)
            .map(|index| {
                format!(
                    r#"{{"type":"thread_opened","thread":{{"id":"t{index}","parent":null,"title":"{long} {index}","kind":"topic"}}}}"#
                )
            })
            .collect();
        crate::test_support::snapshot_from(&events)
    }

    #[test]
    fn a_full_panel_keeps_one_line_per_row_and_every_row() {
        let (frame, chosen) = frame_of(&many_long_topics(), (900.0, 500.0), (None, None));
        let style = Style::new(Theme::Dark, Density::Comfortable);
        let rows = hit_rows(&frame);
        let reachable = chosen
            .iter()
            .filter(|row| !matches!(row.entry, OverviewEntry::Collapsed { .. }));
        assert_eq!(rows.len(), reachable.count(), "every row chosen is drawn");
        let capacity = rows_that_fit(frame.regions.overview, &style);
        assert!(
            rows.len() + 1 >= capacity,
            "the panel is full: {} of {capacity}",
            rows.len()
        );
        assert!(rows
            .iter()
            .all(|(rect, _)| rect.height == style.metrics.overview_row_height));
    }

    #[test]
    fn the_ring_and_the_hover_are_on_the_row_the_window_counts_past_folded_rows() {
        let snapshot = crate::test_support::breadth_session(20, 200, 3);
        let (frame, chosen) = frame_of(&snapshot, (1280.0, 800.0), (None, None));
        let panel = frame.regions.overview;
        let rows = hit_rows(&frame);
        let folded = chosen
            .iter()
            .position(|row| matches!(row.entry, OverviewEntry::Collapsed { .. }));
        assert!(
            folded.is_some_and(|at| at + 1 < chosen.len()),
            "a row of folded threads above others: {chosen:?}"
        );
        for (place, (rect, _)) in rows.iter().enumerate() {
            let (frame, _) = frame_of(&snapshot, (1280.0, 800.0), (None, Some(place)));
            let ringed: Vec<Rect> = frame
                .scene
                .quads
                .iter()
                .filter(|quad| {
                    quad.fill.is_none()
                        && quad.border.is_some()
                        && panel
                            .contains_xy(quad.bounds.x.as_f32() + 1.0, quad.bounds.y.as_f32() + 1.0)
                })
                .map(|quad| quad.bounds)
                .collect();
            assert_eq!(ringed, vec![*rect], "row {place}");
        }
    }

    #[test]
    fn a_hovered_row_cut_to_fit_shows_whole_and_the_keyboards_row_is_ringed() {
        // A full panel: no row has room for a second line.
        let snapshot = many_long_topics();
        let frame = |hover: Option<usize>, cursor: Option<usize>| {
            frame_of(&snapshot, (900.0, 500.0), (hover, cursor)).0
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
        let row = hit_rows(&frame(None, None))[0].0;
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
