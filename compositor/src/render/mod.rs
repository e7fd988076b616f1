//! Stage four, Render: painting a display list into pixels.
//!
//! The [`Rasterizer`] trait is the one seam between the compositor and a pixel backend: it
//! takes a finished [`Scene`] and a scale. The CPU backend here is tiny-skia (the Rust port of
//! Skia's raster pipeline; skia-safe cannot be built where the build cannot download Skia). A
//! GPU or skia-safe backend implements the same trait. Nothing here knows about cards,
//! threads or themes.

mod glyphs;
pub(crate) mod svg;
mod tiny_skia_backend;

pub(crate) use tiny_skia_backend::TinySkiaRasterizer;

use crate::scene::Scene;
use crate::text::TextSystem;
use crate::units::ScaleFactor;

/// A backend that turns a display list into pixels.
pub(crate) trait Rasterizer {
    /// Paints `scene` at `scale`, replacing what the target held. `text` provides glyph
    /// images for the scene's shaped text.
    fn paint(&mut self, scene: &Scene, scale: ScaleFactor, text: &mut TextSystem);
}
