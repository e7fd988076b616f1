//! The display list: what to paint, in logical pixels, one `Vec` per primitive kind.
//!
//! As in GPUI's scene, primitives are kept by kind so a rasteriser can batch them, and each
//! carries a [`Layer`] that orders painting: every layer's quads are painted before its text.
//! Layout fills a scene; a rasteriser paints it. The scene knows nothing of snapshots, cards or
//! themes, only rectangles, colours and shaped glyphs.

use crate::text::ShapedText;
use crate::theme::Color;
use crate::units::{Pixels, Point, Rect};
use std::sync::Arc;

/// Painting order: lower layers first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layer {
    /// Panel backgrounds.
    Panels,
    /// Cards and what is inside them.
    Cards,
    /// Things drawn over cards (badges, the "new messages" pill, scroll indicators).
    Overlay,
}

impl Layer {
    /// Every layer, in painting order.
    pub const ALL: [Layer; 3] = [Layer::Panels, Layer::Cards, Layer::Overlay];
}

/// A filled and/or stroked rectangle, optionally with rounded corners.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quad {
    /// Where it is.
    pub bounds: Rect,
    /// Nothing outside this rectangle is painted.
    pub clip: Rect,
    /// The fill, if any.
    pub fill: Option<Color>,
    /// The border colour and width, if any (drawn inside the bounds).
    pub border: Option<(Color, Pixels)>,
    /// Corner radius.
    pub corner_radius: Pixels,
    /// Painting order.
    pub layer: Layer,
}

/// Shaped text placed at a point.
#[derive(Clone, Debug)]
pub struct TextRun {
    /// The top-left corner of the text.
    pub origin: Point,
    /// Nothing outside this rectangle is painted: text can never spill out of its card.
    pub clip: Rect,
    /// The glyphs.
    pub text: Arc<ShapedText>,
    /// The colour of glyphs that carry none of their own.
    pub color: Color,
    /// Painting order.
    pub layer: Layer,
}

/// A whole frame's display list.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The frame's size in logical pixels.
    pub size: (Pixels, Pixels),
    /// The colour under everything.
    pub background: Color,
    /// Rectangles.
    pub quads: Vec<Quad>,
    /// Text.
    pub texts: Vec<TextRun>,
}

impl Scene {
    /// An empty scene of a size.
    pub fn new(width: Pixels, height: Pixels, background: Color) -> Scene {
        Scene {
            size: (width, height),
            background,
            quads: Vec::new(),
            texts: Vec::new(),
        }
    }

    /// The whole frame as a rectangle.
    pub fn bounds(&self) -> Rect {
        Rect {
            x: Pixels::ZERO,
            y: Pixels::ZERO,
            width: self.size.0,
            height: self.size.1,
        }
    }

    /// Adds a quad unless it is clipped away entirely.
    pub fn push_quad(&mut self, quad: Quad) {
        if !quad.bounds.intersect(&quad.clip).is_empty() {
            self.quads.push(quad);
        }
    }

    /// Adds a text run unless it is clipped away entirely.
    pub fn push_text(&mut self, run: TextRun) {
        let bounds = Rect {
            x: run.origin.x,
            y: run.origin.y,
            width: run.text.width,
            height: run.text.height,
        };
        if !run.text.glyphs.is_empty() && !bounds.intersect(&run.clip).is_empty() {
            self.texts.push(run);
        }
    }
}
