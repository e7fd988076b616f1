//! The search bar: a band over the top of the transcript with what was typed, where the
//! search stands ("3 of 12") and its keys. It lies over the cards and moves nothing.

use super::lines::LineCache;
use crate::scene::{Layer, Quad, Scene, TextRun};
use crate::search::SearchView;
use crate::text::{SpanStyle, TextSystem};
use crate::theme::Style;
use crate::units::{Pixels, Point, Rect};
use crate::words::{Lang, Word};

/// Paints the bar over the top of `transcript`; returns where it is.
pub(super) fn paint_search_bar(
    view: &SearchView,
    transcript: Rect,
    (style, lang): (&Style, Lang),
    scene: &mut Scene,
    lines: &mut LineCache,
    text: &mut TextSystem,
) -> Rect {
    let palette = style.palette;
    let metrics = style.metrics;
    let bar = Rect {
        height: metrics.line_height + Pixels(14.0),
        ..transcript
    };
    let found = !view.hits.is_empty() || view.query.trim().is_empty();
    scene.push_quad(Quad {
        bounds: bar,
        clip: bar,
        fill: Some(palette.panel),
        border: Some((
            if found {
                palette.accent
            } else {
                palette.danger
            },
            Pixels(2.0),
        )),
        corner_radius: Pixels(6.0),
        layer: Layer::Overlay,
    });
    let y = bar.y + Pixels(7.0);
    let inside = Rect {
        x: bar.x + Pixels(10.0),
        width: bar.width - Pixels(20.0),
        ..bar
    };
    let mut right = inside.right();
    let keys = lines.line(
        lang.word(Word::SearchKeys),
        SpanStyle::default(),
        metrics.small_font_size,
        text,
    );
    if keys.width * 2.5 < inside.width {
        right -= keys.width;
        scene.push_text(TextRun {
            origin: Point {
                x: right,
                y: y + (metrics.font_size - metrics.small_font_size) * 0.5,
            },
            clip: inside,
            text: keys,
            color: palette.muted,
            layer: Layer::Overlay,
        });
        right -= Pixels(16.0);
    }
    let status = lines.line(
        &lang.search_matches(view.current, view.hits.len()),
        SpanStyle {
            strong: true,
            ..SpanStyle::default()
        },
        metrics.font_size,
        text,
    );
    right -= status.width;
    scene.push_text(TextRun {
        origin: Point { x: right, y },
        clip: inside,
        color: if found { palette.text } else { palette.danger },
        text: status,
        layer: Layer::Overlay,
    });
    let (query, _) = lines.line_within(
        &format!("/ {}▏", view.query),
        SpanStyle::default(),
        metrics.font_size,
        right - Pixels(12.0) - inside.x,
        text,
    );
    scene.push_text(TextRun {
        origin: Point { x: inside.x, y },
        clip: inside,
        text: query,
        color: palette.text,
        layer: Layer::Overlay,
    });
    bar
}

#[cfg(test)]
mod tests {
    use crate::declutter::declutter;
    use crate::intent::{resolve_intent, IntentRequest, Viewport};
    use crate::layout::{frame_regions, overview_capacity, HitTarget, LayoutEngine};
    use crate::search::{find_in_session, SearchView};
    use crate::test_support::{message, snapshot_from, thread};
    use crate::text::FontSet;
    use crate::units::{Pixels, ScaleFactor};

    #[test]
    fn the_bar_lies_over_the_transcripts_top_and_stale_matches_are_dropped() {
        let snapshot = snapshot_from(&[
            thread("main", None),
            message("m1", "main", "Find the needle."),
            message("m2", "main", "Nothing here."),
        ]);
        let other = snapshot_from(&[thread("main", None)]);
        let hits = find_in_session(&snapshot, "NEEDLE");
        assert_eq!(hits.len(), 1);
        let request = IntentRequest {
            viewport: Viewport {
                width: Pixels(1000.0),
                height: Pixels(600.0),
                scale: ScaleFactor(1.0),
            },
            search: Some(SearchView {
                query: "needle".into(),
                hits: hits.into(),
                current: Some(0),
            }),
            ..IntentRequest::default()
        };
        let intent = resolve_intent(&snapshot, &request).unwrap();
        let view = declutter(&snapshot, &intent, overview_capacity(&intent));
        let mut engine = LayoutEngine::new(FontSet::BundledOnly);
        let frame = engine.layout(&snapshot, &view, &intent);
        let (bar, _) = frame.hits[0];
        assert_eq!(
            frame.hits[0].1,
            HitTarget::SearchBar,
            "hit before the cards under it"
        );
        let transcript = frame_regions(&intent).transcript;
        assert_eq!(
            (bar.x, bar.y, bar.width),
            (transcript.x, transcript.y, transcript.width)
        );
        // A session without those nodes keeps none of the matches.
        let stale = resolve_intent(&other, &request).unwrap();
        let search = stale.search.unwrap();
        assert!(search.hits.is_empty());
        assert_eq!(search.current, None);
    }

    #[test]
    fn only_matching_cards_are_laid_out_again_with_their_words_marked() {
        use chatsurface_model::NodeRef;
        use std::sync::Arc;
        let snapshot = snapshot_from(&[
            thread("main", None),
            message("m1", "main", "Find the needle here."),
            message("m2", "main", "Nothing to see."),
        ]);
        let mut request = IntentRequest {
            viewport: Viewport {
                width: Pixels(1000.0),
                height: Pixels(600.0),
                scale: ScaleFactor(1.0),
            },
            ..IntentRequest::default()
        };
        let mut engine = LayoutEngine::new(FontSet::BundledOnly);
        let mut cards = |request: &IntentRequest| {
            let intent = resolve_intent(&snapshot, request).unwrap();
            let view = declutter(&snapshot, &intent, overview_capacity(&intent));
            let frame = engine.layout(&snapshot, &view, &intent);
            let card = |node| {
                frame
                    .cards
                    .iter()
                    .find(|card| card.node == node)
                    .map(|card| Arc::clone(&card.layout))
                    .unwrap()
            };
            (card(NodeRef::Message(0)), card(NodeRef::Message(1)))
        };
        let (plain_match, plain_other) = cards(&request);
        request.search = Some(SearchView {
            query: "needle".into(),
            hits: find_in_session(&snapshot, "needle").into(),
            current: Some(0),
        });
        let (marked_match, marked_other) = cards(&request);
        assert!(
            !Arc::ptr_eq(&plain_match, &marked_match),
            "the match is marked"
        );
        assert!(
            Arc::ptr_eq(&plain_other, &marked_other),
            "the rest is reused"
        );
        let (again, _) = cards(&request);
        assert!(
            Arc::ptr_eq(&marked_match, &again),
            "a marked card is cached too"
        );
    }
}
