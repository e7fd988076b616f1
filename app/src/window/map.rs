//! The branch map open over the window (`m`): its selection and camera, kept between frames.
//!
//! The compositor arranges and draws the map and says, with each frame, which camera it drew
//! with and where; this module keeps that camera so the next key, wheel turn or drag starts
//! from what is on the screen, and keeps the selected thread. It never computes where a node
//! is: a step of the selection asks the compositor's [`map_step`], and moving the view to the
//! selection is the compositor's `reveal_selected`.

use chatsurface_compositor::{map_step, px, MapCamera, MapFrame, MapStep, MapView, Point};
use chatsurface_model::{History, Snapshot};

/// How far the pointer may move between press and release for it to be a click, not a drag.
const CLICK_SLOP: f32 = 4.0;

/// The open map.
#[derive(Debug)]
pub(super) struct BranchMap {
    /// What the next frame draws.
    view: MapView,
    /// The session it was opened on: a map never carries a selection into another session.
    history: History,
    /// The camera and area of the last frame drawn with the map.
    last: Option<MapFrame>,
    /// Where a press began and where the pointer was at the last move, while a button is down.
    drag: Option<((f32, f32), (f32, f32))>,
}

impl BranchMap {
    /// The map over `snapshot`, fitted, with `selected` (the thread in view) selected.
    pub(super) fn open(snapshot: &Snapshot, selected: Option<usize>) -> BranchMap {
        BranchMap {
            view: MapView {
                camera: None,
                selected: selected.or_else(|| map_step(snapshot, None, MapStep::Next)),
                reveal_selected: false,
            },
            history: snapshot.history,
            last: None,
            drag: None,
        }
    }

    /// Whether it was opened on this snapshot's session.
    pub(super) fn is_of(&self, snapshot: &Snapshot) -> bool {
        self.history == snapshot.history
    }

    /// What the next frame is to draw.
    pub(super) fn view(&self) -> MapView {
        self.view
    }

    /// The thread selected.
    pub(super) fn selected(&self) -> Option<usize> {
        self.view.selected
    }

    /// Takes in how the last frame drew the map.
    pub(super) fn shown(&mut self, frame: MapFrame) {
        self.view.camera = Some(frame.camera);
        self.view.reveal_selected = false;
        self.last = Some(frame);
    }

    /// Moves the selection, bringing it into view.
    pub(super) fn step(&mut self, snapshot: &Snapshot, step: MapStep) {
        self.view.selected = map_step(snapshot, self.view.selected, step);
        self.view.reveal_selected = true;
    }

    /// Selects a thread (a click on its node).
    pub(super) fn select(&mut self, thread: usize) {
        self.view.selected = Some(thread);
    }

    /// Zooms by `factor` about a point of the frame, or about the map area's centre.
    pub(super) fn zoom(&mut self, factor: f32, about: Option<(f32, f32)>) {
        let Some(MapFrame { camera, area }) = self.last else {
            return;
        };
        let about = about.map_or_else(
            || Point {
                x: area.x + area.width * 0.5,
                y: area.y + area.height * 0.5,
            },
            |(x, y)| Point { x: px(x), y: px(y) },
        );
        self.view.camera = Some(camera.zoomed(factor, about, area));
    }

    /// Fits the whole map in the window again.
    pub(super) fn fit(&mut self) {
        self.view.camera = None;
    }

    /// Moves the map by a distance in frame pixels (a wheel turn without Ctrl).
    pub(super) fn pan(&mut self, dx: f32, dy: f32) {
        if let Some(camera) = self.camera() {
            self.view.camera = Some(camera.dragged(px(dx), px(dy)));
        }
    }

    fn camera(&self) -> Option<MapCamera> {
        self.view.camera.or(self.last.map(|frame| frame.camera))
    }

    /// A button went down at a point: a drag, or a click, begins.
    pub(super) fn press(&mut self, x: f32, y: f32) {
        self.drag = Some(((x, y), (x, y)));
    }

    /// The pointer moved; while a button is down the map follows it. Whether it moved.
    pub(super) fn pointer_moved(&mut self, x: f32, y: f32) -> bool {
        let Some((start, last)) = self.drag else {
            return false;
        };
        self.drag = Some((start, (x, y)));
        self.pan(x - last.0, y - last.1);
        true
    }

    /// The button came up: whether press and release were one click (not a drag).
    pub(super) fn release(&mut self, x: f32, y: f32) -> bool {
        let Some((start, _)) = self.drag.take() else {
            return false;
        };
        (x - start.0).abs() <= CLICK_SLOP && (y - start.1).abs() <= CLICK_SLOP
    }
}
