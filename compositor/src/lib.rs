//! ChatSurfaceCompositor: one canonical dialog snapshot in, one frame out.
//!
//! The pipeline has four explicit stages, each a function of its own input type:
//!
//! 1. **Intent** ([`intent`]): what the operator wants to see, checked against the snapshot.
//! 2. **Declutter** ([`declutter`]): what earns a place, and in which form.
//! 3. **Layout** ([`layout`]): where it goes; only what shows is measured, and cached.
//! 4. **Render** ([`render`]): a display list ([`scene`]) painted by a [`render::Rasterizer`].
//!
//! The stages talk only through their types, so each can be tested alone. The compositor never
//! writes to the snapshot: the overview and the transcript are two projections of one history.

mod answering;
mod color;
mod declutter;
mod identity;
mod inbox;
mod intent;
mod layout;
mod map;
mod markdown;
mod render;
mod sanitize;
mod scene;
mod search;
mod switcher;
mod text;
mod theme;
mod units;
mod words;

#[cfg(test)]
mod test_support;

// The surface the app sees; everything else is the compositor's own business, so that "the
// app never reaches into the compositor's internals" is the compiler's check, not a rule.
pub use answering::{AnswerField, AnswerView, CardHit, FieldCaret};
pub use color::Color;
pub use declutter::Presentation;
pub use identity::PaintId;
pub use inbox::{InboxRow, InboxView, WaitingKind};
pub use intent::{
    resolve_intent, Elsewhere, IntentError, IntentRequest, Notice, Overlay, ScrollAnchor, Viewport,
    VIEWPORT_RANGE,
};
pub use layout::{frame_regions, CardLayout, FrameLayout, FrameRegions, HitTarget};
pub use map::{map_step, MapCamera, MapFrame, MapStep, MapView, ZOOM_RANGE};
pub use sanitize::one_line;
pub use search::{
    find_in_session, node_words, nodes_to_unfold, SearchHit, SearchView, QUERY_CHARS,
};
pub use switcher::{SwitcherRow, SwitcherView};
pub use text::{FontSet, TextSystem};
pub use theme::{Density, Style, Theme};
pub use units::{px, DevicePixels, Pixels, Point, Rect, ScaleFactor};

use chatsurface_model::Snapshot;
use declutter::{declutter_cached, TranscriptCache};
use layout::LayoutEngine;
use render::{Rasterizer, TinySkiaRasterizer};

/// What a composed frame tells its caller besides its pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameInfo {
    /// The scroll position that reproduces this frame.
    pub anchor: ScrollAnchor,
    /// Whether the newest block is in view.
    pub at_bottom: bool,
    /// Transcript blocks below the viewport.
    pub blocks_below: usize,
    /// The header's words about what awaits the human.
    pub awaiting: String,
    /// The oldest transcript block (where Home goes).
    pub first_block: Option<chatsurface_model::NodeRef>,
    /// With the branch map open: its camera and area, for the next drag or zoom.
    pub map: Option<MapFrame>,
}

/// The most device pixels an exported map picture holds (48 million: 192 MB of RGBA); a
/// larger map is drawn at a smaller scale.
pub const MAP_PICTURE_PIXELS: f32 = 48.0e6;

/// The shape the exported map's columns are arranged toward: a 16:10 picture.
const MAP_PICTURE_ASPECT: f32 = 1.6;

/// Runs Intent → Declutter → Layout → Render, keeping the caches that make later frames cheap.
#[derive(Debug)]
pub struct ChatSurfaceCompositor {
    layout: LayoutEngine,
    transcript: TranscriptCache,
    rasterizer: TinySkiaRasterizer,
}

impl ChatSurfaceCompositor {
    /// A compositor with the given fonts.
    pub fn new(fonts: FontSet) -> ChatSurfaceCompositor {
        ChatSurfaceCompositor {
            layout: LayoutEngine::new(fonts),
            transcript: TranscriptCache::default(),
            rasterizer: TinySkiaRasterizer::default(),
        }
    }

    /// Forgets every cached transcript, overview and card, as GPUI's `ListState::reset`: the
    /// window calls it when it moves to another session. (Caches are keyed by the snapshot's
    /// [`chatsurface_model::History`] as well, so a stale entry can never be taken for a new
    /// one; the reset frees them at once.)
    pub fn reset(&mut self) {
        self.layout.reset();
        self.transcript = TranscriptCache::default();
    }

    /// Runs Intent and Declutter: what the operator asked for, and what of the snapshot earns
    /// a place in the frame for it.
    fn intent_and_view<'s>(
        snapshot: &'s Snapshot,
        request: &IntentRequest,
        transcript: &mut TranscriptCache,
    ) -> Result<(intent::Intent, declutter::DeclutteredView<'s>), IntentError> {
        let intent = resolve_intent(snapshot, request)?;
        let view = declutter_cached(
            snapshot,
            &intent,
            layout::overview_capacity(&intent),
            transcript,
        );
        Ok((intent, view))
    }

    /// Runs the first three stages: the frame's display list and hit regions.
    pub fn layout(
        &mut self,
        snapshot: &Snapshot,
        request: &IntentRequest,
    ) -> Result<(FrameLayout, FrameInfo), IntentError> {
        let (intent, view) = Self::intent_and_view(snapshot, request, &mut self.transcript)?;
        let frame = self.layout.layout(snapshot, &view, &intent);
        let info = FrameInfo {
            anchor: frame.anchor,
            at_bottom: frame.at_bottom,
            blocks_below: frame.blocks_below,
            awaiting: view.header.awaiting(),
            first_block: view.transcript.first().map(|block| block.node),
            map: frame.map,
        };
        Ok((frame, info))
    }

    /// Runs all four stages and returns the painted frame.
    pub fn compose(
        &mut self,
        snapshot: &Snapshot,
        request: &IntentRequest,
    ) -> Result<(&tiny_skia::Pixmap, FrameInfo), IntentError> {
        let (mut frame, info) = self.layout(snapshot, request)?;
        frame.paint_cards_into_scene();
        self.rasterizer.paint(
            &frame.scene,
            request.viewport.scale,
            self.layout.text_system(),
        );
        Ok((self.rasterizer.pixmap(), info))
    }

    /// The scroll anchor after moving the transcript by `delta` logical pixels.
    pub fn scroll(
        &mut self,
        snapshot: &Snapshot,
        request: &IntentRequest,
        delta: Pixels,
    ) -> Result<ScrollAnchor, IntentError> {
        let (intent, view) = Self::intent_and_view(snapshot, request, &mut self.transcript)?;
        Ok(self.layout.scroll(snapshot, &view, &intent, delta))
    }

    /// Paints one transcript card alone, on a transparent background, for a backend that keeps
    /// each card as a layer of its own.
    pub fn paint_card(
        &mut self,
        card: &layout::CardLayout,
        width: Pixels,
        scale: units::ScaleFactor,
    ) -> tiny_skia::Pixmap {
        let mut scene = scene::Scene::new(width, card.height, color::Color::TRANSPARENT);
        let bounds = scene.bounds();
        card.paint(&mut scene, units::Point::default(), bounds);
        self.paint_scene(&scene, scale)
    }

    /// Paints a display list into a new pixmap of its own size.
    pub fn paint_scene(
        &mut self,
        scene: &scene::Scene,
        scale: units::ScaleFactor,
    ) -> tiny_skia::Pixmap {
        let mut rasterizer = TinySkiaRasterizer::default();
        rasterizer.paint(scene, scale, self.layout.text_system());
        rasterizer.into_pixmap()
    }

    /// The session's whole branch map as a picture at `scale` device pixels per map pixel, or
    /// less where the picture would pass [`MAP_PICTURE_PIXELS`] or 16,384 pixels a side;
    /// returns the scale used.
    pub fn map_png(
        &mut self,
        snapshot: &Snapshot,
        style: &Style,
        scale: ScaleFactor,
    ) -> (tiny_skia::Pixmap, ScaleFactor) {
        let (scene, _) = self.layout.whole_map(snapshot, style, MAP_PICTURE_ASPECT);
        let (width, height) = (scene.size.0.as_f32(), scene.size.1.as_f32());
        let most = (MAP_PICTURE_PIXELS / (width * height))
            .sqrt()
            .min(intent::MAX_DEVICE_SIDE / width.max(height));
        let scale = ScaleFactor(scale.0.min(most));
        (self.paint_scene(&scene, scale), scale)
    }

    /// The session's whole branch map as an SVG document, its words as text.
    pub fn map_svg(&mut self, snapshot: &Snapshot, style: &Style) -> String {
        let (scene, labels) = self.layout.whole_map(snapshot, style, MAP_PICTURE_ASPECT);
        render::svg::scene_to_svg(&scene, &labels)
    }

    /// Transcript cards held in the layout cache.
    pub fn cached_cards(&self) -> usize {
        self.layout.cached_cards()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intent::Viewport;
    use crate::test_support::{batch, message, snapshot_from, thread};
    use crate::units::ScaleFactor;

    fn request() -> IntentRequest {
        IntentRequest {
            viewport: Viewport {
                width: Pixels(900.0),
                height: Pixels(600.0),
                scale: ScaleFactor(1.0),
            },
            ..IntentRequest::default()
        }
    }

    /// Session A asks three questions; session B has as many events, and as many timeline
    /// entries, but only messages: every index A's overview and cards hold is past B's.
    fn two_sessions() -> (Snapshot, Snapshot) {
        let a = snapshot_from(&[
            thread("main", None),
            batch("b1", "main"),
            batch("b2", "main"),
            batch("b3", "main"),
        ]);
        let b = snapshot_from(&[
            thread("main", None),
            message("m1", "main", "Deploy finished in 4 minutes."),
            message("m2", "main", "All health checks are green."),
            message("m3", "main", "Nothing else to do here."),
        ]);
        assert_eq!(a.last_seq, b.last_seq);
        assert_eq!(a.timeline.len(), b.timeline.len());
        (a, b)
    }

    fn pixels(compositor: &mut ChatSurfaceCompositor, snapshot: &Snapshot) -> Vec<u8> {
        let (pixmap, _) = compositor
            .compose(snapshot, &request())
            .expect("the request is valid");
        pixmap.data().to_vec()
    }

    #[test]
    fn a_second_session_composes_as_a_fresh_compositor_would() {
        let (a, b) = two_sessions();
        let expected = pixels(&mut ChatSurfaceCompositor::new(FontSet::BundledOnly), &b);
        let mut compositor = ChatSurfaceCompositor::new(FontSet::BundledOnly);
        // The window keeps its session in one place, so B's snapshot takes A's address.
        let mut shown = a;
        let first = pixels(&mut compositor, &shown);
        shown = b;
        assert_eq!(pixels(&mut compositor, &shown), expected);
        assert_ne!(first, expected, "the two sessions look different");
    }

    #[test]
    fn a_reset_compositor_composes_as_a_fresh_one() {
        let (a, b) = two_sessions();
        let expected = pixels(&mut ChatSurfaceCompositor::new(FontSet::BundledOnly), &b);
        let mut compositor = ChatSurfaceCompositor::new(FontSet::BundledOnly);
        pixels(&mut compositor, &a);
        compositor.reset();
        assert_eq!(compositor.cached_cards(), 0);
        assert_eq!(pixels(&mut compositor, &b), expected);
    }

    #[test]
    fn references_kept_from_another_session_are_dropped_not_followed() {
        let (a, b) = two_sessions();
        let mut compositor = ChatSurfaceCompositor::new(FontSet::BundledOnly);
        let mut stale = request();
        stale.scroll = ScrollAnchor::Block {
            block: chatsurface_model::NodeRef::Batch(2),
            offset: Pixels::ZERO,
        };
        stale.expanded.insert(chatsurface_model::NodeRef::Batch(1));
        compositor.compose(&a, &stale).expect("A has these nodes");
        let (_, info) = compositor.compose(&b, &stale).expect("B drops them");
        assert!(info.at_bottom);
    }
}
