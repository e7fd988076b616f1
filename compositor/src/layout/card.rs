//! A small box-and-text tree for one card, laid out with taffy and measured with cosmic-text.
//!
//! Card contents are described as nested boxes (flex rows and columns with padding, fill and
//! border) whose leaves are text. taffy places the boxes; text leaves are measured by shaping
//! them at the width taffy offers, and the shaped result is kept so a leaf is shaped once per
//! width. [`CardBuilder::finish`] returns a [`CardLayout`]: quads and text runs relative to the
//! card's top-left corner, which the transcript caches and places. This module knows nothing
//! about what a card means.

use crate::answering::CardHit;
use crate::color::Color;
use crate::identity::PaintId;
use crate::scene::{Layer, Quad, Scene, TextRun};
use crate::search::Highlighter;
use crate::text::{ShapedText, SpanStyle, TextLayoutParams, TextSystem};
use crate::units::{Pixels, Point, Rect};
use std::sync::Arc;
use taffy::prelude::*;

/// How a box is painted.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Decoration {
    /// Fill colour.
    pub fill: Option<Color>,
    /// Border colour and width.
    pub border: Option<(Color, Pixels)>,
    /// Corner radius.
    pub radius: Pixels,
}

/// A text leaf: its spans, size and colour, and what shaping it has produced so far.
struct TextLeaf {
    spans: Vec<(String, SpanStyle)>,
    font_size: Pixels,
    line_height: Pixels,
    max_height: Pixels,
    wrap: bool,
    color: Color,
    shaped: Vec<(u32, Arc<ShapedText>)>,
}

enum NodeKind {
    Box(Decoration),
    Text(Box<TextLeaf>),
}

/// The laid-out contents of one card, relative to its top-left corner.
#[derive(Clone, Debug, Default)]
pub struct CardLayout {
    /// Which layout this is: a retained texture painted from it is keyed by this.
    pub id: PaintId,
    /// The card's height.
    pub height: Pixels,
    /// Its rectangles.
    pub quads: Vec<Quad>,
    /// Its text.
    pub texts: Vec<TextRun>,
    /// The parts the pointer can hit, innermost last.
    pub hits: Vec<(Rect, CardHit)>,
}

impl CardLayout {
    /// Copies the card into a scene with its top-left corner at `origin`, clipped to `clip`.
    pub fn paint(&self, scene: &mut Scene, origin: Point, clip: Rect) {
        for quad in &self.quads {
            let bounds = quad.bounds.translate(origin.x, origin.y);
            scene.push_quad(Quad {
                bounds,
                clip: quad.clip.translate(origin.x, origin.y).intersect(&clip),
                ..*quad
            });
        }
        for run in &self.texts {
            scene.push_text(TextRun {
                origin: Point {
                    x: run.origin.x + origin.x,
                    y: run.origin.y + origin.y,
                },
                clip: run.clip.translate(origin.x, origin.y).intersect(&clip),
                text: run.text.clone(),
                color: run.color,
                layer: run.layer,
            });
        }
    }
}

/// Builds one card's tree.
pub(super) struct CardBuilder {
    tree: TaffyTree<NodeKind>,
    tags: Vec<(NodeId, CardHit)>,
    /// Marks the search's words in every text leaf, in this colour.
    highlight: Option<(Highlighter, Color)>,
}

/// Text size and colour for a leaf.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct TextLook {
    /// Font size.
    pub font_size: Pixels,
    /// Line height.
    pub line_height: Pixels,
    /// Colour of spans without their own.
    pub color: Color,
    /// Whether the text wraps (otherwise one line, clipped).
    pub wrap: bool,
    /// The most height this text may take; lines past it are not shaped.
    pub max_height: Pixels,
}

impl Default for CardBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl CardBuilder {
    /// An empty tree.
    pub(super) fn new() -> CardBuilder {
        CardBuilder {
            tree: TaffyTree::new(),
            tags: Vec::new(),
            highlight: None,
        }
    }

    /// A builder whose text leaves mark where `highlighter` finds the search's words, in
    /// `color`.
    pub(super) fn highlighting(highlighter: Highlighter, color: Color) -> CardBuilder {
        CardBuilder {
            highlight: Some((highlighter, color)),
            ..CardBuilder::new()
        }
    }

    /// A text leaf that grows to fill its row or column.
    pub(super) fn text(&mut self, spans: Vec<(String, SpanStyle)>, look: TextLook) -> NodeId {
        self.text_with(
            spans,
            look,
            Style {
                flex_grow: 1.0,
                flex_shrink: 1.0,
                min_size: Size {
                    width: length(0.0),
                    height: auto(),
                },
                ..Style::default()
            },
        )
    }

    /// A text leaf that keeps its natural width (labels, badges).
    pub(super) fn label(&mut self, spans: Vec<(String, SpanStyle)>, look: TextLook) -> NodeId {
        self.text_with(
            spans,
            look,
            Style {
                flex_shrink: 0.0,
                ..Style::default()
            },
        )
    }

    fn text_with(
        &mut self,
        spans: Vec<(String, SpanStyle)>,
        look: TextLook,
        style: Style,
    ) -> NodeId {
        let spans = match &self.highlight {
            Some((highlighter, color)) => highlighter.mark(spans, *color),
            None => spans,
        };
        let leaf = TextLeaf {
            spans,
            font_size: look.font_size,
            line_height: look.line_height,
            max_height: look.max_height,
            wrap: look.wrap,
            color: look.color,
            shaped: Vec::new(),
        };
        self.tree
            .new_leaf_with_context(style, NodeKind::Text(Box::new(leaf)))
            .expect("taffy can always add a leaf")
    }

    /// A box around children, painted with `decoration`.
    pub(super) fn boxed(
        &mut self,
        style: Style,
        decoration: Decoration,
        children: &[NodeId],
    ) -> NodeId {
        let node = self
            .tree
            .new_with_children(style, children)
            .expect("children were created by this builder");
        self.tree
            .set_node_context(node, Some(NodeKind::Box(decoration)))
            .expect("the node was just created");
        node
    }

    /// Marks a node as a part the pointer can hit.
    pub(super) fn tag(&mut self, node: NodeId, hit: CardHit) {
        self.tags.push((node, hit));
    }

    /// Replaces a node's box style.
    pub(super) fn set_style(&mut self, node: NodeId, style: Style) {
        self.tree
            .set_style(node, style)
            .expect("the node was created by this builder");
    }

    /// A column of children with a gap.
    pub(super) fn column(&mut self, gap: Pixels, children: &[NodeId]) -> NodeId {
        self.boxed(
            column_style(gap, Pixels::ZERO),
            Decoration::default(),
            children,
        )
    }

    /// A column that takes the room left in a row and wraps its text to it, rather than
    /// pushing past the row's edge.
    pub(super) fn shrinking_column(&mut self, gap: Pixels, children: &[NodeId]) -> NodeId {
        let style = Style {
            flex_grow: 1.0,
            flex_shrink: 1.0,
            min_size: Size {
                width: length(0.0),
                height: auto(),
            },
            ..column_style(gap, Pixels::ZERO)
        };
        self.boxed(style, Decoration::default(), children)
    }

    /// A row of children with a gap, centred vertically.
    pub(super) fn row(&mut self, gap: Pixels, children: &[NodeId]) -> NodeId {
        self.boxed(
            row_style(gap, FlexWrap::NoWrap),
            Decoration::default(),
            children,
        )
    }

    /// A row of children that wraps onto more lines when they do not fit (buttons, pills).
    pub(super) fn wrapping_row(&mut self, gap: Pixels, children: &[NodeId]) -> NodeId {
        self.boxed(
            row_style(gap, FlexWrap::Wrap),
            Decoration::default(),
            children,
        )
    }

    /// Lays the tree out at `width` and collects its paint.
    pub(super) fn finish(
        mut self,
        root: NodeId,
        width: Pixels,
        text: &mut TextSystem,
    ) -> CardLayout {
        if let Ok(style) = self.tree.style(root) {
            let mut style = style.clone();
            style.size.width = length(width.0);
            self.set_style(root, style);
        }
        let available = Size {
            width: AvailableSpace::Definite(width.0),
            height: AvailableSpace::MaxContent,
        };
        let outcome = self.tree.compute_layout_with_measure(
            root,
            available,
            |inputs, _node, context, style| {
                taffy::compute_leaf_layout(
                    inputs,
                    style,
                    |_, _| 0.0,
                    |known, available| match context {
                        Some(NodeKind::Text(leaf)) => measure_text(leaf, known, available, text),
                        _ => Size::ZERO,
                    },
                )
            },
        );
        let mut layout = CardLayout::default();
        if outcome.is_err() {
            return layout;
        }
        let root_height = self
            .tree
            .layout(root)
            .map_or(0.0, |layout| layout.size.height);
        layout.height = Pixels(root_height);
        let card = Rect {
            x: Pixels::ZERO,
            y: Pixels::ZERO,
            width,
            height: Pixels(root_height),
        };
        self.collect(root, Point::default(), card, text, &mut layout);
        layout
    }

    fn collect(
        &mut self,
        node: NodeId,
        parent: Point,
        clip: Rect,
        text: &mut TextSystem,
        out: &mut CardLayout,
    ) {
        let Ok(placed) = self.tree.layout(node).cloned() else {
            return;
        };
        let origin = Point {
            x: parent.x + Pixels(placed.location.x),
            y: parent.y + Pixels(placed.location.y),
        };
        let bounds = Rect {
            x: origin.x,
            y: origin.y,
            width: Pixels(placed.size.width),
            height: Pixels(placed.size.height),
        };
        if let Some((_, hit)) = self.tags.iter().find(|(tagged, _)| *tagged == node) {
            out.hits.push((bounds, *hit));
        }
        match self.tree.get_node_context_mut(node) {
            Some(NodeKind::Box(decoration))
                if decoration.fill.is_some() || decoration.border.is_some() =>
            {
                out.quads.push(Quad {
                    bounds,
                    clip,
                    fill: decoration.fill,
                    border: decoration.border,
                    corner_radius: decoration.radius,
                    layer: Layer::Cards,
                });
            }
            Some(NodeKind::Text(leaf)) => {
                let content = Rect {
                    x: bounds.x + Pixels(placed.padding.left),
                    y: bounds.y + Pixels(placed.padding.top),
                    width: Pixels(placed.content_box_width()),
                    height: Pixels(placed.content_box_height()),
                };
                let shaped = shape_leaf(leaf, Some(content.width.0), text);
                out.texts.push(TextRun {
                    origin: Point {
                        x: content.x,
                        y: content.y,
                    },
                    clip: clip.intersect(&Rect {
                        height: content.height.max(shaped.height),
                        ..content
                    }),
                    text: shaped,
                    color: leaf.color,
                    layer: Layer::Cards,
                });
            }
            _ => {}
        }
        let children = self.tree.children(node).unwrap_or_default();
        for child in children {
            self.collect(child, origin, clip, text, out);
        }
    }
}

fn row_style(gap: Pixels, wrap: FlexWrap) -> Style {
    Style {
        flex_direction: FlexDirection::Row,
        flex_wrap: wrap,
        align_items: AlignItems::CENTER,
        gap: Size {
            width: length(gap.0),
            height: length(gap.0),
        },
        ..Style::default()
    }
}

/// A column with a gap and padding, children stretched to its width.
pub(super) fn column_style(gap: Pixels, padding: Pixels) -> Style {
    Style {
        flex_direction: FlexDirection::Column,
        gap: Size {
            width: length(gap.0),
            height: length(gap.0),
        },
        padding: taffy::Rect {
            left: length(padding.0),
            right: length(padding.0),
            top: length(padding.0),
            bottom: length(padding.0),
        },
        ..Style::default()
    }
}

fn width_key(width: Option<f32>) -> u32 {
    width.map_or(u32::MAX, |width| (width * 4.0).round().max(0.0) as u32)
}

fn shape_leaf(leaf: &mut TextLeaf, width: Option<f32>, text: &mut TextSystem) -> Arc<ShapedText> {
    let width = if leaf.wrap { width } else { None };
    let key = width_key(width);
    if let Some((_, shaped)) = leaf.shaped.iter().find(|(cached, _)| *cached == key) {
        return shaped.clone();
    }
    let spans: Vec<(&str, SpanStyle)> = leaf
        .spans
        .iter()
        .map(|(text, style)| (text.as_str(), *style))
        .collect();
    let shaped = Arc::new(text.shape(
        &spans,
        TextLayoutParams {
            font_size: leaf.font_size,
            line_height: leaf.line_height,
            wrap_width: width.map(Pixels),
            max_height: leaf.max_height,
        },
    ));
    leaf.shaped.push((key, shaped.clone()));
    shaped
}

fn measure_text(
    leaf: &mut TextLeaf,
    known: Size<Option<f32>>,
    available: Size<AvailableSpace>,
    text: &mut TextSystem,
) -> Size<f32> {
    let width = known.width.or(match available.width {
        AvailableSpace::Definite(width) => Some(width),
        AvailableSpace::MinContent | AvailableSpace::MaxContent => None,
    });
    let shaped = shape_leaf(leaf, width, text);
    let measured_width = if leaf.wrap {
        width.unwrap_or(shaped.width.0)
    } else {
        shaped.width.0
    };
    Size {
        width: known
            .width
            .unwrap_or(measured_width.min(shaped.width.0.max(1.0)).max(1.0)),
        height: known.height.unwrap_or(shaped.height.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::FontSet;

    fn look() -> TextLook {
        TextLook {
            font_size: Pixels(14.0),
            line_height: Pixels(20.0),
            color: Color::hex(0xffffff),
            wrap: true,
            max_height: Pixels(2000.0),
        }
    }

    #[test]
    fn a_column_of_text_is_as_tall_as_its_lines_plus_padding_and_gap() {
        let mut text = TextSystem::new(FontSet::BundledOnly);
        let mut card = CardBuilder::new();
        let first = card.text(vec![("One line".into(), SpanStyle::default())], look());
        let second = card.text(vec![("Another line".into(), SpanStyle::default())], look());
        let root = card.boxed(
            column_style(Pixels(6.0), Pixels(10.0)),
            Decoration {
                fill: Some(Color::hex(0x222222)),
                ..Default::default()
            },
            &[first, second],
        );
        let layout = card.finish(root, Pixels(400.0), &mut text);
        assert_eq!(layout.height, Pixels(20.0 + 6.0 + 20.0 + 20.0));
        assert_eq!(layout.texts.len(), 2);
        assert_eq!(layout.texts[1].origin.y, Pixels(10.0 + 20.0 + 6.0));
        assert_eq!(layout.quads.len(), 1);
    }

    #[test]
    fn long_text_wraps_to_the_card_width_and_never_exceeds_it() {
        let mut text = TextSystem::new(FontSet::BundledOnly);
        let mut card = CardBuilder::new();
        let words = "словами и words ".repeat(60);
        let leaf = card.text(vec![(words, SpanStyle::default())], look());
        let root = card.boxed(
            column_style(Pixels(0.0), Pixels(8.0)),
            Decoration::default(),
            &[leaf],
        );
        let layout = card.finish(root, Pixels(300.0), &mut text);
        let run = &layout.texts[0];
        assert!(run.text.width.0 <= 284.0 + 0.5, "{:?}", run.text.width);
        assert!(layout.height.0 > 100.0);
    }
}
