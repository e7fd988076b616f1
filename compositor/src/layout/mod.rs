//! Stage three, Layout: where everything goes, in logical pixels.
//!
//! taffy divides the frame into the header, the overview and the transcript; cosmic-text
//! measures text. Only transcript blocks that show (plus a margin) are laid out, and their
//! layouts are cached across frames (see `transcript.rs`), so scrolling and appending never lay
//! out the whole session. The output is a [`FrameLayout`]: the display list ([`Scene`]) and
//! what the pointer can hit. This stage reads the decluttered view and the intent; it never
//! looks past them into what the operator did not ask to see.

mod blocks;
mod cache;
mod card;
mod header;
mod inbox;
mod lines;
mod list_panel;
mod map;
mod overview;
mod search;
mod switcher;
mod transcript;

pub use card::CardLayout;

use crate::answering::CardHit;
use crate::declutter::{DeclutteredView, Presentation};
use crate::intent::{Intent, Overlay, ScrollAnchor};
use crate::map::MapFrame;
use crate::scene::{Layer, Quad, Scene, TextRun};
use crate::search::{Highlighter, SearchView};
use crate::text::{FontSet, SpanStyle, TextSystem};
use crate::units::{Pixels, Point, Rect};
use crate::words::Word;
use chatsurface_model::{NodeRef, Snapshot};
use lines::LineCache;
use std::sync::Arc;
use transcript::{ListInput, SearchMarks, TranscriptLayout};

/// Below this width the overview moves above the transcript (narrow MFD panels).
pub(crate) const NARROW_WIDTH: Pixels = Pixels(760.0);

/// What a point of the frame belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HitTarget {
    /// A transcript block (or an open question listed in the overview).
    Block(NodeRef),
    /// A thread row of the overview.
    OverviewThread(usize),
    /// The "more below" pill: a click jumps to the newest content.
    MoreBelow,
    /// What waits for the human: the header's pill, or the overview's row counting the open
    /// questions it had no room for. A click goes to the next open question.
    Waiting,
    /// A part of an open question's card: an item, an option, a field, a button.
    Answer {
        /// The batch or confirmation.
        node: NodeRef,
        /// The part.
        hit: CardHit,
    },
    /// A row of the panel open over the frame (the session switcher or the inbox), by its
    /// index in that view's `rows`.
    OverlayRow(usize),
    /// The open panel outside its rows.
    OverlayPanel,
    /// A thread's node on the branch map, by its index in the snapshot.
    MapNode(usize),
    /// The branch map's area outside its nodes (where a drag pans).
    MapArea,
    /// The search bar.
    SearchBar,
}

/// A transcript card placed in the frame. Cards are kept apart from the scene, so a GPU
/// backend can hold each one as a layer of its own and move it when the transcript scrolls.
#[derive(Clone, Debug)]
pub struct CardPlacement {
    /// The node it shows.
    pub node: NodeRef,
    /// In which form Declutter chose to show it (folded and summary cards can be unfolded).
    pub presentation: Presentation,
    /// Its top-left corner in the frame.
    pub origin: Point,
    /// Its layout, shared with the layout cache: the same `Arc` means the same pixels.
    pub layout: Arc<CardLayout>,
}

/// The three regions of a frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameRegions {
    /// The header band.
    pub header: Rect,
    /// The overview panel.
    pub overview: Rect,
    /// The transcript.
    pub transcript: Rect,
}

/// The output of Layout: the display list and what can be hit.
#[derive(Debug)]
pub struct FrameLayout {
    /// The display list of everything but the transcript cards: panels, header, overview,
    /// overlays.
    pub scene: Scene,
    /// The transcript cards that show, top to bottom, clipped to `regions.transcript`.
    pub cards: Vec<CardPlacement>,
    /// Where the regions are.
    pub regions: FrameRegions,
    /// What each region of the frame is.
    pub hits: Vec<(Rect, HitTarget)>,
    /// The transcript's scroll position after layout.
    pub anchor: ScrollAnchor,
    /// Whether the newest block is in view.
    pub at_bottom: bool,
    /// Transcript blocks below the viewport.
    pub blocks_below: usize,
    /// With the branch map open: the camera it was drawn with and the area it fills.
    pub map: Option<MapFrame>,
}

impl FrameLayout {
    /// Where `node`'s card is placed, whole (not clipped to the transcript's region), if it
    /// shows.
    pub fn card_rect(&self, node: NodeRef) -> Option<Rect> {
        self.cards
            .iter()
            .find(|card| card.node == node)
            .map(|card| Rect {
                x: card.origin.x,
                y: card.origin.y,
                width: self.regions.transcript.width,
                height: card.layout.height,
            })
    }

    /// Paints the transcript cards into the scene, for a backend that paints one flat frame.
    pub fn paint_cards_into_scene(&mut self) {
        for card in &self.cards {
            card.layout
                .paint(&mut self.scene, card.origin, self.regions.transcript);
        }
    }
}

/// Layout's state: fonts and the caches that make a frame after the first cheap.
#[derive(Debug)]
pub(crate) struct LayoutEngine {
    text: TextSystem,
    transcript: TranscriptLayout,
    lines: LineCache,
    /// The search whose words the cards mark, and what it was made from.
    search: Option<(SearchView, SearchMarks)>,
    /// Searches seen so far: the next one's generation.
    searches: u64,
}

impl LayoutEngine {
    /// An engine with the given fonts.
    pub(crate) fn new(fonts: FontSet) -> LayoutEngine {
        LayoutEngine {
            text: TextSystem::new(fonts),
            transcript: TranscriptLayout::default(),
            lines: LineCache::default(),
            search: None,
            searches: 0,
        }
    }

    /// Keeps the search marks in step with the intent's search: made again, under a new
    /// generation, only when the query or the matches change.
    fn update_search(&mut self, search: Option<&SearchView>, threads: usize) {
        let Some(search) = search else {
            self.search = None;
            return;
        };
        let same = self.search.as_ref().is_some_and(|(seen, _)| {
            seen.query == search.query
                && (Arc::ptr_eq(&seen.hits, &search.hits) || seen.hits == search.hits)
        });
        if same {
            return;
        }
        self.search = Highlighter::new(&search.query).map(|highlighter| {
            self.searches += 1;
            let marks = SearchMarks {
                highlighter,
                nodes: search.hits.iter().map(|hit| hit.node).collect(),
                per_thread: search.per_thread(threads).into(),
                generation: self.searches,
            };
            (search.clone(), marks)
        });
    }

    /// Drops every laid-out card (the fonts and shaped UI lines stay): the next frame lays
    /// out from nothing, as a new engine would.
    pub(crate) fn reset(&mut self) {
        self.transcript = TranscriptLayout::default();
    }

    /// The whole branch map at zoom 1, in a scene of its own size, with its words as words;
    /// arranged for a picture `aspect` times as wide as it is high.
    pub(crate) fn whole_map(
        &mut self,
        snapshot: &Snapshot,
        style: &crate::theme::Style,
        aspect: f32,
    ) -> (Scene, Vec<crate::render::svg::SvgLabel>) {
        self.lines.next_frame();
        let lang = crate::words::Lang::of(snapshot);
        map::paint_whole_map(
            snapshot,
            (style, lang),
            aspect,
            &mut self.lines,
            &mut self.text,
        )
    }

    /// The text system, which the rasteriser needs for glyph images.
    pub(crate) fn text_system(&mut self) -> &mut TextSystem {
        &mut self.text
    }

    /// Transcript cards held in the cache (for benchmarks and tests of cache bounds).
    pub(crate) fn cached_cards(&self) -> usize {
        self.transcript.cached_cards()
    }

    /// Stage three: lays out one frame.
    pub(crate) fn layout(
        &mut self,
        snapshot: &Snapshot,
        view: &DeclutteredView,
        intent: &Intent,
    ) -> FrameLayout {
        self.transcript.next_frame();
        self.lines.next_frame();
        self.update_search(intent.search.as_ref(), snapshot.threads.len());
        let style = intent.style;
        let palette = style.palette;
        let viewport = intent.viewport;
        let regions = frame_regions(intent);
        let mut scene = Scene::new(viewport.width, viewport.height, palette.background);
        let full = scene.bounds();
        scene.push_quad(Quad {
            bounds: regions.header,
            clip: full,
            fill: Some(palette.panel),
            border: None,
            corner_radius: Pixels::ZERO,
            layer: Layer::Panels,
        });
        scene.push_quad(Quad {
            bounds: Rect {
                x: regions.overview.x - Pixels(8.0),
                y: regions.overview.y - Pixels(8.0),
                width: regions.overview.width + Pixels(16.0),
                height: regions.overview.height + Pixels(16.0),
            },
            clip: full,
            fill: Some(palette.panel),
            border: Some((palette.border, Pixels(1.0))),
            corner_radius: style.metrics.corner_radius,
            layer: Layer::Panels,
        });
        let pill = header::paint_header(
            &view.header,
            regions.header,
            &style,
            &mut scene,
            &mut self.lines,
            &mut self.text,
        );
        let list = ListInput {
            snapshot,
            blocks: &view.transcript,
            positions: &view.positions,
            region: regions.transcript,
            style: &style,
            answering: intent.answering.as_ref(),
            now: intent.now,
            lang: intent.lang,
            search: self.search.as_ref().map(|(_, marks)| marks),
        };
        let placed = self.transcript.place(&list, intent.scroll, &mut self.text);
        // The thread of the topmost card in view, marked in the overview as the transcript
        // scrolls.
        let in_view = placed
            .cards
            .iter()
            .find(|card| card.top + card.layout.height > regions.transcript.y)
            .map(|card| view.transcript[card.index].thread);
        // Search matches by thread, marked in the overview and on the map (counted once per
        // search, not per frame).
        let found = self
            .search
            .as_ref()
            .map(|(_, marks)| Arc::clone(&marks.per_thread));
        let found: &[usize] = found.as_deref().unwrap_or(&[]);
        let marks = overview::OverviewMarks {
            found,
            cursor: intent.overview_cursor,
            hovered: intent.overview_hover,
            in_view,
        };
        let mut hits = overview::paint_overview(
            (snapshot, marks),
            &view.overview,
            regions.overview,
            (&style, intent.lang),
            &mut scene,
            &mut self.lines,
            &mut self.text,
        );
        hits.push((pill, HitTarget::Waiting));

        let mut cards = Vec::new();
        for card in &placed.cards {
            let bounds = Rect {
                x: regions.transcript.x,
                y: card.top,
                width: regions.transcript.width,
                height: card.layout.height,
            };
            let visible = bounds.intersect(&regions.transcript);
            if visible.is_empty() {
                continue;
            }
            for (part, hit) in card.layout.hits.iter().rev() {
                let part = part
                    .translate(bounds.x, bounds.y)
                    .intersect(&regions.transcript);
                if !part.is_empty() {
                    hits.push((
                        part,
                        HitTarget::Answer {
                            node: card.node,
                            hit: *hit,
                        },
                    ));
                }
            }
            hits.push((visible, HitTarget::Block(card.node)));
            cards.push(CardPlacement {
                node: card.node,
                presentation: view.transcript[card.index].presentation,
                origin: Point {
                    x: bounds.x,
                    y: bounds.y,
                },
                layout: card.layout.clone(),
            });
        }
        if view.transcript.is_empty() {
            let line = self.lines.line(
                intent.lang.word(Word::NothingYet),
                SpanStyle::default(),
                style.metrics.font_size,
                &mut self.text,
            );
            scene.push_text(TextRun {
                origin: Point {
                    x: regions.transcript.x,
                    y: regions.transcript.y,
                },
                clip: regions.transcript,
                text: line,
                color: palette.muted,
                layer: Layer::Cards,
            });
        }
        if !placed.at_bottom && placed.blocks_below > 0 {
            let pill = self.paint_more_below(
                placed.blocks_below,
                regions.transcript,
                (&style, intent.lang),
                &mut scene,
            );
            // Overlays are hit first: the pill lies over the cards.
            hits.insert(0, (pill, HitTarget::MoreBelow));
        }
        if let Some(search) = &intent.search {
            let bar = search::paint_search_bar(
                search,
                regions.transcript,
                (&style, intent.lang),
                &mut scene,
                &mut self.lines,
                &mut self.text,
            );
            hits.insert(0, (bar, HitTarget::SearchBar));
        }
        let mut map_frame = None;
        let panel = match &intent.overlay {
            Some(Overlay::Switcher(view)) => {
                Some(switcher::switcher_panel(view, &style, intent.lang))
            }
            Some(Overlay::Inbox(view)) => Some(inbox::inbox_panel(view, &style, intent.lang)),
            Some(Overlay::Map(view)) => {
                let (over, frame) = map::paint_map_overlay(
                    (snapshot, found),
                    view,
                    scene.bounds(),
                    (&style, intent.lang),
                    &mut scene,
                    &mut self.lines,
                    &mut self.text,
                );
                // Over everything, so hit before everything.
                hits.splice(0..0, over);
                map_frame = Some(frame);
                None
            }
            None => None,
        };
        if let Some(panel) = panel {
            let over = panel.paint(
                scene.bounds(),
                &style,
                &mut scene,
                &mut self.lines,
                &mut self.text,
            );
            hits.splice(0..0, over);
        }
        FrameLayout {
            scene,
            cards,
            regions,
            hits,
            anchor: placed.anchor,
            at_bottom: placed.at_bottom,
            blocks_below: placed.blocks_below,
            map: map_frame,
        }
    }

    /// The pill saying how much is below the view; in the bottom right corner, where it hides
    /// the least of the cards' left-aligned text. Returns where it is.
    fn paint_more_below(
        &mut self,
        count: usize,
        region: Rect,
        (style, lang): (&crate::theme::Style, crate::words::Lang),
        scene: &mut Scene,
    ) -> Rect {
        let palette = style.palette;
        let words = lang.more_below(count);
        let line = self.lines.line(
            &words,
            SpanStyle {
                strong: true,
                ..SpanStyle::default()
            },
            style.metrics.small_font_size,
            &mut self.text,
        );
        let width = line.width + Pixels(24.0);
        let height = line.height + Pixels(10.0);
        let pill = Rect {
            x: (region.right() - width - Pixels(12.0)).max(region.x),
            y: region.bottom() - height - Pixels(8.0),
            width,
            height,
        };
        scene.push_quad(Quad {
            bounds: pill,
            clip: region,
            fill: Some(palette.accent),
            border: None,
            corner_radius: height * 0.5,
            layer: Layer::Overlay,
        });
        scene.push_text(TextRun {
            origin: Point {
                x: pill.x + Pixels(12.0),
                y: pill.y + Pixels(5.0),
            },
            clip: pill,
            text: line,
            color: palette.background,
            layer: Layer::Overlay,
        });
        pill
    }

    /// The anchor after scrolling the transcript by `delta` logical pixels (positive shows
    /// newer content). Uses the same cached card layouts as [`LayoutEngine::layout`].
    pub(crate) fn scroll(
        &mut self,
        snapshot: &Snapshot,
        view: &DeclutteredView,
        intent: &Intent,
        delta: Pixels,
    ) -> ScrollAnchor {
        let regions = frame_regions(intent);
        // The same marks as the frame's, so each card has the same height here.
        self.update_search(intent.search.as_ref(), snapshot.threads.len());
        let list = ListInput {
            snapshot,
            blocks: &view.transcript,
            positions: &view.positions,
            region: regions.transcript,
            style: &intent.style,
            answering: intent.answering.as_ref(),
            now: intent.now,
            lang: intent.lang,
            search: self.search.as_ref().map(|(_, marks)| marks),
        };
        self.transcript
            .scroll(&list, intent.scroll, delta, &mut self.text)
    }
}

/// How many overview rows the frame has room for: what Declutter may fill.
pub(crate) fn overview_capacity(intent: &Intent) -> usize {
    overview::rows_that_fit(frame_regions(intent).overview, &intent.style)
}

/// The overview's width beside the transcript: about a quarter of a 1280 px frame, growing to
/// a third at 1920 px and wider, so that a second monitor shows long paths whole.
fn overview_width(frame_width: f32) -> f32 {
    let grown = ((frame_width - 1280.0) / 640.0).clamp(0.0, 1.0);
    (frame_width * (0.26 + 0.07 * grown)).clamp(260.0, 720.0)
}

/// Splits the frame into header, overview and transcript: three rectangles from the viewport
/// and the theme's metrics, plain arithmetic (a flex tree for three boxes cost more than the
/// frame it framed).
pub fn frame_regions(intent: &Intent) -> FrameRegions {
    let metrics = intent.style.metrics;
    let (width, height) = (intent.viewport.width.0, intent.viewport.height.0);
    let header_height = metrics.header_height.0;
    let pad = metrics.card_padding.0 + 6.0;
    let gap = pad + 8.0;
    // The body under the header, and the box inside its padding that the two panels share.
    let body = (0.0, header_height);
    let inner_width = (width - 2.0 * pad).max(0.0);
    let inner_height = (height - header_height - 1.5 * pad).max(0.0);
    let (overview, transcript) = if width < NARROW_WIDTH.0 {
        // Stacked: the overview takes a third of the height, the transcript the rest.
        let overview_height = inner_height * 0.34;
        (
            ((pad, pad), (inner_width, overview_height)),
            (
                (pad, pad + overview_height + gap),
                (inner_width, (inner_height - overview_height - gap).max(0.0)),
            ),
        )
    } else {
        let overview_width = overview_width(width);
        (
            ((pad, pad), (overview_width, inner_height)),
            (
                (pad + overview_width + gap, pad),
                ((inner_width - overview_width - gap).max(0.0), inner_height),
            ),
        )
    };
    FrameRegions {
        header: snapped((0.0, 0.0), (0.0, 0.0), (width, header_height)),
        overview: snapped(body, overview.0, overview.1),
        transcript: snapped(body, transcript.0, transcript.1),
    }
}

/// A region at `at` inside a parent placed at `parent`, of `size`, on whole pixels: its
/// corner and its far edges are rounded, so neighbouring regions never overlap or leave a
/// seam.
fn snapped(parent: (f32, f32), at: (f32, f32), size: (f32, f32)) -> Rect {
    let (left, top) = (parent.0 + at.0, parent.1 + at.1);
    Rect::new(
        parent.0.round() + at.0.round(),
        parent.1.round() + at.1.round(),
        (left + size.0).round() - left.round(),
        (top + size.1).round() - top.round(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declutter::declutter;
    use crate::intent::{resolve_intent, IntentRequest, Viewport};
    use crate::test_support::{message, snapshot_from, thread};
    use crate::units::ScaleFactor;

    fn session(messages: usize) -> Snapshot {
        let mut events = vec![thread("main", None)];
        events.extend((0..messages).map(|index| {
            message(
                &format!("m{index}"),
                "main",
                &format!("Message number {index}."),
            )
        }));
        snapshot_from(&events)
    }

    fn request() -> IntentRequest {
        IntentRequest {
            viewport: Viewport {
                width: Pixels(1000.0),
                height: Pixels(700.0),
                scale: ScaleFactor(1.0),
            },
            ..IntentRequest::default()
        }
    }

    fn lay_out(
        engine: &mut LayoutEngine,
        snapshot: &Snapshot,
        request: &IntentRequest,
    ) -> FrameLayout {
        let intent = resolve_intent(snapshot, request).unwrap();
        let view = declutter(snapshot, &intent, overview_capacity(&intent));
        engine.layout(snapshot, &view, &intent)
    }

    fn scroll(
        engine: &mut LayoutEngine,
        snapshot: &Snapshot,
        request: &IntentRequest,
        delta: f32,
    ) -> ScrollAnchor {
        let intent = resolve_intent(snapshot, request).unwrap();
        let view = declutter(snapshot, &intent, overview_capacity(&intent));
        engine.scroll(snapshot, &view, &intent, Pixels(delta))
    }

    #[test]
    fn an_answered_card_shows_the_working_answer_and_exposes_its_parts() {
        use crate::answering::{AnswerField, AnswerView, CardHit, FieldCaret};
        use crate::test_support::batch;
        let snapshot = snapshot_from(&[thread("main", None), batch("b", "main")]);
        let mut engine = LayoutEngine::new(FontSet::BundledOnly);
        let plain = lay_out(&mut engine, &snapshot, &request());
        let card = |frame: &FrameLayout| {
            frame
                .cards
                .iter()
                .find(|card| card.node == NodeRef::Batch(0))
                .map(|card| card.layout.clone())
                .unwrap()
        };
        assert!(plain.hits.iter().any(|(_, target)| *target
            == HitTarget::Answer {
                node: NodeRef::Batch(0),
                hit: CardHit::Choice { item: 0, option: 1 },
            }));
        let mut answering = request();
        answering.answering = Some(AnswerView {
            history: snapshot.history,
            node: NodeRef::Batch(0),
            focus: Some(AnswerField::Item(0)),
            editing: Some(FieldCaret::default()),
            draft: chatsurface_model::ClarificationResponse::default(),
            comment: String::new(),
            revision: 1,
        });
        let first = lay_out(&mut engine, &snapshot, &answering);
        assert!(
            !std::sync::Arc::ptr_eq(&card(&plain), &card(&first)),
            "answering lays the card out again"
        );
        let again = lay_out(&mut engine, &snapshot, &answering);
        assert!(
            std::sync::Arc::ptr_eq(&card(&first), &card(&again)),
            "an unchanged answer reuses the card"
        );
        if let Some(view) = &mut answering.answering {
            view.revision = 2;
        }
        let changed = lay_out(&mut engine, &snapshot, &answering);
        assert!(!std::sync::Arc::ptr_eq(&card(&again), &card(&changed)));
        let mut closed = request();
        closed.answering = Some(AnswerView {
            node: NodeRef::Thread(0),
            ..answering.answering.clone().unwrap()
        });
        let intent = resolve_intent(&snapshot, &closed);
        assert_eq!(intent.unwrap_err().field, "answering");
    }

    #[test]
    fn a_question_with_an_attachment_shows_it_as_something_to_click() {
        use crate::answering::CardHit;
        use crate::test_support::batch;
        let with = batch("b", "main").replace(
            r#""title":"Pick","#,
            r#""title":"Pick","attachment":"/tmp/plan.md","#,
        );
        let attachment = |snapshot: &Snapshot| {
            let frame = lay_out(
                &mut LayoutEngine::new(FontSet::BundledOnly),
                snapshot,
                &request(),
            );
            frame.hits.iter().any(|(_, target)| {
                *target
                    == HitTarget::Answer {
                        node: NodeRef::Batch(0),
                        hit: CardHit::Attachment,
                    }
            })
        };
        let attached = snapshot_from(&[thread("main", None), with]);
        assert_eq!(attached.attachment(NodeRef::Batch(0)), Some("/tmp/plan.md"));
        assert!(attachment(&attached));
        assert!(!attachment(&snapshot_from(&[
            thread("main", None),
            batch("b", "main")
        ])));
    }

    #[test]
    fn only_the_visible_cards_and_the_overscan_are_laid_out() {
        let snapshot = session(5_000);
        let mut engine = LayoutEngine::new(FontSet::BundledOnly);
        let frame = lay_out(&mut engine, &snapshot, &request());
        assert!(frame.at_bottom);
        assert!(
            engine.cached_cards() < 40,
            "{} cards laid out for one screen",
            engine.cached_cards()
        );
        assert!(frame
            .hits
            .iter()
            .any(|(_, target)| *target == HitTarget::Block(NodeRef::Message(4_999))));
    }

    #[test]
    fn scrolling_up_a_screen_and_back_down_pins_to_the_bottom_again() {
        let snapshot = session(300);
        let mut engine = LayoutEngine::new(FontSet::BundledOnly);
        let mut request = request();
        request.scroll = scroll(&mut engine, &snapshot, &request, -650.0);
        let ScrollAnchor::Block { block, .. } = request.scroll else {
            panic!("scrolled up, yet {:?}", request.scroll)
        };
        assert!(
            matches!(block, NodeRef::Message(index) if index < 295),
            "{block:?}"
        );
        let frame = lay_out(&mut engine, &snapshot, &request);
        assert!(!frame.at_bottom);
        assert!(frame.blocks_below > 0);
        request.scroll = scroll(&mut engine, &snapshot, &request, 650.0);
        assert_eq!(request.scroll, ScrollAnchor::Bottom);
    }

    #[test]
    fn a_scrolled_view_stays_put_while_messages_are_appended() {
        let mut engine = LayoutEngine::new(FontSet::BundledOnly);
        let mut request = request();
        let before = session(200);
        request.scroll = scroll(&mut engine, &before, &request, -2_000.0);
        let after = session(260);
        let frame = lay_out(&mut engine, &after, &request);
        assert_eq!(
            frame.anchor, request.scroll,
            "the same block stays at the top"
        );
        assert!(frame.blocks_below > 60);
    }

    /// `messages` messages, then a batch of `items` text questions (taller than a 700 px
    /// frame at 30).
    fn session_ending_in_a_batch(messages: usize, items: usize) -> Snapshot {
        let items: Vec<String> = (0..items)
            .map(|item| {
                format!(r#"{{"id":"q{item}","prompt":"Question number {item}?","kind":"text"}}"#)
            })
            .collect();
        let mut events = vec![thread("main", None)];
        events.extend(
            (0..messages)
                .map(|index| message(&format!("m{index}"), "main", &format!("Message {index}."))),
        );
        events.push(format!(
            r#"{{"type":"clarification_batch_opened","batch":{{"id":"b","thread_id":"main","title":"Many questions","items":[{}]}}}}"#,
            items.join(",")
        ));
        snapshot_from(&events)
    }

    #[test]
    fn a_newest_question_taller_than_the_view_opens_at_its_top_and_scrolls_to_its_end() {
        let snapshot = session_ending_in_a_batch(20, 30);
        let mut engine = LayoutEngine::new(FontSet::BundledOnly);
        let mut request = request();
        let first = lay_out(&mut engine, &snapshot, &request);
        let transcript = first.regions.transcript;
        let batch = first.card_rect(NodeRef::Batch(0)).unwrap();
        assert!(batch.height > transcript.height, "the batch is taller");
        assert_eq!(batch.y, transcript.y, "its title shows, under the header");
        request.scroll = scroll(&mut engine, &snapshot, &request, 10_000.0);
        assert!(
            matches!(
                request.scroll,
                ScrollAnchor::Block {
                    block: NodeRef::Batch(0),
                    ..
                }
            ),
            "{:?}",
            request.scroll
        );
        let end = lay_out(&mut engine, &snapshot, &request);
        let batch = end.card_rect(NodeRef::Batch(0)).unwrap();
        assert!(
            (batch.bottom().0 - transcript.bottom().0).abs() < 0.5,
            "scrolled to its end: {batch:?} in {transcript:?}"
        );
        let further = scroll(&mut engine, &snapshot, &request, 200.0);
        assert_eq!(further, request.scroll, "no jump back to its top");
        request.scroll = ScrollAnchor::Bottom;
        let up = scroll(&mut engine, &snapshot, &request, -20.0);
        assert!(
            matches!(
                up,
                ScrollAnchor::Block {
                    block: NodeRef::Message(19),
                    ..
                }
            ),
            "from its top, up is the message before: {up:?}"
        );
    }

    #[test]
    fn a_newest_question_that_fits_keeps_the_view_pinned_to_the_bottom() {
        let snapshot = session_ending_in_a_batch(20, 2);
        let mut engine = LayoutEngine::new(FontSet::BundledOnly);
        let frame = lay_out(&mut engine, &snapshot, &request());
        let batch = frame.card_rect(NodeRef::Batch(0)).unwrap();
        assert!((batch.bottom().0 - frame.regions.transcript.bottom().0).abs() < 0.5);
        assert!(frame.at_bottom);
    }

    #[test]
    fn a_short_session_starts_at_the_top_of_the_transcript() {
        let snapshot = session(2);
        let mut engine = LayoutEngine::new(FontSet::BundledOnly);
        let frame = lay_out(&mut engine, &snapshot, &request());
        let first = frame
            .hits
            .iter()
            .find(|(_, target)| matches!(target, HitTarget::Block(_)))
            .unwrap();
        assert_eq!(first.0.y, frame.regions.transcript.y);
    }

    #[test]
    fn narrow_viewports_put_the_overview_above_the_transcript() {
        let snapshot = session(1);
        let mut narrow = request();
        narrow.viewport.width = Pixels(500.0);
        let regions = frame_regions(&resolve_intent(&snapshot, &narrow).unwrap());
        assert!(regions.overview.bottom() <= regions.transcript.y);
        let wide = frame_regions(&resolve_intent(&snapshot, &request()).unwrap());
        assert!(wide.overview.right() <= wide.transcript.x);
    }

    #[test]
    fn the_overview_takes_a_third_of_a_wide_frame_and_a_quarter_of_a_laptops() {
        let snapshot = session(1);
        let share = |width: f32| {
            let mut wide = request();
            wide.viewport.width = Pixels(width);
            let regions = frame_regions(&resolve_intent(&snapshot, &wide).unwrap());
            regions.overview.width.0 / width
        };
        assert!((0.25..0.27).contains(&share(1280.0)), "{}", share(1280.0));
        assert!((0.32..0.34).contains(&share(1920.0)), "{}", share(1920.0));
        assert!(share(3840.0) < 0.2, "at most 720 px");
    }

    #[test]
    fn every_open_question_of_a_broad_session_has_its_row_inside_the_overview() {
        let snapshot = crate::test_support::breadth_session(20, 180, 15);
        let mut engine = LayoutEngine::new(FontSet::BundledOnly);
        for (width, height) in [(1920.0, 1080.0), (1280.0, 800.0)] {
            let mut request = request();
            request.viewport.width = Pixels(width);
            request.viewport.height = Pixels(height);
            let frame = lay_out(&mut engine, &snapshot, &request);
            let overview = frame.regions.overview;
            let listed: std::collections::BTreeSet<usize> = frame
                .hits
                .iter()
                .filter_map(|(rect, target)| match target {
                    HitTarget::Block(NodeRef::Batch(batch))
                        if overview.contains_xy(rect.x.0 + 1.0, rect.y.0 + 1.0)
                            && rect.bottom() <= overview.bottom() =>
                    {
                        Some(*batch)
                    }
                    _ => None,
                })
                .collect();
            assert_eq!(
                listed,
                (0..15).collect(),
                "at {width}×{height} every open batch's row is in the panel"
            );
        }
    }

    #[test]
    fn a_settled_confirmation_unfolds_to_its_question_and_outcome_with_nothing_to_press() {
        let snapshot = snapshot_from(&[
            thread("main", None),
            r#"{"type":"confirmation_requested","confirmation":{"id":"c","thread_id":"main","title":"deployer","message":"Roll out 4.13 to prod now?"}}"#.to_owned(),
            r#"{"type":"confirmation_resolved","confirmation_id":"c","outcome":"declined","comment":"not on a Friday"}"#.to_owned(),
        ]);
        let mut engine = LayoutEngine::new(FontSet::BundledOnly);
        let folded = lay_out(&mut engine, &snapshot, &request());
        let card = |frame: &FrameLayout| {
            frame
                .cards
                .iter()
                .find(|card| card.node == NodeRef::Confirmation(0))
                .map(|card| (card.presentation, card.layout.height))
                .expect("the confirmation shows")
        };
        let (presentation, summary_height) = card(&folded);
        assert_eq!(presentation, Presentation::Summary);
        let mut unfolded = request();
        unfolded.expanded.insert(NodeRef::Confirmation(0));
        let full = lay_out(&mut engine, &snapshot, &unfolded);
        let (presentation, full_height) = card(&full);
        assert_eq!(presentation, Presentation::Full);
        assert!(
            full_height > summary_height,
            "the question and outcome take more room"
        );
        assert!(
            !full.hits.iter().any(|(_, target)| matches!(
                target,
                HitTarget::Answer {
                    hit: crate::answering::CardHit::Accept | crate::answering::CardHit::Decline,
                    ..
                }
            )),
            "a settled confirmation has no buttons"
        );
    }

    #[test]
    fn an_expired_batch_unfolds_too() {
        let snapshot = snapshot_from(&[
            thread("main", None),
            crate::test_support::batch("b", "main"),
            r#"{"type":"clarification_batch_closed","batch_id":"b","reason":"expired"}"#.to_owned(),
        ]);
        let mut engine = LayoutEngine::new(FontSet::BundledOnly);
        let mut unfolded = request();
        unfolded.expanded.insert(NodeRef::Batch(0));
        let frame = lay_out(&mut engine, &snapshot, &unfolded);
        assert!(frame
            .cards
            .iter()
            .any(|card| card.node == NodeRef::Batch(0) && card.presentation == Presentation::Full));
    }

    #[test]
    fn a_question_with_a_timeout_is_laid_out_again_as_its_countdown_moves() {
        let snapshot = snapshot_from(&[
            thread("main", None),
            r#"{"type":"confirmation_requested","confirmation":{"id":"c","thread_id":"main","message":"Go?","timeout_s":60}}"#.to_owned(),
        ]);
        let asked =
            std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_796_083_200); // 2026-12-01T00:00:00Z
        let mut engine = LayoutEngine::new(FontSet::BundledOnly);
        let at = |engine: &mut LayoutEngine, seconds: f64| {
            let mut request = request();
            request.now = Some(asked + std::time::Duration::from_secs_f64(seconds));
            let frame = lay_out(engine, &snapshot, &request);
            frame.cards[frame.cards.len() - 1].layout.clone()
        };
        let first = at(&mut engine, 20.2);
        let same_second = at(&mut engine, 20.7);
        let next_second = at(&mut engine, 21.3);
        assert!(std::sync::Arc::ptr_eq(&first, &same_second));
        assert!(!std::sync::Arc::ptr_eq(&first, &next_second));
        assert_eq!(
            snapshot.time_left(
                NodeRef::Confirmation(0),
                asked + std::time::Duration::from_secs(100)
            ),
            Some(std::time::Duration::ZERO),
            "past its deadline, nothing is left"
        );
    }

    #[test]
    fn an_overview_row_too_long_for_the_panel_ends_in_an_ellipsis_not_mid_glyph() {
        let long = "A branch title that goes on well past what a panel holds";
        let snapshot = snapshot_from(&[
            thread("main", None),
            format!(
                r#"{{"type":"thread_opened","thread":{{"id":"b","parent":"main","title":"{long}","kind":"branch"}}}}"#
            ),
        ]);
        let mut engine = LayoutEngine::new(FontSet::BundledOnly);
        let frame = lay_out(&mut engine, &snapshot, &request());
        let overview = frame.regions.overview;
        let rows: Vec<_> = frame
            .scene
            .texts
            .iter()
            .filter(|run| overview.contains_xy(run.origin.x.0 + 1.0, run.origin.y.0 + 1.0))
            .collect();
        assert!(!rows.is_empty());
        for run in rows {
            assert!(
                run.origin.x + run.text.width <= run.clip.right() + Pixels(0.5),
                "a row's words fit its room: {:?} + {:?} in {:?}",
                run.origin,
                run.text.width,
                run.clip
            );
        }
    }
}
