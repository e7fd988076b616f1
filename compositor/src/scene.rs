//! The display list: what to paint, in logical pixels, one `Vec` per primitive kind.
//!
//! As in GPUI's scene, primitives are kept by kind so a rasteriser can batch them, and each
//! carries a [`Layer`] that orders painting: every layer's quads are painted before its text.
//! Layout fills a scene; a rasteriser paints it. The scene knows nothing of snapshots, cards or
//! themes, only rectangles, colours and shaped glyphs.

use crate::color::Color;
use crate::text::ShapedText;
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

    /// Moves the overlay layer's primitives into a scene of their own (transparent
    /// underneath), for a backend that composites overlays above separately painted cards.
    pub fn split_overlay(&mut self) -> Scene {
        let mut overlay = Scene::new(self.size.0, self.size.1, Color::TRANSPARENT);
        let (over, under): (Vec<_>, Vec<_>) = self
            .quads
            .drain(..)
            .partition(|quad| quad.layer == Layer::Overlay);
        self.quads = under;
        overlay.quads = over;
        let (over, under): (Vec<_>, Vec<_>) = self
            .texts
            .drain(..)
            .partition(|run| run.layer == Layer::Overlay);
        self.texts = under;
        overlay.texts = over;
        overlay
    }

    /// The smallest rectangle that holds everything the scene paints (clips applied), and a
    /// scene of that size with everything moved so the rectangle's corner is the origin. A
    /// backend keeps a small overlay as a small layer this way. `None` when nothing paints.
    pub fn cropped_to_content(&self) -> Option<(Rect, Scene)> {
        let painted = self
            .quads
            .iter()
            .map(|quad| quad.bounds.intersect(&quad.clip))
            .chain(self.texts.iter().map(|run| {
                Rect {
                    x: run.origin.x,
                    y: run.origin.y,
                    width: run.text.width,
                    height: run.text.height,
                }
                .intersect(&run.clip)
            }))
            .filter(|rect| !rect.is_empty());
        let bounds = painted.reduce(|a, b| {
            let x = a.x.min(b.x);
            let y = a.y.min(b.y);
            Rect {
                x,
                y,
                width: a.right().max(b.right()) - x,
                height: a.bottom().max(b.bottom()) - y,
            }
        })?;
        // Whole logical pixels, so the layer lands on the same device pixels as the frame's.
        let x = Pixels(bounds.x.0.floor());
        let y = Pixels(bounds.y.0.floor());
        let bounds = Rect {
            x,
            y,
            width: Pixels((bounds.right().0.ceil() - x.0).max(1.0)),
            height: Pixels((bounds.bottom().0.ceil() - y.0).max(1.0)),
        };
        let (dx, dy) = (Pixels::ZERO - bounds.x, Pixels::ZERO - bounds.y);
        let mut cropped = Scene::new(bounds.width, bounds.height, self.background);
        cropped.quads = self
            .quads
            .iter()
            .map(|quad| Quad {
                bounds: quad.bounds.translate(dx, dy),
                clip: quad.clip.translate(dx, dy),
                ..*quad
            })
            .collect();
        cropped.texts = self
            .texts
            .iter()
            .map(|run| TextRun {
                origin: Point {
                    x: run.origin.x + dx,
                    y: run.origin.y + dy,
                },
                clip: run.clip.translate(dx, dy),
                ..run.clone()
            })
            .collect();
        Some((bounds, cropped))
    }

    /// A hash of everything the scene paints. Shaped text is identified by its [`PaintId`](crate::identity::PaintId),
    /// which layout's caches keep stable while the text is unchanged, so equal fingerprints on
    /// consecutive frames mean equal pixels and the painted layer can be kept.
    pub fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        let rect = |rect: &Rect, hasher: &mut std::collections::hash_map::DefaultHasher| {
            for value in [rect.x, rect.y, rect.width, rect.height] {
                value.0.to_bits().hash(hasher);
            }
        };
        self.size.0 .0.to_bits().hash(&mut hasher);
        self.size.1 .0.to_bits().hash(&mut hasher);
        self.background.hash(&mut hasher);
        for quad in &self.quads {
            rect(&quad.bounds, &mut hasher);
            rect(&quad.clip, &mut hasher);
            quad.fill.hash(&mut hasher);
            if let Some((color, width)) = quad.border {
                color.hash(&mut hasher);
                width.0.to_bits().hash(&mut hasher);
            }
            quad.corner_radius.0.to_bits().hash(&mut hasher);
            quad.layer.hash(&mut hasher);
        }
        for run in &self.texts {
            run.origin.x.0.to_bits().hash(&mut hasher);
            run.origin.y.0.to_bits().hash(&mut hasher);
            rect(&run.clip, &mut hasher);
            run.text.id.hash(&mut hasher);
            run.color.hash(&mut hasher);
            run.layer.hash(&mut hasher);
        }
        hasher.finish()
    }
}
