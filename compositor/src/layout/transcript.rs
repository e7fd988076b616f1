//! The transcript: a virtual list of cards, bottom-aligned like a chat log.
//!
//! Only the blocks that show (plus a margin) are laid out, starting from the scroll anchor, and
//! every card's layout is cached by (history, node, revision, presentation, width, style), so scrolling
//! and appending never lay out the whole session. Scrolling is expressed as a new anchor (a
//! block and an offset into it), which keeps the view stable while content is appended below.

use super::blocks::{build_block, CardContext};
use super::cache::TwoFrameCache;
use super::card::CardLayout;
use crate::answering::AnswerView;
use crate::declutter::{Presentation, TranscriptBlock};
use crate::intent::ScrollAnchor;
use crate::search::Highlighter;
use crate::text::TextSystem;
use crate::theme::{Density, Style, Theme};
use crate::units::{Pixels, Rect};
use crate::words::Lang;
use chatsurface_model::{History, NodeRef, Snapshot};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Extra height laid out beyond each edge of the viewport, so a small scroll finds its cards
/// ready.
pub(super) const OVERSCAN: Pixels = Pixels(400.0);

/// What a card's layout depends on; a change to any of these lays it out again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct CardKey {
    /// The folded history the node belongs to: indices of two sessions never meet here.
    history: History,
    node: NodeRef,
    revision: u64,
    presentation: Presentation,
    show_thread: bool,
    width_quarter_px: u32,
    theme: Theme,
    density: Density,
    /// The operator's working answer's revision, for the card being answered (else 0).
    answer_revision: u64,
    /// Whole seconds left on an open question's countdown, so it is laid out again each
    /// second it changes (none without a timeout or a clock).
    seconds_left: Option<u64>,
    lang: Lang,
    /// The search whose words the card marks ([`SearchMarks::generation`]; 0 for none).
    search: u64,
}

/// A card placed in the transcript.
#[derive(Clone, Debug)]
pub(super) struct PlacedCard {
    /// Index into the decluttered transcript.
    pub index: usize,
    /// The node it shows.
    pub node: NodeRef,
    /// Its top edge in frame coordinates.
    pub top: Pixels,
    /// Its layout.
    pub layout: Arc<CardLayout>,
}

/// The visible part of the transcript after layout.
#[derive(Clone, Debug, Default)]
pub(super) struct PlacedTranscript {
    /// The cards that intersect the viewport or its margin, top to bottom.
    pub cards: Vec<PlacedCard>,
    /// The anchor that reproduces this position (never `Bottom` unless pinned there).
    pub anchor: ScrollAnchor,
    /// Whether the newest block is fully in view.
    pub at_bottom: bool,
    /// Blocks below the viewport's bottom edge.
    pub blocks_below: usize,
}

/// What the list is laid out from: the blocks to show, where, and in which style.
#[derive(Clone, Copy, Debug)]
pub(super) struct ListInput<'a> {
    /// The snapshot the blocks point into.
    pub snapshot: &'a Snapshot,
    /// The decluttered transcript.
    pub blocks: &'a [TranscriptBlock],
    /// Where each node is in `blocks`.
    pub positions: &'a HashMap<NodeRef, usize>,
    /// The transcript's region of the frame.
    pub region: Rect,
    /// Colours and sizes.
    pub style: &'a Style,
    /// The open question being answered, if any.
    pub answering: Option<&'a AnswerView>,
    /// The wall clock, for countdowns.
    pub now: Option<std::time::SystemTime>,
    /// The language of the surface's words.
    pub lang: Lang,
    /// The search's matches, whose words the cards mark.
    pub search: Option<&'a SearchMarks>,
}

/// What the transcript marks of a search: where its words are, in which nodes, and an
/// identity of the search (never reused) for the card cache's key.
#[derive(Debug)]
pub(super) struct SearchMarks {
    /// Finds the query's words in a card's text.
    pub highlighter: Highlighter,
    /// The nodes that match.
    pub nodes: HashSet<NodeRef>,
    /// How many matches each thread holds, by thread index.
    pub per_thread: Arc<[usize]>,
    /// A number no other search of this engine had: cards marked for one are never taken
    /// for another's.
    pub generation: u64,
}

/// Lays out transcript cards, caching them across frames.
#[derive(Debug, Default)]
pub(super) struct TranscriptLayout {
    cards: TwoFrameCache<CardKey, Arc<CardLayout>>,
}

fn revision_of(snapshot: &Snapshot, node: NodeRef) -> u64 {
    match node {
        NodeRef::Thread(index) => snapshot.threads[index]
            .revision
            .max(snapshot.threads[index].last_activity_seq),
        NodeRef::Message(index) => snapshot.messages[index].revision,
        NodeRef::Batch(index) => snapshot.batches[index].revision,
        NodeRef::Confirmation(index) => snapshot.confirmations[index].revision,
        NodeRef::Decision(index) => snapshot.decisions[index].revision,
    }
}

impl TranscriptLayout {
    /// Starts a frame: cards unused since the frame before last are freed.
    pub(super) fn next_frame(&mut self) {
        self.cards.next_frame();
    }

    /// Cards held in the cache.
    pub(super) fn cached_cards(&self) -> usize {
        self.cards.len()
    }

    /// The layout of one block at a width (cached).
    pub(super) fn card(
        &mut self,
        list: &ListInput,
        block: &TranscriptBlock,
        width: Pixels,
        text: &mut TextSystem,
    ) -> Arc<CardLayout> {
        let (snapshot, style) = (list.snapshot, list.style);
        let answering = list.answering.filter(|view| view.node == block.node);
        let search = list
            .search
            .filter(|marks| marks.nodes.contains(&block.node));
        let key = CardKey {
            history: snapshot.history,
            node: block.node,
            revision: revision_of(snapshot, block.node),
            presentation: block.presentation,
            show_thread: block.show_thread,
            width_quarter_px: (width.0 * 4.0).round().max(0.0) as u32,
            theme: style.theme,
            density: style.density,
            answer_revision: answering.map_or(0, |view| view.revision),
            seconds_left: list
                .now
                .and_then(|now| snapshot.time_left(block.node, now))
                .map(|left| left.as_secs()),
            lang: list.lang,
            search: search.map_or(0, |marks| marks.generation),
        };
        let context = CardContext {
            answering,
            now: list.now,
            lang: list.lang,
            highlight: search.map(|marks| &marks.highlighter),
        };
        self.cards.get_or_insert_with(key, || {
            Arc::new(build_block(snapshot, block, style, context, width, text))
        })
    }

    /// Lays out block `index` and places it where `top_for(its height)` says.
    fn place_block(
        &mut self,
        list: &ListInput,
        index: usize,
        text: &mut TextSystem,
        top_for: impl FnOnce(Pixels) -> Pixels,
    ) -> PlacedCard {
        let block = &list.blocks[index];
        let layout = self.card(list, block, list.region.width, text);
        PlacedCard {
            index,
            node: block.node,
            top: top_for(layout.height),
            layout,
        }
    }

    /// The height of block `index` plus the gap after it.
    fn block_pitch(&mut self, list: &ListInput, index: usize, text: &mut TextSystem) -> Pixels {
        let layout = self.card(list, &list.blocks[index], list.region.width, text);
        layout.height + list.style.metrics.card_gap
    }

    /// Places the cards that show in `region` for `anchor`.
    pub(super) fn place(
        &mut self,
        list: &ListInput,
        anchor: ScrollAnchor,
        text: &mut TextSystem,
    ) -> PlacedTranscript {
        let (blocks, region, gap) = (list.blocks, list.region, list.style.metrics.card_gap);
        let start = match anchor {
            ScrollAnchor::Bottom => None,
            ScrollAnchor::Block { block, offset } => {
                list.positions.get(&block).map(|&index| (index, offset))
            }
        };
        let mut placed: Vec<PlacedCard> = Vec::new();
        let pinned_to_bottom = match start {
            None => true,
            Some((first, offset)) => {
                let mut top = region.y - offset;
                let mut index = first;
                while index < blocks.len() && top < region.bottom() + OVERSCAN {
                    let card = self.place_block(list, index, text, |_| top);
                    top += card.layout.height + gap;
                    placed.push(card);
                    index += 1;
                }
                // Past the end with room to spare: the view is at the bottom after all, or,
                // for a newest question taller than the view, at its end.
                let past_end = index == blocks.len() && top - gap <= region.bottom() + Pixels(0.5);
                if past_end && is_tall_newest_question(list, &placed) {
                    let last = &placed[placed.len() - 1];
                    let shift = region.bottom() - (last.top + last.layout.height);
                    for card in &mut placed {
                        card.top += shift;
                    }
                }
                past_end && !is_tall_newest_question(list, &placed)
            }
        };
        if pinned_to_bottom {
            placed.clear();
            let mut bottom = region.bottom();
            for index in (0..blocks.len()).rev() {
                let card = self.place_block(list, index, text, |height| bottom - height);
                bottom = card.top - gap;
                placed.push(card);
                if bottom < region.y - OVERSCAN {
                    break;
                }
            }
            placed.reverse();
            // A session shorter than the viewport starts at the top, not floating at the bottom.
            if let Some(first) = placed.first() {
                if first.index == 0 && first.top > region.y {
                    let shift = first.top - region.y;
                    for card in &mut placed {
                        card.top -= shift;
                    }
                }
            }
            // A newest question taller than the view shows its top (its title and first
            // items), not its end: what is asked is read from the top.
            if is_tall_newest_question(list, &placed) {
                let shift = region.y - placed[placed.len() - 1].top;
                for card in &mut placed {
                    card.top += shift;
                }
                self.place_above(list, &mut placed, text);
            }
        } else {
            self.place_above(list, &mut placed, text);
        }
        let anchor = placed
            .iter()
            .find(|card| card.top + card.layout.height > region.y)
            .map_or(ScrollAnchor::Bottom, |card| ScrollAnchor::Block {
                block: card.node,
                offset: region.y - card.top,
            });
        let last_visible = placed.iter().rev().find(|card| card.top < region.bottom());
        let at_bottom = (pinned_to_bottom && !is_tall_newest_question(list, &placed))
            || last_visible.is_some_and(|card| {
                card.index + 1 == blocks.len() && card.top + card.layout.height <= region.bottom()
            });
        let blocks_below = last_visible.map_or(0, |card| blocks.len() - card.index - 1);
        PlacedTranscript {
            cards: placed,
            anchor: if pinned_to_bottom {
                ScrollAnchor::Bottom
            } else {
                anchor
            },
            at_bottom,
            blocks_below,
        }
    }

    /// Adds the cards in the margin above the first placed card.
    fn place_above(
        &mut self,
        list: &ListInput,
        placed: &mut Vec<PlacedCard>,
        text: &mut TextSystem,
    ) {
        let Some(first) = placed.first().map(|card| (card.index, card.top)) else {
            return;
        };
        let gap = list.style.metrics.card_gap;
        let (mut index, mut bottom) = (first.0, first.1 - gap);
        let mut above = Vec::new();
        while index > 0 && bottom > list.region.y - OVERSCAN {
            index -= 1;
            let card = self.place_block(list, index, text, |height| bottom - height);
            bottom = card.top - gap;
            above.push(card);
        }
        above.reverse();
        above.append(placed);
        *placed = above;
    }

    /// The anchor after scrolling by `delta` (positive moves toward newer content).
    pub(super) fn scroll(
        &mut self,
        list: &ListInput,
        anchor: ScrollAnchor,
        delta: Pixels,
        text: &mut TextSystem,
    ) -> ScrollAnchor {
        let (blocks, region) = (list.blocks, list.region);
        if blocks.is_empty() {
            return ScrollAnchor::Bottom;
        }
        let current = self.place(list, anchor, text);
        let Some((mut index, mut offset)) = current
            .cards
            .iter()
            .find(|card| card.top + card.layout.height > region.y)
            .map(|card| (card.index, region.y - card.top))
        else {
            return ScrollAnchor::Bottom;
        };
        offset += delta;
        while offset.0 < 0.0 {
            if index == 0 {
                offset = Pixels::ZERO;
                break;
            }
            index -= 1;
            offset += self.block_pitch(list, index, text);
        }
        loop {
            let pitch = self.block_pitch(list, index, text);
            if offset < pitch {
                break;
            }
            if index + 1 == blocks.len() {
                // Past the end: `place` pins the view to the bottom, or to the end of a
                // newest question taller than the view.
                break;
            }
            offset -= pitch;
            index += 1;
        }
        let candidate = ScrollAnchor::Block {
            block: blocks[index].node,
            offset,
        };
        // Scrolling down onto the last screenful pins the view to the bottom again.
        self.place(list, candidate, text).anchor
    }
}

/// Whether the last of `placed` is the newest block, a question (a batch or a
/// confirmation) taller than the transcript's region.
fn is_tall_newest_question(list: &ListInput, placed: &[PlacedCard]) -> bool {
    placed.last().is_some_and(|card| {
        card.index + 1 == list.blocks.len()
            && matches!(card.node, NodeRef::Batch(_) | NodeRef::Confirmation(_))
            && card.layout.height > list.region.height
    })
}
