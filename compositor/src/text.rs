//! Text shaping with cosmic-text, and the fonts it draws from.
//!
//! The frame must render Russian and English on a machine with no fonts installed, so DejaVu
//! Sans (proportional, Latin + Cyrillic + many symbols) and DejaVu Sans Mono (code) are embedded
//! from the `dejavu` crate; system fonts are added only as a fallback (CJK, emoji) when asked,
//! because golden images must not depend on what a machine happens to have. This module turns
//! styled spans into [`ShapedText`]: positioned glyphs with a measured size. It does not decide
//! what text to show, nor draw anything.

use crate::color::Color;
use crate::identity::PaintId;
use crate::units::Pixels;
use cosmic_text::{
    fontdb, Attrs, Buffer, Family, FontSystem, LayoutGlyph, Metrics, Shaping, Style as FontStyle,
    SwashCache, Weight, Wrap,
};

/// The family names of the embedded fonts.
pub(crate) const SANS_FAMILY: &str = "DejaVu Sans";
/// The family name of the embedded monospace font.
pub(crate) const MONO_FAMILY: &str = "DejaVu Sans Mono";

/// Which fonts the text system may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FontSet {
    /// Only the embedded fonts: the same pixels on every machine (tests, benchmarks).
    BundledOnly,
    /// The embedded fonts first, system fonts as fallback for scripts they lack.
    BundledWithSystemFallback,
}

/// The style of a span of text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SpanStyle {
    /// Bold.
    pub strong: bool,
    /// Italic.
    pub emphasis: bool,
    /// Monospace.
    pub mono: bool,
    /// A colour other than the run's.
    pub color: Option<Color>,
}

/// Size and wrapping of a piece of text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextLayoutParams {
    /// Font size.
    pub font_size: Pixels,
    /// Line height.
    pub line_height: Pixels,
    /// The width to wrap at; `None` for one unwrapped line.
    pub wrap_width: Option<Pixels>,
    /// Lines past this height are not shaped at all: it bounds the work a huge text can cause.
    pub max_height: Pixels,
}

/// One glyph, positioned relative to the text's top-left corner.
#[derive(Clone, Debug)]
pub struct PositionedGlyph {
    /// The glyph as cosmic-text laid it out (x within its line).
    pub glyph: LayoutGlyph,
    /// The baseline of its line, from the top of the text.
    pub baseline: f32,
}

/// Text shaped and laid out, ready to draw at any scale.
#[derive(Clone, Debug, Default)]
pub struct ShapedText {
    /// Which shaping this is, for caches of what is painted from it.
    pub id: PaintId,
    /// Every glyph.
    pub glyphs: Vec<PositionedGlyph>,
    /// The widest line.
    pub width: Pixels,
    /// The height of all lines.
    pub height: Pixels,
    /// Whether lines were left out because of `max_height`.
    pub clipped: bool,
}

/// Fonts, the shaper and the glyph rasteriser cache.
pub struct TextSystem {
    font_system: FontSystem,
    glyph_cache: SwashCache,
}

impl std::fmt::Debug for TextSystem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextSystem")
            .field("faces", &self.font_system.db().len())
            .finish()
    }
}

impl TextSystem {
    /// A text system with the embedded fonts, and system fonts when `fonts` asks for them.
    pub fn new(fonts: FontSet) -> TextSystem {
        let mut db = fontdb::Database::new();
        for face in [
            dejavu::sans::regular(),
            dejavu::sans::bold(),
            dejavu::sans::oblique(),
            dejavu::sans::bold_oblique(),
            dejavu::sans_mono::regular(),
            dejavu::sans_mono::bold(),
        ] {
            db.load_font_source(fontdb::Source::Binary(std::sync::Arc::new(face)));
        }
        // Agents write emoji (✅ ⌛ 🚀) and DejaVu has few of them: Noto Emoji, monochrome so
        // it takes the text's colour, is the fallback on every machine (SIL OFL 1.1, shipped
        // by the egui project's font crate).
        db.load_font_source(fontdb::Source::Binary(std::sync::Arc::new(
            epaint_default_fonts::NOTO_EMOJI_REGULAR,
        )));
        if fonts == FontSet::BundledWithSystemFallback {
            db.load_system_fonts();
        }
        db.set_sans_serif_family(SANS_FAMILY);
        db.set_monospace_family(MONO_FAMILY);
        let font_system = FontSystem::new_with_locale_and_db("en-US".to_owned(), db);
        TextSystem {
            font_system,
            glyph_cache: SwashCache::new(),
        }
    }

    /// The shaper's font system, for the rasteriser.
    pub fn font_system(&mut self) -> &mut FontSystem {
        &mut self.font_system
    }

    /// The font system and the glyph image cache together, for the rasteriser.
    pub fn glyph_rasterizer(&mut self) -> (&mut FontSystem, &mut SwashCache) {
        (&mut self.font_system, &mut self.glyph_cache)
    }

    /// Shapes styled spans and lays them out.
    pub fn shape(&mut self, spans: &[(&str, SpanStyle)], params: TextLayoutParams) -> ShapedText {
        let metrics = Metrics::new(params.font_size.0, params.line_height.0);
        let mut buffer = Buffer::new(&mut self.font_system, metrics);
        buffer.set_wrap(if params.wrap_width.is_some() {
            Wrap::WordOrGlyph
        } else {
            Wrap::None
        });
        buffer.set_size(
            params.wrap_width.map(|width| width.0.max(1.0)),
            Some(params.max_height.0),
        );
        let base = Attrs::new().family(Family::SansSerif);
        buffer.set_rich_text(
            spans.iter().map(|&(text, style)| (text, attrs_for(style))),
            &base,
            Shaping::Advanced,
            None,
        );
        buffer.shape_until_scroll(&mut self.font_system, false);
        let mut shaped = ShapedText::default();
        let mut bottom = 0.0f32;
        let mut width = 0.0f32;
        for run in buffer.layout_runs() {
            width = width.max(run.line_w);
            bottom = bottom.max(run.line_top + run.line_height);
            shaped
                .glyphs
                .extend(run.glyphs.iter().map(|glyph| PositionedGlyph {
                    glyph: glyph.clone(),
                    baseline: run.line_y,
                }));
        }
        let total_lines: usize = buffer
            .lines
            .iter()
            .map(|line| line.layout_opt().map_or(1, |layout| layout.len()))
            .sum();
        shaped.clipped = (total_lines as f32) * params.line_height.0 > bottom + 0.5;
        shaped.width = Pixels(width);
        shaped.height = Pixels(bottom.max(params.line_height.0));
        shaped
    }
}

fn attrs_for(style: SpanStyle) -> Attrs<'static> {
    let mut attrs = Attrs::new().family(if style.mono {
        Family::Monospace
    } else {
        Family::SansSerif
    });
    if style.strong {
        attrs = attrs.weight(Weight::BOLD);
    }
    if style.emphasis {
        attrs = attrs.style(FontStyle::Italic);
    }
    if let Some(color) = style.color {
        attrs = attrs.color(cosmic_text::Color::rgba(color.r, color.g, color.b, color.a));
    }
    attrs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(width: Option<f32>) -> TextLayoutParams {
        TextLayoutParams {
            font_size: Pixels(14.0),
            line_height: Pixels(20.0),
            wrap_width: width.map(Pixels),
            max_height: Pixels(400.0),
        }
    }

    #[test]
    fn cyrillic_shapes_with_the_embedded_font_and_no_missing_glyphs() {
        let mut text = TextSystem::new(FontSet::BundledOnly);
        let shaped = text.shape(&[("Журнал событий", SpanStyle::default())], params(None));
        assert_eq!(shaped.glyphs.len(), "Журнал событий".chars().count());
        assert!(
            shaped.glyphs.iter().all(|glyph| glyph.glyph.glyph_id != 0),
            "glyph 0 is .notdef: a missing glyph"
        );
        assert!(shaped.width.0 > 50.0);
    }

    #[test]
    fn wrapping_makes_more_lines_at_a_narrower_width() {
        let mut text = TextSystem::new(FontSet::BundledOnly);
        let words = "the quick brown fox jumps over the lazy dog ".repeat(8);
        let wide = text.shape(&[(&words, SpanStyle::default())], params(Some(800.0)));
        let narrow = text.shape(&[(&words, SpanStyle::default())], params(Some(200.0)));
        assert!(
            narrow.height.0 > wide.height.0 * 2.0,
            "{:?} vs {:?}",
            narrow.height,
            wide.height
        );
        assert!(narrow.width.0 <= 200.0);
    }

    #[test]
    fn max_height_bounds_the_lines_laid_out() {
        let mut text = TextSystem::new(FontSet::BundledOnly);
        let long = "line\n".repeat(500);
        let shaped = text.shape(&[(&long, SpanStyle::default())], params(Some(300.0)));
        assert!(shaped.height.0 <= 420.0, "{:?}", shaped.height);
        assert!(shaped.clipped);
    }
}
