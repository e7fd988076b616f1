//! The branch map's arrangement: where each thread's node goes, and the lines that join a
//! branch to the thread it left.
//!
//! Threads are laid out as an indented tree in the order they were opened (a thread above its
//! branches, siblings in order), and the rows flow into columns, as a newspaper's do, so that
//! the map's shape comes near the frame's whatever the tree's: a session of one topic and two
//! hundred rewinds is as readable as one of twenty topics. A column that starts inside a
//! subtree carries a [`Continuation`] naming whose it is. Coordinates are the map's own
//! logical pixels at zoom 1; the camera and the painters (the frame, SVG) place them. No text
//! is measured here: nodes have fixed sizes, so any session is arranged in linear time.
//!
//! Every walk over the tree keeps its own stack: an agent can nest threads 50,000 deep.

use crate::theme::Style;
use crate::units::{Pixels, Point, Rect};
use chatsurface_model::{NodeRef, Snapshot, ThreadStatus};

/// Threads deeper than this are drawn at this depth: their line still joins them to their
/// parent, but the map does not grow wider for a chain a thousand threads deep.
pub(crate) const DRAWN_DEPTH: usize = 10;

/// The most columns the rows flow into.
const MOST_COLUMNS: usize = 64;

/// The map's sizes, derived from a style's text sizes so that cockpit's larger type fits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MapMetrics {
    /// A node's width.
    pub node_width: Pixels,
    /// A node's height: two lines and padding.
    pub node_height: Pixels,
    /// From one row's top to the next's.
    pub row_pitch: Pixels,
    /// How far a branch is indented under its parent.
    pub indent: Pixels,
    /// Where a parent's line to its branches runs, from the parent's left edge.
    pub spine: Pixels,
    /// Between columns.
    pub column_gap: Pixels,
    /// Around the whole map.
    pub margin: Pixels,
    /// The band at the top of a column that continues a subtree.
    pub continuation: Pixels,
    /// Inside a node, around its text.
    pub padding: Pixels,
}

impl MapMetrics {
    /// The sizes for a style.
    pub(crate) fn of(style: &Style) -> MapMetrics {
        let font = style.metrics.font_size.as_f32();
        let small = style.metrics.small_font_size.as_f32();
        let padding = (font * 0.5).round();
        let node_height = (padding * 2.0 + font * 1.3 + small * 1.3 + 2.0).round();
        MapMetrics {
            node_width: Pixels((font * 26.0).round()),
            node_height: Pixels(node_height),
            row_pitch: Pixels(node_height + (font * 0.9).round()),
            indent: Pixels((font * 2.4).round()),
            spine: Pixels((font * 1.1).round()),
            column_gap: Pixels((font * 3.0).round()),
            margin: Pixels((font * 1.5).round()),
            continuation: Pixels((small * 1.8).round()),
            padding: Pixels(padding),
        }
    }
}

/// One thread's node.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MapNode {
    /// The thread's index in the snapshot.
    pub thread: usize,
    /// Where the node is, in map pixels.
    pub rect: Rect,
    /// How deep the thread is (0 for a topic), whether or not it is drawn that deep.
    pub depth: usize,
    /// How many of its parent's messages came before the branch opened; `None` for a topic.
    pub split: Option<usize>,
    /// Whether it lies on the path the session ended on: the thread last active and the
    /// threads it branches off.
    pub on_final_path: bool,
}

/// The line from a parent to one of its branches: down the parent's spine, then across to
/// the branch's left edge (`bend == end` when the branch sits straight under its parent).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MapEdge {
    /// At the parent's bottom edge, or at the column's top when the parent is in an earlier
    /// column.
    pub start: Point,
    /// Where the line turns.
    pub bend: Point,
    /// At the branch.
    pub end: Point,
    /// The branch's index in the snapshot.
    pub thread: usize,
    /// Whether the branch lies on the path the session ended on.
    pub on_final_path: bool,
}

/// The top of a column that begins inside a subtree: the thread whose branches it continues.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Continuation {
    /// The band's place.
    pub rect: Rect,
    /// The parent of the column's first node.
    pub thread: usize,
}

/// The whole map, in map pixels.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Arrangement {
    /// The map's width and height.
    pub size: (Pixels, Pixels),
    /// The sizes it was arranged with.
    pub metrics: MapMetrics,
    /// One node per thread, in tree order (a thread, then its branches).
    pub nodes: Vec<MapNode>,
    /// One line per branch.
    pub edges: Vec<MapEdge>,
    /// The columns that continue a subtree.
    pub continuations: Vec<Continuation>,
}

impl Arrangement {
    /// The node of a thread, by the thread's index in the snapshot.
    pub(crate) fn node_of(&self, thread: usize) -> Option<&MapNode> {
        self.nodes.iter().find(|node| node.thread == thread)
    }
}

/// The session's threads in tree order, each with its depth: topics in the order they were
/// opened, each followed by its branches.
pub(crate) fn tree_order(snapshot: &Snapshot) -> Vec<(usize, usize)> {
    let (roots, children) = snapshot.thread_tree();
    let mut order = Vec::with_capacity(snapshot.threads.len());
    let mut stack: Vec<(usize, usize)> = roots.iter().rev().map(|&root| (root, 0)).collect();
    while let Some((thread, depth)) = stack.pop() {
        order.push((thread, depth));
        stack.extend(
            children[thread]
                .iter()
                .rev()
                .map(|&child| (child, depth + 1)),
        );
    }
    order
}

/// How many of each branch's parent's messages came before the branch opened, by thread.
fn split_points(snapshot: &Snapshot) -> Vec<Option<usize>> {
    let mut messages = vec![0usize; snapshot.threads.len()];
    let mut split = vec![None; snapshot.threads.len()];
    for entry in &snapshot.timeline {
        match entry.node {
            NodeRef::Message(_) => messages[entry.thread] += 1,
            NodeRef::Thread(thread) => {
                if let Some(parent) = snapshot.parent_of(thread) {
                    split[thread] = Some(messages[parent]);
                }
            }
            _ => {}
        }
    }
    split
}

/// The threads on the path the session ended on: the one last active, and its ancestors.
fn final_path(snapshot: &Snapshot) -> Vec<bool> {
    let mut on_path = vec![false; snapshot.threads.len()];
    let latest = (0..snapshot.threads.len()).max_by_key(|&thread| {
        let node = &snapshot.threads[thread];
        // A parked thread is one the session left, however late it was written.
        (node.status != ThreadStatus::Parked, node.last_activity_seq)
    });
    let mut current = latest;
    while let Some(thread) = current {
        on_path[thread] = true;
        current = snapshot.parent_of(thread);
    }
    on_path
}

/// How many columns bring the map's shape nearest to `aspect` (width over height).
fn column_count(rows: usize, deepest: usize, metrics: &MapMetrics, aspect: f32) -> usize {
    let column_width = metrics.node_width.as_f32() + metrics.indent.as_f32() * deepest as f32;
    let shape = |columns: usize| {
        let per_column = rows.div_ceil(columns);
        let width = columns as f32 * column_width
            + (columns - 1) as f32 * metrics.column_gap.as_f32()
            + 2.0 * metrics.margin.as_f32();
        let height = per_column as f32 * metrics.row_pitch.as_f32()
            + metrics.continuation.as_f32()
            + 2.0 * metrics.margin.as_f32();
        (width / height / aspect).ln().abs()
    };
    (1..=rows.clamp(1, MOST_COLUMNS))
        .min_by(|&a, &b| shape(a).total_cmp(&shape(b)))
        .unwrap_or(1)
}

/// Arranges the session's threads for a frame whose map area is `aspect` times as wide as
/// it is high.
pub(crate) fn arrange(snapshot: &Snapshot, style: &Style, aspect: f32) -> Arrangement {
    let metrics = MapMetrics::of(style);
    let order = tree_order(snapshot);
    let split = split_points(snapshot);
    let on_path = final_path(snapshot);
    let deepest = order
        .iter()
        .map(|&(_, depth)| depth.min(DRAWN_DEPTH))
        .max()
        .unwrap_or(0);
    let aspect = if aspect.is_finite() && aspect > 0.0 {
        aspect
    } else {
        1.0
    };
    let columns = column_count(order.len(), deepest, &metrics, aspect);
    let per_column = order.len().div_ceil(columns).max(1);

    let mut nodes = Vec::with_capacity(order.len());
    let mut continuations = Vec::new();
    // Where each thread's node is: its column and its index in `nodes`.
    let mut placed: Vec<Option<(usize, usize)>> = vec![None; snapshot.threads.len()];
    let mut column_x = metrics.margin;
    let mut width = Pixels::ZERO;
    let top = metrics.margin + metrics.continuation;
    for (column, rows) in order.chunks(per_column).enumerate() {
        let mut column_deepest = 0;
        for (row, &(thread, depth)) in rows.iter().enumerate() {
            let drawn = depth.min(DRAWN_DEPTH);
            column_deepest = column_deepest.max(drawn);
            placed[thread] = Some((column, nodes.len()));
            nodes.push(MapNode {
                thread,
                rect: Rect {
                    x: column_x + metrics.indent * drawn as f32,
                    y: top + metrics.row_pitch * row as f32,
                    width: metrics.node_width,
                    height: metrics.node_height,
                },
                depth,
                split: split[thread],
                on_final_path: on_path[thread],
            });
        }
        if let Some(parent) = rows
            .first()
            .and_then(|&(first, _)| snapshot.parent_of(first))
        {
            continuations.push(Continuation {
                rect: Rect {
                    x: column_x,
                    y: metrics.margin,
                    width: metrics.node_width + metrics.indent * column_deepest as f32,
                    height: metrics.continuation,
                },
                thread: parent,
            });
        }
        let right = column_x + metrics.node_width + metrics.indent * column_deepest as f32;
        width = right + metrics.margin;
        column_x = right + metrics.column_gap;
    }
    let rows_high = per_column.min(order.len());
    let height = top + metrics.row_pitch * rows_high as f32
        - (metrics.row_pitch - metrics.node_height)
        + metrics.margin;

    let mut edges = Vec::with_capacity(nodes.len());
    for (index, node) in nodes.iter().enumerate() {
        let Some(parent) = snapshot.parent_of(node.thread) else {
            continue;
        };
        let Some((parent_column, parent_index)) = placed[parent] else {
            continue;
        };
        let (column, _) = placed[node.thread].unwrap_or((parent_column, index));
        let parent_rect = nodes[parent_index].rect;
        let parent_depth = nodes[parent_index].depth.min(DRAWN_DEPTH);
        let parent_x = if parent_column == column {
            parent_rect.x
        } else {
            // The parent is in an earlier column: its line comes down from this column's top,
            // at the parent's depth.
            node.rect.x - metrics.indent * (node.depth.min(DRAWN_DEPTH) - parent_depth) as f32
        };
        let spine_x = parent_x + metrics.spine;
        let start_y = if parent_column == column {
            parent_rect.bottom()
        } else {
            metrics.margin + metrics.continuation
        };
        let middle_y = node.rect.y + node.rect.height * 0.5;
        let (bend, end) = if node.rect.x > spine_x {
            let bend = Point {
                x: spine_x,
                y: middle_y,
            };
            (
                bend,
                Point {
                    x: node.rect.x,
                    y: middle_y,
                },
            )
        } else {
            let end = Point {
                x: spine_x,
                y: node.rect.y,
            };
            (end, end)
        };
        edges.push(MapEdge {
            start: Point {
                x: spine_x,
                y: start_y,
            },
            bend,
            end,
            thread: node.thread,
            on_final_path: node.on_final_path,
        });
    }
    Arrangement {
        size: (width.max(metrics.margin * 2.0), height),
        metrics,
        nodes,
        edges,
        continuations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{message, snapshot_from, thread};
    use crate::theme::{Density, Theme};

    fn style() -> Style {
        Style::new(Theme::Dark, Density::Comfortable)
    }

    /// A topic with a message, a branch after it, another message, then a second branch.
    fn forked() -> Snapshot {
        snapshot_from(&[
            thread("main", None),
            message("m1", "main", "First."),
            thread("b1", Some("main")),
            message("m2", "b1", "In the branch."),
            message("m3", "main", "Back on the main line."),
            message("m4", "main", "And on."),
            thread("b2", Some("main")),
        ])
    }

    fn overlap(a: &Rect, b: &Rect) -> bool {
        !a.intersect(b).is_empty()
    }

    #[test]
    fn every_thread_has_one_node_below_its_parent_and_an_edge_from_it() {
        let snapshot = forked();
        let map = arrange(&snapshot, &style(), 0.2);
        assert_eq!(map.nodes.len(), 3);
        let main = map.node_of(0).unwrap();
        for branch in [1, 2] {
            let node = map.node_of(branch).unwrap();
            assert!(node.rect.y > main.rect.y, "a branch sits below its parent");
            assert!(node.rect.x > main.rect.x, "and is indented under it");
            let edge = map.edges.iter().find(|edge| edge.thread == branch).unwrap();
            assert_eq!(edge.start.y, main.rect.bottom());
            assert_eq!(edge.end.x, node.rect.x);
        }
        assert_eq!(map.node_of(1).unwrap().split, Some(1));
        assert_eq!(map.node_of(2).unwrap().split, Some(3));
        assert_eq!(main.split, None);
    }

    #[test]
    fn the_path_the_session_ended_on_skips_a_parked_branch() {
        let snapshot = snapshot_from(&[
            thread("main", None),
            thread("done", Some("main")),
            thread("left", Some("main")),
            message("m1", "done", "Finished here."),
            message("m2", "left", "Abandoned later."),
            r#"{"type":"thread_status_changed","thread_id":"left","status":"parked"}"#.to_owned(),
        ]);
        let map = arrange(&snapshot, &style(), 1.0);
        let on_path: Vec<usize> = map
            .nodes
            .iter()
            .filter(|node| node.on_final_path)
            .map(|node| node.thread)
            .collect();
        assert_eq!(on_path, vec![0, 1]);
    }

    #[test]
    fn rows_flow_into_columns_toward_the_frames_shape_without_overlapping() {
        let mut events = Vec::new();
        for topic in 0..20 {
            let id = format!("t{topic}");
            events.push(thread(&id, None));
            for branch in 0..9 {
                let child = format!("t{topic}b{branch}");
                events.push(thread(&child, Some(&id)));
            }
        }
        let snapshot = snapshot_from(&events);
        let wide = arrange(&snapshot, &style(), 16.0 / 9.0);
        let tall = arrange(&snapshot, &style(), 0.1);
        let shape = |map: &Arrangement| map.size.0.as_f32() / map.size.1.as_f32();
        assert!(shape(&wide) > 1.0 && shape(&wide) < 3.5, "{:?}", wide.size);
        assert!(shape(&tall) < 0.2, "{:?}", tall.size);
        for map in [&wide, &tall] {
            assert_eq!(map.nodes.len(), 200);
            let bounds = Rect {
                x: Pixels::ZERO,
                y: Pixels::ZERO,
                width: map.size.0,
                height: map.size.1,
            };
            for (index, node) in map.nodes.iter().enumerate() {
                assert_eq!(bounds.intersect(&node.rect), node.rect, "inside the map");
                for other in &map.nodes[index + 1..] {
                    assert!(!overlap(&node.rect, &other.rect), "{node:?} {other:?}");
                }
            }
        }
        // A column that starts inside a topic says whose branches it continues.
        assert!(!wide.continuations.is_empty());
        for continued in &wide.continuations {
            assert!(snapshot.threads[continued.thread].spec.parent.is_none());
        }
    }

    #[test]
    fn a_chain_fifty_thousand_deep_is_arranged_no_wider_than_its_drawn_depth() {
        let mut events = vec![thread("c0", None)];
        for depth in 1..50_000 {
            events.push(thread(
                &format!("c{depth}"),
                Some(&format!("c{}", depth - 1)),
            ));
        }
        let snapshot = snapshot_from(&events);
        let map = arrange(&snapshot, &style(), 1.0);
        assert_eq!(map.nodes.len(), 50_000);
        assert_eq!(map.edges.len(), 49_999);
        let metrics = map.metrics;
        let column = metrics.node_width + metrics.indent * DRAWN_DEPTH as f32;
        let widest = metrics.margin * 2.0 + (column + metrics.column_gap) * MOST_COLUMNS as f32
            - metrics.column_gap;
        assert!(map.size.0 <= widest, "{:?}", map.size);
        // Past the drawn depth a thread sits straight under its parent, joined by a line down.
        let (deep, deeper) = (&map.nodes[DRAWN_DEPTH], &map.nodes[DRAWN_DEPTH + 5]);
        assert_eq!(deep.rect.x, deeper.rect.x);
        let edge = map
            .edges
            .iter()
            .find(|edge| edge.thread == deeper.thread)
            .unwrap();
        assert_eq!(edge.bend, edge.end);
        assert_eq!(edge.end.y, deeper.rect.y);
    }
}
