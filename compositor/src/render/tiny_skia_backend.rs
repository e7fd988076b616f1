//! The CPU rasteriser: tiny-skia paths for quads, hand-blended glyph masks for text.
//!
//! Quads are clipped vertically exactly, by drawing into the band of rows the clip allows (a
//! band of a pixmap is contiguous memory, so this costs nothing); horizontal clipping, which
//! layout rarely needs, uses a tiny-skia mask. Glyph images are cached by cosmic-text's swash
//! cache, so a frame after the first rasterises no glyph it has seen.

use super::glyphs::{DeviceClip, FrameBuffer};
use super::Rasterizer;
use crate::color::Color;
use crate::scene::{Layer, Quad, Scene};
use crate::text::TextSystem;
use crate::units::{Rect, ScaleFactor};
use tiny_skia::{FillRule, Mask, Paint, PathBuilder, Pixmap, PixmapMut, Stroke, Transform};

/// Paints scenes into a tiny-skia [`Pixmap`].
#[derive(Debug)]
pub(crate) struct TinySkiaRasterizer {
    pixmap: Pixmap,
}

impl Default for TinySkiaRasterizer {
    fn default() -> Self {
        TinySkiaRasterizer {
            pixmap: Pixmap::new(1, 1).expect("a 1×1 pixmap is always valid"),
        }
    }
}

fn skia_color(color: Color) -> tiny_skia::Color {
    tiny_skia::Color::from_rgba8(color.r, color.g, color.b, color.a)
}

fn device_clip(rect: &Rect, scale: ScaleFactor) -> DeviceClip {
    DeviceClip {
        x0: (rect.x.0 * scale.0).floor() as i32,
        y0: (rect.y.0 * scale.0).floor() as i32,
        x1: (rect.right().0 * scale.0).ceil() as i32,
        y1: (rect.bottom().0 * scale.0).ceil() as i32,
    }
}

fn rounded_rect(x: f32, y: f32, width: f32, height: f32, radius: f32) -> Option<tiny_skia::Path> {
    let radius = radius.min(width * 0.5).min(height * 0.5).max(0.0);
    if radius <= 0.01 {
        return tiny_skia::Rect::from_xywh(x, y, width, height).map(PathBuilder::from_rect);
    }
    // The cubic control distance that best approximates a quarter circle.
    let k = radius * 0.447_715;
    let (right, bottom) = (x + width, y + height);
    let mut path = PathBuilder::new();
    path.move_to(x + radius, y);
    path.line_to(right - radius, y);
    path.cubic_to(right - k, y, right, y + k, right, y + radius);
    path.line_to(right, bottom - radius);
    path.cubic_to(right, bottom - k, right - k, bottom, right - radius, bottom);
    path.line_to(x + radius, bottom);
    path.cubic_to(x + k, bottom, x, bottom - k, x, bottom - radius);
    path.line_to(x, y + radius);
    path.cubic_to(x, y + k, x + k, y, x + radius, y);
    path.close();
    path.finish()
}

impl TinySkiaRasterizer {
    /// The painted frame.
    pub(crate) fn pixmap(&self) -> &Pixmap {
        &self.pixmap
    }

    /// Takes the painted frame.
    pub(crate) fn into_pixmap(self) -> Pixmap {
        self.pixmap
    }

    fn paint_quad(&mut self, quad: &Quad, scale: ScaleFactor) {
        let s = scale.0;
        let clip = device_clip(&quad.clip, scale);
        let (width, height) = (self.pixmap.width() as i32, self.pixmap.height() as i32);
        let band_top = clip.y0.clamp(0, height);
        let band_bottom = clip.y1.clamp(0, height);
        if band_bottom <= band_top || clip.x1 <= clip.x0.max(0) {
            return;
        }
        let bounds = quad.bounds;
        let (x, y, w, h) = (
            bounds.x.0 * s,
            bounds.y.0 * s,
            bounds.width.0 * s,
            bounds.height.0 * s,
        );
        let needs_mask = (x as i32) < clip.x0 || (x + w).ceil() as i32 > clip.x1;
        let mask = needs_mask
            .then(|| {
                let mut mask = Mask::new(width as u32, (band_bottom - band_top) as u32)?;
                let rect = tiny_skia::Rect::from_ltrb(
                    clip.x0.max(0) as f32,
                    0.0,
                    clip.x1.min(width) as f32,
                    (band_bottom - band_top) as f32,
                )?;
                mask.fill_path(
                    &PathBuilder::from_rect(rect),
                    FillRule::Winding,
                    false,
                    Transform::identity(),
                );
                Some(mask)
            })
            .flatten();
        if needs_mask && mask.is_none() {
            return;
        }
        let stride = width as usize * 4;
        let band =
            &mut self.pixmap.data_mut()[band_top as usize * stride..band_bottom as usize * stride];
        let Some(mut target) =
            PixmapMut::from_bytes(band, width as u32, (band_bottom - band_top) as u32)
        else {
            return;
        };
        let transform = Transform::from_translate(0.0, -(band_top as f32));
        let radius = quad.corner_radius.0 * s;
        if let Some(fill) = quad.fill {
            if let Some(path) = rounded_rect(x, y, w, h, radius) {
                let mut paint = Paint::default();
                paint.set_color(skia_color(fill));
                paint.anti_alias = true;
                target.fill_path(&path, &paint, FillRule::Winding, transform, mask.as_ref());
            }
        }
        if let Some((color, border_width)) = quad.border {
            let line = border_width.0 * s;
            let inset = line * 0.5;
            if let Some(path) = rounded_rect(
                x + inset,
                y + inset,
                w - line,
                h - line,
                (radius - inset).max(0.0),
            ) {
                let mut paint = Paint::default();
                paint.set_color(skia_color(color));
                paint.anti_alias = true;
                let stroke = Stroke {
                    width: line,
                    ..Stroke::default()
                };
                target.stroke_path(&path, &paint, &stroke, transform, mask.as_ref());
            }
        }
    }

    fn paint_texts(
        &mut self,
        scene: &Scene,
        layer: Layer,
        scale: ScaleFactor,
        text: &mut TextSystem,
    ) {
        let (width, height) = (self.pixmap.width() as i32, self.pixmap.height() as i32);
        let mut frame = FrameBuffer {
            data: self.pixmap.data_mut(),
            width,
            height,
        };
        let (font_system, glyph_cache) = text.glyph_rasterizer();
        for run in scene.texts.iter().filter(|run| run.layer == layer) {
            let clip = device_clip(&run.clip, scale);
            let origin_x = run.origin.x.0 * scale.0;
            let origin_y = run.origin.y.0 * scale.0;
            for positioned in &run.text.glyphs {
                let physical = positioned.glyph.physical(
                    (origin_x, origin_y + positioned.baseline * scale.0),
                    scale.0,
                );
                let color = positioned.glyph.color_opt.map_or(run.color, |color| Color {
                    r: color.r(),
                    g: color.g(),
                    b: color.b(),
                    a: color.a(),
                });
                if let Some(image) = glyph_cache.get_image(font_system, physical.cache_key) {
                    let x = physical.x + image.placement.left;
                    let y = physical.y - image.placement.top;
                    frame.blend_glyph(image, x, y, color, clip);
                }
            }
        }
    }
}

impl Rasterizer for TinySkiaRasterizer {
    fn paint(&mut self, scene: &Scene, scale: ScaleFactor, text: &mut TextSystem) {
        let width = scene.size.0.to_device(scale).0.max(1);
        let height = scene.size.1.to_device(scale).0.max(1);
        if self.pixmap.width() != width || self.pixmap.height() != height {
            if let Some(pixmap) = Pixmap::new(width, height) {
                self.pixmap = pixmap;
            }
        }
        self.pixmap.fill(skia_color(scene.background));
        for layer in Layer::ALL {
            for quad in scene.quads.iter().filter(|quad| quad.layer == layer) {
                self.paint_quad(quad, scale);
            }
            self.paint_texts(scene, layer, scale, text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::FontSet;
    use crate::units::Pixels;

    fn quad(bounds: Rect, clip: Rect) -> Quad {
        Quad {
            bounds,
            clip,
            fill: Some(Color::hex(0xff0000)),
            border: None,
            corner_radius: Pixels(4.0),
            layer: Layer::Cards,
        }
    }

    #[test]
    fn quads_paint_only_inside_their_clip_at_the_device_scale() {
        let mut scene = Scene::new(Pixels(40.0), Pixels(40.0), Color::hex(0x000000));
        scene.push_quad(quad(
            Rect::new(0.0, 0.0, 40.0, 40.0),
            Rect::new(10.0, 10.0, 10.0, 10.0),
        ));
        let mut rasterizer = TinySkiaRasterizer::default();
        let mut text = TextSystem::new(FontSet::BundledOnly);
        rasterizer.paint(&scene, ScaleFactor(2.0), &mut text);
        let pixmap = rasterizer.pixmap();
        assert_eq!((pixmap.width(), pixmap.height()), (80, 80));
        let red = pixmap.pixel(30, 30).unwrap();
        assert_eq!((red.red(), red.green(), red.alpha()), (255, 0, 255));
        for (x, y) in [(19, 30), (41, 30), (30, 19), (30, 41), (0, 0)] {
            let outside = pixmap.pixel(x, y).unwrap();
            assert_eq!(outside.red(), 0, "({x}, {y}) lies outside the clip");
        }
    }

    #[test]
    fn text_is_clipped_to_its_run_clip() {
        let mut text = TextSystem::new(FontSet::BundledOnly);
        let shaped = text.shape(
            &[("WWWWWWWWWW", crate::text::SpanStyle::default())],
            crate::text::TextLayoutParams {
                font_size: Pixels(20.0),
                line_height: Pixels(24.0),
                wrap_width: None,
                max_height: Pixels(100.0),
            },
        );
        let mut scene = Scene::new(Pixels(200.0), Pixels(40.0), Color::hex(0x000000));
        scene.push_text(crate::scene::TextRun {
            origin: crate::units::Point {
                x: Pixels(0.0),
                y: Pixels(0.0),
            },
            clip: Rect::new(0.0, 0.0, 50.0, 40.0),
            text: std::sync::Arc::new(shaped),
            color: Color::hex(0xffffff),
            layer: Layer::Cards,
        });
        let mut rasterizer = TinySkiaRasterizer::default();
        rasterizer.paint(&scene, ScaleFactor(1.0), &mut text);
        let lit = |x0: u32, x1: u32| {
            (x0..x1)
                .flat_map(|x| (0..40).map(move |y| (x, y)))
                .filter(|&(x, y)| rasterizer.pixmap().pixel(x, y).unwrap().red() > 0)
                .count()
        };
        assert!(lit(0, 50) > 50, "glyphs inside the clip are drawn");
        assert_eq!(lit(50, 200), 0, "nothing is drawn past the clip");
    }
}
