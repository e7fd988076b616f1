//! The branch map: the whole session as a tree of threads, for a reviewer.
//!
//! Each thread is a node with its title, status, message count, open questions and
//! decisions; each branch is drawn off its parent, with the message it left from; abandoned
//! (parked) branches are dimmed and the path the session ended on is emphasised. The map is a
//! projection of the snapshot like the overview, never a second source of truth.
//!
//! This module owns the map's view state as the window hands it over ([`MapView`], with its
//! [`MapCamera`]), the moves between nodes ([`map_step`]) and the arrangement (`arrange.rs`).
//! Layout paints it (`layout/map.rs`), over the frame or alone for export, and
//! `render/svg.rs` writes the painted map as SVG. The window keeps the camera and the
//! selection; it never computes where a node is.

pub(crate) mod arrange;

use crate::units::{Pixels, Point, Rect};
use chatsurface_model::Snapshot;

/// The smallest and largest zoom: a 2,000-thread map fits a window at about 0.05.
pub const ZOOM_RANGE: (f32, f32) = (0.01, 4.0);

/// Where the map is looked at from: its zoom, and the map point at the top-left corner of the
/// map's area of the frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MapCamera {
    /// Frame pixels per map pixel.
    pub zoom: f32,
    /// The map point shown at the area's top-left corner, in map pixels.
    pub origin: Point,
}

impl MapCamera {
    /// The camera zoomed by `factor` about a point of the frame (the pointer, or the area's
    /// centre), which stays over the same map point; the zoom stays within [`ZOOM_RANGE`].
    pub fn zoomed(self, factor: f32, about: Point, area: Rect) -> MapCamera {
        let zoom = (self.zoom * factor).clamp(ZOOM_RANGE.0, ZOOM_RANGE.1);
        let (dx, dy) = (about.x - area.x, about.y - area.y);
        let under = Point {
            x: self.origin.x + dx * (1.0 / self.zoom),
            y: self.origin.y + dy * (1.0 / self.zoom),
        };
        MapCamera {
            zoom,
            origin: Point {
                x: under.x - dx * (1.0 / zoom),
                y: under.y - dy * (1.0 / zoom),
            },
        }
    }

    /// The camera after the map was dragged by `(dx, dy)` frame pixels.
    pub fn dragged(self, dx: Pixels, dy: Pixels) -> MapCamera {
        MapCamera {
            zoom: self.zoom,
            origin: Point {
                x: self.origin.x - dx * (1.0 / self.zoom),
                y: self.origin.y - dy * (1.0 / self.zoom),
            },
        }
    }

    /// Where a map rectangle lands in the frame.
    pub(crate) fn to_frame(self, rect: Rect, area: Rect) -> Rect {
        Rect {
            x: area.x + (rect.x - self.origin.x) * self.zoom,
            y: area.y + (rect.y - self.origin.y) * self.zoom,
            width: rect.width * self.zoom,
            height: rect.height * self.zoom,
        }
    }

    /// Where a map point lands in the frame.
    pub(crate) fn point_to_frame(self, point: Point, area: Rect) -> Point {
        Point {
            x: area.x + (point.x - self.origin.x) * self.zoom,
            y: area.y + (point.y - self.origin.y) * self.zoom,
        }
    }

    /// The camera that shows a whole map of `size` centred in `area`, no larger than zoom 1.
    pub(crate) fn fitting(size: (Pixels, Pixels), area: Rect) -> MapCamera {
        let zoom = (area.width.as_f32() / size.0.as_f32().max(1.0))
            .min(area.height.as_f32() / size.1.as_f32().max(1.0))
            .clamp(ZOOM_RANGE.0, 1.0);
        MapCamera {
            zoom,
            origin: Point {
                x: (size.0 - area.width * (1.0 / zoom)) * 0.5,
                y: (size.1 - area.height * (1.0 / zoom)) * 0.5,
            },
        }
    }
}

/// The map as the window asks for it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MapView {
    /// The camera; `None` fits the whole map in the frame.
    pub camera: Option<MapCamera>,
    /// The selected thread (an index into the snapshot's threads), which Enter opens.
    pub selected: Option<usize>,
    /// Whether to move the camera so the selected node is in view (after a key moved it).
    pub reveal_selected: bool,
}

/// What a frame with the map open tells the window: the camera it was drawn with (the fit
/// resolved, the selection revealed), and the frame's area the map fills, so that a drag or a
/// zoom about the pointer starts from what is on the screen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MapFrame {
    /// The camera used.
    pub camera: MapCamera,
    /// The map's area of the frame.
    pub area: Rect,
}

/// A move of the map's selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapStep {
    /// The next thread in tree order (down).
    Next,
    /// The previous thread in tree order (up).
    Previous,
    /// The thread this one branches off.
    Parent,
    /// This thread's first branch.
    FirstBranch,
}

/// The thread a step from `selected` lands on (`selected` itself where there is nowhere to
/// go); with nothing selected, the first thread. `None` only for a session without threads.
pub fn map_step(snapshot: &Snapshot, selected: Option<usize>, step: MapStep) -> Option<usize> {
    let order = arrange::tree_order(snapshot);
    let first = order.first().map(|&(thread, _)| thread);
    let Some(selected) = selected.filter(|&thread| thread < snapshot.threads.len()) else {
        return first;
    };
    let at = order.iter().position(|&(thread, _)| thread == selected)?;
    let landed = match step {
        MapStep::Next => order.get(at + 1).map(|&(thread, _)| thread),
        MapStep::Previous => at.checked_sub(1).map(|before| order[before].0),
        MapStep::Parent => snapshot.parent_of(selected),
        MapStep::FirstBranch => order
            .get(at + 1)
            .filter(|&&(thread, _)| snapshot.parent_of(thread) == Some(selected))
            .map(|&(thread, _)| thread),
    };
    Some(landed.unwrap_or(selected))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{snapshot_from, thread};

    #[test]
    fn steps_walk_the_tree_in_order_and_stop_at_its_ends() {
        let snapshot = snapshot_from(&[
            thread("a", None),
            thread("b", None),
            thread("a1", Some("a")),
            thread("a1x", Some("a1")),
        ]);
        // Tree order: a, a1, a1x, b.
        let walk = |from, step| map_step(&snapshot, from, step);
        assert_eq!(walk(None, MapStep::Next), Some(0));
        assert_eq!(walk(Some(0), MapStep::Next), Some(2));
        assert_eq!(walk(Some(3), MapStep::Next), Some(1));
        assert_eq!(walk(Some(1), MapStep::Next), Some(1));
        assert_eq!(walk(Some(1), MapStep::Previous), Some(3));
        assert_eq!(walk(Some(0), MapStep::Previous), Some(0));
        assert_eq!(walk(Some(3), MapStep::Parent), Some(2));
        assert_eq!(walk(Some(0), MapStep::Parent), Some(0));
        assert_eq!(walk(Some(0), MapStep::FirstBranch), Some(2));
        assert_eq!(walk(Some(1), MapStep::FirstBranch), Some(1));
        assert_eq!(walk(Some(99), MapStep::Next), Some(0));
        assert_eq!(map_step(&snapshot_from(&[]), None, MapStep::Next), None);
    }

    #[test]
    fn zooming_about_a_point_keeps_the_map_point_under_it() {
        let area = Rect::new(0.0, 40.0, 800.0, 600.0);
        let camera = MapCamera {
            zoom: 0.5,
            origin: Point {
                x: Pixels(100.0),
                y: Pixels(20.0),
            },
        };
        let pointer = Point {
            x: Pixels(300.0),
            y: Pixels(240.0),
        };
        let map_point = |camera: MapCamera| {
            (
                camera.origin.x.as_f32() + (pointer.x - area.x).as_f32() / camera.zoom,
                camera.origin.y.as_f32() + (pointer.y - area.y).as_f32() / camera.zoom,
            )
        };
        let zoomed = camera.zoomed(2.0, pointer, area);
        assert_eq!(zoomed.zoom, 1.0);
        let (before, after) = (map_point(camera), map_point(zoomed));
        assert!((before.0 - after.0).abs() < 1e-3 && (before.1 - after.1).abs() < 1e-3);
        assert_eq!(camera.zoomed(1e6, pointer, area).zoom, ZOOM_RANGE.1);
        let dragged = camera.dragged(Pixels(50.0), Pixels(-10.0));
        assert_eq!(dragged.origin.x, Pixels(0.0));
        assert_eq!(dragged.origin.y, Pixels(40.0));
    }

    #[test]
    fn the_fitting_camera_shows_the_whole_map_centred() {
        let area = Rect::new(10.0, 50.0, 1000.0, 500.0);
        let size = (Pixels(4000.0), Pixels(1000.0));
        let camera = MapCamera::fitting(size, area);
        assert_eq!(camera.zoom, 0.25);
        let whole = camera.to_frame(
            Rect {
                x: Pixels::ZERO,
                y: Pixels::ZERO,
                width: size.0,
                height: size.1,
            },
            area,
        );
        assert_eq!(whole.x, area.x);
        assert_eq!(whole.width, area.width);
        assert!(
            (whole.y - area.y).as_f32() > 0.0,
            "centred, with room above"
        );
        assert_eq!(
            MapCamera::fitting((Pixels(10.0), Pixels(10.0)), area).zoom,
            1.0
        );
    }
}
