//! A scene written as an SVG document, with its text as text.
//!
//! A picture a reviewer attaches to a review should stay sharp at any zoom and its words
//! searchable and copyable, so the export is SVG: each quad a `<rect>`, each line of words a
//! `<text>` (with a `<title>`, shown on hover, where the line was cut). Shaped glyphs cannot
//! be written as text, so the painter that fills the scene hands its words alongside as
//! [`SvgLabel`]s, and the scene's own text runs are not written. The document is built with
//! the `svg` crate, which escapes what it writes; agent words are sanitised here first, since
//! XML allows no control characters at all.

use crate::color::Color;
use crate::sanitize::sanitize_single_line;
use crate::scene::{Layer, Scene};
use crate::units::{Pixels, Point};
use svg::node::element::{Rectangle, Text, Title};
use svg::Document;

/// The font families asked for: the bundled face first, then what a viewer has.
const FONT_FAMILY: &str = "DejaVu Sans, Verdana, sans-serif";

/// Where the baseline sits below a line's top, in font sizes (DejaVu Sans's ascent in the
/// line box the shaper uses, 1.3 sizes high).
const BASELINE: f32 = 1.0;

/// The longest line written, in characters.
const LABEL_CHARS: usize = 400;

/// One line of words as painted: what it says and where.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SvgLabel {
    /// The words shown (already cut to their room, with "…").
    pub words: String,
    /// The top-left corner of the line.
    pub origin: Point,
    /// The font size.
    pub size: Pixels,
    /// Bold.
    pub strong: bool,
    /// The colour.
    pub color: Color,
    /// The whole of what the line stands for, shown on hover, when it was cut.
    pub whole: Option<String>,
}

fn paint(color: Color) -> (String, f32) {
    (
        format!("#{:02x}{:02x}{:02x}", color.r, color.g, color.b),
        f32::from(color.a) / 255.0,
    )
}

/// Writes `scene`'s quads and `labels` as a standalone SVG document of the scene's size.
pub(crate) fn scene_to_svg(scene: &Scene, labels: &[SvgLabel]) -> String {
    let (width, height) = (scene.size.0.as_f32(), scene.size.1.as_f32());
    let (background, _) = paint(scene.background);
    let mut document = Document::new()
        .set("width", width)
        .set("height", height)
        .set("viewBox", (0.0, 0.0, width, height))
        .add(
            Rectangle::new()
                .set("width", "100%")
                .set("height", "100%")
                .set("fill", background),
        );
    for layer in Layer::ALL {
        for quad in scene.quads.iter().filter(|quad| quad.layer == layer) {
            let bounds = quad.bounds.intersect(&quad.clip);
            if bounds.is_empty() {
                continue;
            }
            let mut rect = Rectangle::new()
                .set("x", bounds.x.as_f32())
                .set("y", bounds.y.as_f32())
                .set("width", bounds.width.as_f32())
                .set("height", bounds.height.as_f32());
            if quad.corner_radius > Pixels::ZERO {
                rect = rect.set("rx", quad.corner_radius.as_f32());
            }
            rect = match quad.fill {
                Some(fill) => {
                    let (color, opacity) = paint(fill);
                    rect.set("fill", color).set("fill-opacity", opacity)
                }
                None => rect.set("fill", "none"),
            };
            if let Some((border, stroke_width)) = quad.border {
                let (color, opacity) = paint(border);
                rect = rect
                    .set("stroke", color)
                    .set("stroke-opacity", opacity)
                    .set("stroke-width", stroke_width.as_f32());
            }
            document = document.add(rect);
        }
    }
    for label in labels {
        let words = sanitize_single_line(&label.words, LABEL_CHARS).text;
        let (color, opacity) = paint(label.color);
        let mut text = Text::new(words)
            .set("x", label.origin.x.as_f32())
            .set(
                "y",
                label.origin.y.as_f32() + label.size.as_f32() * BASELINE,
            )
            .set("font-family", FONT_FAMILY)
            .set("font-size", label.size.as_f32())
            .set("fill", color)
            .set("fill-opacity", opacity);
        if label.strong {
            text = text.set("font-weight", "bold");
        }
        if let Some(whole) = label.whole.as_deref().filter(|whole| label.words != *whole) {
            let whole = sanitize_single_line(whole, LABEL_CHARS).text;
            text = text.add(Title::new(whole));
        }
        document = document.add(text);
    }
    document.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Quad;
    use crate::units::Rect;

    #[test]
    fn quads_become_rects_and_labels_text_with_hostile_words_made_safe() {
        let mut scene = Scene::new(Pixels(200.0), Pixels(100.0), Color::hex(0x101010));
        let clip = scene.bounds();
        scene.push_quad(Quad {
            bounds: Rect::new(10.0, 10.0, 50.0, 20.0),
            clip,
            fill: Some(Color::hex(0x336699).with_alpha(128)),
            border: Some((Color::hex(0xffffff), Pixels(2.0))),
            corner_radius: Pixels(4.0),
            layer: Layer::Cards,
        });
        let label = |words: &str, whole: Option<&str>| SvgLabel {
            words: words.to_owned(),
            origin: Point {
                x: Pixels(12.0),
                y: Pixels(12.0),
            },
            size: Pixels(10.0),
            strong: true,
            color: Color::hex(0xeeeeee),
            whole: whole.map(str::to_owned),
        };
        let svg = scene_to_svg(
            &scene,
            &[
                label(
                    "<script>\u{1b}[31m & \u{202e}",
                    Some("<script> the whole title"),
                ),
                label("Plain", Some("Plain")),
            ],
        );
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains(r##"fill="#336699""##), "{svg}");
        assert!(svg.contains("rx=\"4\""), "{svg}");
        // The svg crate puts a text's words on a line of their own; SVG drops that whitespace.
        assert!(
            svg.contains("\n&lt;script&gt;^[[31m &amp; \n<title>"),
            "{svg}"
        );
        assert!(
            svg.contains("<title>&lt;script&gt; the whole title</title>"),
            "{svg}"
        );
        assert!(!svg.contains('\u{1b}') && !svg.contains('\u{202e}'));
        assert_eq!(
            svg.matches("<title>").count(),
            1,
            "an uncut line has no hover"
        );
        assert_eq!(svg.matches("<text").count(), 2);
    }
}
