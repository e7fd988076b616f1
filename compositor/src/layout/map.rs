//! The branch map drawn into a scene: over the frame in the window (`m`), or alone at its own
//! size for `chatsurface map --out map.png`.
//!
//! The arrangement (`map/arrange.rs`) says where nodes and lines are in map pixels; this
//! module places them through the camera, culls what falls outside the map's area, and
//! paints: lines first, then each node's box, its title and its counts. Text too small to
//! read at the zoom is left out, so a fitted map of thousands of threads stays a picture of
//! its shape. Agent titles are shaped safely by the line cache.

use super::lines::LineCache;
use super::HitTarget;
use crate::color::Color;
use crate::map::arrange::{arrange, Arrangement, MapNode};
use crate::map::{MapCamera, MapFrame, MapView};
use crate::markdown::plain_text;
use crate::render::svg::SvgLabel;
use crate::scene::{Layer, Quad, Scene, TextRun};
use crate::text::{SpanStyle, TextSystem};
use crate::theme::Style;
use crate::units::{Pixels, Point, Rect};
use crate::words::{Lang, Noun, Word};
use chatsurface_model::{Snapshot, ThreadStatus};

/// Below this size on the screen, text is not drawn: it would be a smudge.
const SMALLEST_READABLE: f32 = 4.5;

/// How opaque an abandoned (parked) branch is drawn, of 255.
const ABANDONED_ALPHA: u8 = 120;

/// A status's mark, as the overview draws it.
pub(super) fn status_mark(status: ThreadStatus) -> &'static str {
    match status {
        ThreadStatus::Active => "●",
        ThreadStatus::Parked => "‖",
        ThreadStatus::Resolved => "✓",
    }
}

/// The second line of a node: its messages and, for a branch, where it left its parent.
pub(crate) fn node_facts(snapshot: &Snapshot, node: &MapNode, lang: Lang) -> String {
    let thread = &snapshot.threads[node.thread];
    let mut facts = vec![lang.count(thread.messages, Noun::Message)];
    if thread.decisions > 0 {
        facts.push(lang.count(thread.decisions, Noun::Decision));
    }
    if let Some(split) = node.split {
        facts.push(lang.branched_after(split));
    }
    facts.join(" · ")
}

/// The counts at a node's right: the search's matches (`found`), open questions, pending
/// confirmations.
pub(crate) fn node_counts(
    snapshot: &Snapshot,
    (thread, found): (usize, usize),
    style: &Style,
) -> Vec<(String, Color)> {
    let node = &snapshot.threads[thread];
    let palette = style.palette;
    [
        (found, '⌕', palette.accent),
        (node.open_questions, '?', palette.question),
        (node.pending_confirmations, '⚠', palette.danger),
    ]
    .into_iter()
    .filter(|(count, ..)| *count > 0)
    .map(|(count, sign, color)| (format!("{sign}{count}"), color))
    .collect()
}

/// How a node's box is drawn: its fill, its border and the colour of its words.
pub(crate) fn node_look(
    snapshot: &Snapshot,
    node: &MapNode,
    selected: bool,
    style: &Style,
) -> (Color, (Color, f32), Color) {
    let palette = style.palette;
    let thread = &snapshot.threads[node.thread];
    let abandoned = thread.status == ThreadStatus::Parked;
    let fill = if selected {
        palette.focus_fill
    } else if abandoned {
        palette.card.with_alpha(ABANDONED_ALPHA)
    } else {
        palette.card
    };
    let border = if selected {
        (palette.accent, 3.0)
    } else if thread.pending_confirmations > 0 {
        (palette.danger, 2.0)
    } else if thread.open_questions > 0 {
        (palette.question, 2.0)
    } else if node.on_final_path {
        (palette.accent, 2.0)
    } else if abandoned {
        (palette.border.with_alpha(ABANDONED_ALPHA), 1.0)
    } else {
        (palette.border, 1.0)
    };
    let words = if abandoned || thread.status == ThreadStatus::Resolved {
        palette.muted
    } else {
        palette.text
    };
    (fill, border, words)
}

/// What a painted map is for the pointer: each node shown, then the map's area.
pub(super) type MapHits = Vec<(Rect, HitTarget)>;

struct MapPainter<'a> {
    snapshot: &'a Snapshot,
    /// The search's matches by thread (empty without a search).
    found: &'a [usize],
    map: &'a Arrangement,
    style: &'a Style,
    lang: Lang,
    camera: MapCamera,
    area: Rect,
    selected: Option<usize>,
    scene: &'a mut Scene,
    lines: &'a mut LineCache,
    text: &'a mut TextSystem,
    /// Every line of words drawn, as words, for the SVG export.
    labels: Vec<SvgLabel>,
}

impl MapPainter<'_> {
    fn quad(
        &mut self,
        bounds: Rect,
        fill: Option<Color>,
        border: Option<(Color, Pixels)>,
        radius: Pixels,
    ) {
        self.scene.push_quad(Quad {
            bounds,
            clip: self.area,
            fill,
            border,
            corner_radius: radius,
            layer: Layer::Overlay,
        });
    }

    /// One straight line, as a thin quad (every line of the map runs across or down).
    fn segment(&mut self, from: Point, to: Point, width: f32, color: Color) {
        let (from, to) = (
            self.camera.point_to_frame(from, self.area),
            self.camera.point_to_frame(to, self.area),
        );
        let half = width * 0.5;
        let bounds = Rect {
            x: from.x.min(to.x) - Pixels(half),
            y: from.y.min(to.y) - Pixels(half),
            width: (from.x - to.x).abs() + Pixels(width),
            height: (from.y - to.y).abs() + Pixels(width),
        };
        self.quad(bounds, Some(color), None, Pixels::ZERO);
    }

    /// One line of words at `at`, cut with "…" to `room`; `whole` is what a hover shows
    /// where the line stands for more than it says. Returns the width drawn.
    fn words(
        &mut self,
        words: &str,
        (strong, size): (bool, Pixels),
        (at, room): (Point, Pixels),
        color: Color,
        whole: Option<&str>,
    ) -> Pixels {
        let style = SpanStyle {
            strong,
            ..SpanStyle::default()
        };
        let (line, shown) = self.lines.line_within(words, style, size, room, self.text);
        let width = line.width;
        let clip = Rect {
            x: at.x,
            y: at.y,
            width: room,
            height: line.height,
        }
        .intersect(&self.area);
        self.labels.push(SvgLabel {
            words: shown,
            origin: at,
            size,
            strong,
            color,
            whole: whole.map(str::to_owned),
        });
        self.scene.push_text(TextRun {
            origin: at,
            clip,
            text: line,
            color,
            layer: Layer::Overlay,
        });
        width
    }

    fn paint(&mut self) -> MapHits {
        let palette = self.style.palette;
        let zoom = self.camera.zoom;
        let thin = (1.5 * zoom).clamp(1.0, 4.0);
        let thick = (3.0 * zoom).clamp(1.5, 6.0);
        for edge in &self.map.edges {
            let box_of = |a: Point, b: Point| Rect {
                x: a.x.min(b.x),
                y: a.y.min(b.y),
                width: (a.x - b.x).abs() + Pixels(1.0),
                height: (a.y - b.y).abs() + Pixels(1.0),
            };
            let shown = self
                .camera
                .to_frame(box_of(edge.start, edge.end), self.area);
            if shown.intersect(&self.area).is_empty() {
                continue;
            }
            let abandoned = self.snapshot.threads[edge.thread].status == ThreadStatus::Parked;
            let (width, color) = if edge.on_final_path {
                (thick, palette.accent)
            } else if abandoned {
                (thin, palette.border.with_alpha(ABANDONED_ALPHA))
            } else {
                (thin, palette.muted)
            };
            self.segment(edge.start, edge.bend, width, color);
            if edge.bend != edge.end {
                self.segment(edge.bend, edge.end, width, color);
            }
        }

        let metrics = self.map.metrics;
        let font = self.style.metrics.font_size * zoom;
        let small = self.style.metrics.small_font_size * zoom;
        let readable = small.as_f32() >= SMALLEST_READABLE;
        if readable {
            for continued in &self.map.continuations {
                let band = self.camera.to_frame(continued.rect, self.area);
                if band.intersect(&self.area).is_empty() {
                    continue;
                }
                let title = plain_text(&self.snapshot.threads[continued.thread].spec.title);
                let at = Point {
                    x: band.x,
                    y: band.y,
                };
                self.words(
                    &format!("↳ {title} …"),
                    (false, small),
                    (at, band.width),
                    palette.muted,
                    None,
                );
            }
        }
        let mut hits = Vec::new();
        for node in &self.map.nodes {
            let bounds = self.camera.to_frame(node.rect, self.area);
            let visible = bounds.intersect(&self.area);
            if visible.is_empty() {
                continue;
            }
            let selected = self.selected == Some(node.thread);
            let (fill, (border, border_width), color) =
                node_look(self.snapshot, node, selected, self.style);
            let radius = Pixels((6.0 * zoom).min(8.0));
            self.quad(
                bounds,
                Some(fill),
                Some((
                    border,
                    Pixels((border_width * zoom).clamp(1.0, border_width)),
                )),
                radius,
            );
            hits.push((visible, HitTarget::MapNode(node.thread)));
            if !readable {
                continue;
            }
            let padding = metrics.padding * zoom;
            let thread = &self.snapshot.threads[node.thread];
            let mut right = bounds.right() - padding;
            for (count, count_color) in node_counts(
                self.snapshot,
                (
                    node.thread,
                    self.found.get(node.thread).copied().unwrap_or(0),
                ),
                self.style,
            )
            .into_iter()
            .rev()
            {
                let width = self
                    .lines
                    .line(
                        &count,
                        SpanStyle {
                            strong: true,
                            ..SpanStyle::default()
                        },
                        font,
                        self.text,
                    )
                    .width;
                right -= width;
                let at = Point {
                    x: right,
                    y: bounds.y + padding,
                };
                self.words(
                    &count,
                    (true, font),
                    (at, width + Pixels(1.0)),
                    count_color,
                    None,
                );
                right -= padding * 0.5;
            }
            let x = bounds.x + padding;
            let top = bounds.y + padding;
            let whole = plain_text(&thread.spec.title);
            let title = format!("{} {whole}", status_mark(thread.status));
            let strong = thread.spec.parent.is_none();
            self.words(
                &title,
                (strong, font),
                (Point { x, y: top }, right - x),
                color,
                Some(&whole),
            );
            let facts = node_facts(self.snapshot, node, self.lang);
            let second = Point {
                x,
                y: top + font * 1.3 + Pixels(2.0 * zoom),
            };
            let room = bounds.right() - padding - x;
            self.words(&facts, (false, small), (second, room), palette.muted, None);
        }
        hits.push((self.area, HitTarget::MapArea));
        hits
    }
}

/// The map over the whole frame, as the window shows it: a heading band with the session's
/// title, counts and keys, and the map under it through the view's camera (fitted when it
/// has none; moved to show the selected node when asked).
pub(super) fn paint_map_overlay(
    (snapshot, found): (&Snapshot, &[usize]),
    view: &MapView,
    frame: Rect,
    (style, lang): (&Style, Lang),
    scene: &mut Scene,
    lines: &mut LineCache,
    text: &mut TextSystem,
) -> (MapHits, MapFrame) {
    let palette = style.palette;
    let metrics = style.metrics;
    scene.push_quad(Quad {
        bounds: frame,
        clip: frame,
        fill: Some(palette.background),
        border: None,
        corner_radius: Pixels::ZERO,
        layer: Layer::Overlay,
    });
    let band = Rect {
        height: metrics.line_height * 2.0 + Pixels(16.0),
        ..frame
    };
    scene.push_quad(Quad {
        bounds: band,
        clip: frame,
        fill: Some(palette.panel),
        border: None,
        corner_radius: Pixels::ZERO,
        layer: Layer::Overlay,
    });
    let mut heading = vec![
        lang.word(Word::BranchMap).to_owned(),
        plain_text(snapshot.title()),
        lang.count(snapshot.threads.len(), Noun::Thread),
    ];
    if snapshot.open_questions() > 0 {
        heading.push(lang.count(snapshot.open_questions(), Noun::OpenQuestion));
    }
    let left = frame.x + Pixels(12.0);
    let room = frame.width - Pixels(24.0);
    for (row, (words, strong, color)) in [
        (heading.join(" · "), true, palette.text),
        (lang.word(Word::MapKeys).to_owned(), false, palette.muted),
    ]
    .into_iter()
    .enumerate()
    {
        let (line, _) = lines.line_within(
            &words,
            SpanStyle {
                strong,
                ..SpanStyle::default()
            },
            metrics.font_size,
            room,
            text,
        );
        scene.push_text(TextRun {
            origin: Point {
                x: left,
                y: band.y + Pixels(8.0) + metrics.line_height * row as f32,
            },
            clip: band,
            text: line,
            color,
            layer: Layer::Overlay,
        });
    }
    let area = Rect {
        x: frame.x,
        y: band.bottom(),
        width: frame.width,
        height: (frame.height - band.height).max(Pixels(1.0)),
    };
    let map = arrange(snapshot, style, area.width.as_f32() / area.height.as_f32());
    let mut camera = view
        .camera
        .unwrap_or_else(|| MapCamera::fitting(map.size, area));
    if view.reveal_selected {
        if let Some(node) = view.selected.and_then(|thread| map.node_of(thread)) {
            let shown = camera.to_frame(node.rect, area);
            if shown.intersect(&area) != shown {
                // Centre the node, keeping the zoom.
                camera.origin = Point {
                    x: node.rect.x + node.rect.width * 0.5 - area.width * (0.5 / camera.zoom),
                    y: node.rect.y + node.rect.height * 0.5 - area.height * (0.5 / camera.zoom),
                };
            }
        }
    }
    let hits = MapPainter {
        snapshot,
        found,
        map: &map,
        style,
        lang,
        camera,
        area,
        selected: view.selected,
        scene,
        lines,
        text,
        labels: Vec::new(),
    }
    .paint();
    (hits, MapFrame { camera, area })
}

/// The whole map at zoom 1 as a scene of its own size, for export, with its words as words
/// (for SVG, where text stays text).
pub(super) fn paint_whole_map(
    snapshot: &Snapshot,
    (style, lang): (&Style, Lang),
    aspect: f32,
    lines: &mut LineCache,
    text: &mut TextSystem,
) -> (Scene, Vec<SvgLabel>) {
    let map = arrange(snapshot, style, aspect);
    let mut scene = Scene::new(map.size.0, map.size.1, style.palette.background);
    let area = scene.bounds();
    let mut painter = MapPainter {
        snapshot,
        found: &[],
        map: &map,
        style,
        lang,
        camera: MapCamera {
            zoom: 1.0,
            origin: Point::default(),
        },
        area,
        selected: None,
        scene: &mut scene,
        lines,
        text,
        labels: Vec::new(),
    };
    painter.paint();
    let labels = painter.labels;
    (scene, labels)
}
