//! Single lines of UI text (overview rows, header words), shaped once and reused, and the
//! two-line wrap of an overview title that has a spare row.
//!
//! The overview and header redraw every frame but rarely change, so their lines are cached by
//! text and style in a two-frame cache, like GPUI's line-layout cache. Agent-provided words are
//! sanitised here, on their way in, since every caller shows untrusted titles.

use super::cache::TwoFrameCache;
use crate::sanitize::sanitize_single_line;
use crate::text::{ShapedText, SpanStyle, TextLayoutParams, TextSystem};
use crate::units::Pixels;
use std::sync::Arc;

/// Longest line shaped, in characters; the rest is clipped anyway.
pub(super) const LINE_CHARS: usize = 240;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct LineKey {
    text: String,
    style: SpanStyle,
    size_quarter_px: u32,
}

/// Words fitted to a width on at most two lines.
#[derive(Clone, Debug)]
pub(super) struct TwoLines {
    /// The lines, top first: one when the words fit on it.
    pub lines: Vec<Arc<ShapedText>>,
    /// Whether the second line was cut with "…".
    pub cut: bool,
}

/// Shaped single lines, kept for two frames.
#[derive(Debug, Default)]
pub(super) struct LineCache {
    lines: TwoFrameCache<LineKey, Arc<ShapedText>>,
}

impl LineCache {
    /// Starts a frame.
    pub(super) fn next_frame(&mut self) {
        self.lines.next_frame();
    }

    /// One line of (untrusted) text at a size, shaped without wrapping.
    pub(super) fn line(
        &mut self,
        text: &str,
        style: SpanStyle,
        font_size: Pixels,
        shaper: &mut TextSystem,
    ) -> Arc<ShapedText> {
        let clean = sanitize_single_line(text, LINE_CHARS).text;
        let key = LineKey {
            text: clean,
            style,
            size_quarter_px: (font_size.0 * 4.0).round() as u32,
        };
        let words = key.text.clone();
        self.lines.get_or_insert_with(key, || {
            Arc::new(shaper.shape(
                &[(&words, style)],
                TextLayoutParams {
                    font_size,
                    line_height: Pixels((font_size.0 * 1.3).round()),
                    wrap_width: None,
                    max_height: Pixels(font_size.0 * 3.0),
                },
            ))
        })
    }

    /// One line of (untrusted) text cut to `room`: when it is wider, the longest prefix whose
    /// "…" still fits (found by halving), cut at a character, never mid-glyph at the edge.
    /// Returns the shaped line and the words it shows.
    pub(super) fn line_within(
        &mut self,
        words: &str,
        style: SpanStyle,
        font_size: Pixels,
        room: Pixels,
        shaper: &mut TextSystem,
    ) -> (Arc<ShapedText>, String) {
        let line = self.line(words, style, font_size, shaper);
        if line.width <= room || room <= Pixels::ZERO {
            return (line, words.to_owned());
        }
        let char_ends: Vec<usize> = words.char_indices().skip(1).map(|(at, _)| at).collect();
        let cut = longest_prefix(&char_ends, |end| {
            let candidate = format!("{}…", words[..end].trim_end());
            self.line(&candidate, style, font_size, shaper).width <= room
        })
        .unwrap_or(0);
        let shown = format!("{}…", words[..cut].trim_end());
        (self.line(&shown, style, font_size, shaper), shown)
    }

    /// Untrusted words on at most two lines of `room`: the first breaks after the last whole
    /// word that fits (at a character when even the first word is wider), the second holds
    /// the rest, cut with "…" like [`line_within`](Self::line_within) when it is still too
    /// wide.
    pub(super) fn two_lines_within(
        &mut self,
        words: &str,
        style: SpanStyle,
        font_size: Pixels,
        room: Pixels,
        shaper: &mut TextSystem,
    ) -> TwoLines {
        let whole = self.line(words, style, font_size, shaper);
        if whole.width <= room || room <= Pixels::ZERO {
            return TwoLines {
                lines: vec![whole],
                cut: false,
            };
        }
        // Where a line may break: after a word, before the space that follows it.
        let word_ends: Vec<usize> = words
            .char_indices()
            .filter(|&(at, c)| c.is_whitespace() && at > 0)
            .map(|(at, _)| at)
            .collect();
        let char_ends: Vec<usize> = words.char_indices().skip(1).map(|(at, _)| at).collect();
        let mut fits = |end: usize| {
            let prefix = words[..end].trim_end();
            self.line(prefix, style, font_size, shaper).width <= room
        };
        let break_at = longest_prefix(&word_ends, &mut fits)
            .or_else(|| longest_prefix(&char_ends, &mut fits))
            .unwrap_or_else(|| char_ends.first().copied().unwrap_or(words.len()));
        let first = self.line(words[..break_at].trim_end(), style, font_size, shaper);
        let rest = words[break_at..].trim_start();
        let (second, shown) = self.line_within(rest, style, font_size, room, shaper);
        TwoLines {
            lines: vec![first, second],
            cut: shown != rest,
        }
    }
}

/// The last of `ends` (byte offsets, ascending) for which `fits` holds, found by halving:
/// a longer prefix of a line is never narrower.
fn longest_prefix(ends: &[usize], mut fits: impl FnMut(usize) -> bool) -> Option<usize> {
    let (mut best, mut low, mut high) = (None, 0, ends.len());
    while low < high {
        let middle = (low + high) / 2;
        if fits(ends[middle]) {
            best = Some(ends[middle]);
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::FontSet;

    fn fitted(words: &str, room: f32) -> TwoLines {
        let mut cache = LineCache::default();
        let mut text = TextSystem::new(FontSet::BundledOnly);
        cache.two_lines_within(
            words,
            SpanStyle::default(),
            Pixels(14.0),
            Pixels(room),
            &mut text,
        )
    }

    #[test]
    fn words_that_fit_stay_on_one_line() {
        let two = fitted("Storage and the event log", 400.0);
        assert_eq!((two.lines.len(), two.cut), (1, false));
    }

    #[test]
    fn a_long_title_breaks_after_a_word_and_both_lines_fit() {
        let words = "Выбор формата контрольной точки для журнала событий";
        let two = fitted(words, 260.0);
        assert_eq!(two.lines.len(), 2, "wider than 260 px on one line");
        assert!(!two.cut, "two lines of 260 px hold it");
        assert!(two.lines.iter().all(|line| line.width <= Pixels(260.0)));
        let one = fitted(words, 2000.0).lines[0].width;
        let together = two.lines[0].width + two.lines[1].width;
        assert!(
            together < one,
            "the space at the break is not drawn: {together:?} {one:?}"
        );
    }

    #[test]
    fn what_two_lines_cannot_hold_is_cut_on_the_second() {
        let words = "a title long enough that even two narrow lines of the overview cannot hold it";
        let two = fitted(words, 120.0);
        assert_eq!((two.lines.len(), two.cut), (2, true));
        assert!(two.lines.iter().all(|line| line.width <= Pixels(120.0)));
    }

    #[test]
    fn one_word_wider_than_the_row_is_broken_at_a_character() {
        let two = fitted(&"x".repeat(120), 150.0);
        assert_eq!(two.lines.len(), 2);
        assert!(two.lines[0].width <= Pixels(150.0) && two.lines[0].width > Pixels(100.0));
    }
}
