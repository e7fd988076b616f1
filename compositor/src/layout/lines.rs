//! Single lines of UI text (overview rows, header words), shaped once and reused.
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
        let chars: Vec<(usize, char)> = words.char_indices().collect();
        let (mut fits, mut too_long) = (0, chars.len());
        while too_long - fits > 1 {
            let middle = (fits + too_long) / 2;
            let candidate = format!("{}…", words[..chars[middle].0].trim_end());
            if self.line(&candidate, style, font_size, shaper).width <= room {
                fits = middle;
            } else {
                too_long = middle;
            }
        }
        let cut = chars.get(fits).map_or(words.len(), |(at, _)| *at);
        let shown = format!("{}…", words[..cut].trim_end());
        (self.line(&shown, style, font_size, shaper), shown)
    }
}
