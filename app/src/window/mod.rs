//! The native window: `chatsurface open LOG` (and `chatsurface` with no arguments).
//!
//! winit delivers input; the keymap turns keys into commands; the answer state and the view
//! state (scroll, focus, the thread drilled into) change; the compositor lays out a frame from
//! the session's snapshot and that state; retained layers repaint only what changed; wgpu
//! composites and presents, vsynced. The session log is followed as it grows, and the human's
//! drafts and answers are appended to it. The window only uses the compositor's public
//! pipeline; it never reaches into its stages.

mod answer;
mod editor;
mod gpu;
mod keymap;
mod layers;
mod opener;
mod session;
mod stats;

use crate::error::AppError;
use answer::Answering;
use chatsurface_compositor::answering::{AnswerField, CardHit};
use chatsurface_compositor::intent::{IntentRequest, ScrollAnchor, Viewport, VIEWPORT_RANGE};
use chatsurface_compositor::layout::{FrameRegions, HitTarget};
use chatsurface_compositor::text::{FontSet, TextSystem};
use chatsurface_compositor::theme::{Density, Style, Theme};
use chatsurface_compositor::units::{Pixels, Rect, ScaleFactor};
use chatsurface_compositor::{ChatSurfaceCompositor, FrameInfo};
use chatsurface_model::{EventBody, NodeRef, Snapshot, ThreadId};
use editor::{Clipboard, EditCommand, MemoryClipboard};
use keymap::{command_for, Command, Key, KeyContext, KeyPress, Modifiers};
use layers::{Highlight, RetainedLayers};
use session::SessionLog;
use stats::FrameStats;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use winit::application::ApplicationHandler;
use winit::dpi::LogicalSize;
use winit::event::{ElementState, Ime, KeyEvent, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key as WinitKey, ModifiersState, NamedKey};
use winit::window::{Window, WindowId};

pub use session::default_session;

/// How long typing must pause before the draft is saved to the log.
const DRAFT_DEBOUNCE: Duration = Duration::from_millis(700);
/// How often the log is checked for events others appended.
const FOLLOW_INTERVAL: Duration = Duration::from_millis(150);
/// How often the store is checked for a more recently written session.
const STORE_INTERVAL: Duration = Duration::from_millis(700);
/// Logical pixels one wheel notch or arrow line scrolls.
const LINE: f32 = 48.0;

/// What `chatsurface open` was asked for.
#[derive(Clone, Debug)]
pub struct WindowOptions {
    /// The session log.
    pub log: PathBuf,
    /// The look.
    pub theme: Theme,
    /// The spacing.
    pub density: Density,
    /// The window's inner size in logical pixels.
    pub size: (u32, u32),
    /// Benchmark: scroll this many frames, time a burst of key presses, write stats, exit.
    pub bench_frames: Option<usize>,
    /// Where the benchmark writes its statistics (JSON).
    pub stats: Option<PathBuf>,
    /// The store's data directory, when the window follows the store: it then moves to the
    /// session written most recently (an agent's new question) whenever the human is not in
    /// the middle of an answer.
    pub follow_store: Option<PathBuf>,
}

/// Opens the window and runs until it is closed.
pub fn run(options: WindowOptions) -> Result<(), AppError> {
    let session = SessionLog::open(&options.log)?;
    let event_loop = EventLoop::new().map_err(|error| {
        AppError::Unavailable(format!(
            "cannot open a window (is there a display? DISPLAY or WAYLAND_DISPLAY): {error}"
        ))
    })?;
    let mut app = WindowApp::new(options, session);
    event_loop.run_app(&mut app).map_err(|error| {
        AppError::Unavailable(format!("the window's event loop failed: {error}"))
    })?;
    match app.failure.take() {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// The system clipboard, or a private one where none can be reached.
fn system_clipboard() -> Box<dyn Clipboard> {
    struct System(arboard::Clipboard);
    impl Clipboard for System {
        fn text(&mut self) -> Option<String> {
            self.0.get_text().ok()
        }
        fn set_text(&mut self, text: String) {
            let _ = self.0.set_text(text);
        }
    }
    match arboard::Clipboard::new() {
        Ok(clipboard) => Box::new(System(clipboard)),
        Err(_) => Box::new(MemoryClipboard::default()),
    }
}

/// What the last frame showed, for hit tests and keyboard navigation.
#[derive(Debug, Default)]
struct ShownFrame {
    hits: Vec<(Rect, HitTarget)>,
    cards: Vec<(NodeRef, Rect)>,
    regions: FrameRegions,
    info: Option<FrameInfo>,
}

struct Surface {
    window: Arc<Window>,
    gpu: gpu::Gpu,
    layers: RetainedLayers,
}

struct WindowApp {
    options: WindowOptions,
    session: SessionLog,
    compositor: ChatSurfaceCompositor,
    editor_fonts: TextSystem,
    clipboard: Box<dyn Clipboard>,
    surface: Option<Surface>,
    thread_focus: Option<ThreadId>,
    scroll: ScrollAnchor,
    pending_scroll: f32,
    expanded: BTreeSet<NodeRef>,
    focused_card: Option<NodeRef>,
    hovered: Option<NodeRef>,
    answering: Option<Answering>,
    draft_due: Option<Instant>,
    preedit_active: bool,
    shown: ShownFrame,
    modifiers: ModifiersState,
    cursor: Option<(f64, f64)>,
    status: Option<String>,
    title: String,
    next_follow: Instant,
    next_store_look: Instant,
    key_pressed_at: Option<Instant>,
    stats: FrameStats,
    failure: Option<AppError>,
}

impl WindowApp {
    fn new(options: WindowOptions, session: SessionLog) -> WindowApp {
        WindowApp {
            options,
            session,
            compositor: ChatSurfaceCompositor::new(FontSet::BundledWithSystemFallback),
            editor_fonts: TextSystem::new(FontSet::BundledOnly),
            clipboard: system_clipboard(),
            surface: None,
            thread_focus: None,
            scroll: ScrollAnchor::Bottom,
            pending_scroll: 0.0,
            expanded: BTreeSet::new(),
            focused_card: None,
            hovered: None,
            answering: None,
            draft_due: None,
            preedit_active: false,
            shown: ShownFrame::default(),
            modifiers: ModifiersState::empty(),
            cursor: None,
            status: None,
            title: String::new(),
            next_follow: Instant::now(),
            next_store_look: Instant::now() + STORE_INTERVAL,
            key_pressed_at: None,
            stats: FrameStats::default(),
            failure: None,
        }
    }

    fn redraw_soon(&self) {
        if let Some(surface) = &self.surface {
            surface.window.request_redraw();
        }
    }

    fn request(&self, viewport: Viewport) -> IntentRequest {
        IntentRequest {
            viewport,
            focus: self.thread_focus.clone(),
            scroll: self.scroll,
            expanded: self.expanded.clone(),
            theme: self.options.theme,
            density: self.options.density,
            answering: self.answering.as_ref().map(Answering::view),
        }
    }

    fn viewport(window: &Window) -> Viewport {
        let scale = window.scale_factor() as f32;
        let size = window.inner_size();
        let (min, max) = VIEWPORT_RANGE;
        let side = |device: u32| Pixels((device as f32 / scale).clamp(min, max));
        Viewport {
            width: side(size.width),
            height: side(size.height),
            scale: ScaleFactor(scale),
        }
    }

    /// Lays out, repaints what changed and presents one frame.
    fn redraw(&mut self) {
        let started = Instant::now();
        let Some(viewport) = self
            .surface
            .as_ref()
            .map(|surface| Self::viewport(&surface.window))
        else {
            return;
        };
        let snapshot = self.session.snapshot();
        if self
            .answering
            .as_ref()
            .is_some_and(|answering| !snapshot.is_open_question(answering.node()))
        {
            self.answering = None;
        }
        if self
            .thread_focus
            .as_ref()
            .is_some_and(|thread| snapshot.thread_index(thread).is_none())
        {
            self.thread_focus = None;
        }
        let mut request = self.request(viewport);
        let snapshot = self.session.snapshot();
        if self.pending_scroll != 0.0 {
            // Smooth scrolling: each frame covers part of the way, the last pixel exactly.
            let step = if self.pending_scroll.abs() <= 2.0 {
                self.pending_scroll
            } else {
                self.pending_scroll * 0.45
            };
            self.pending_scroll -= step;
            if let Ok(anchor) = self.compositor.scroll(snapshot, &request, Pixels(step)) {
                self.scroll = anchor;
                request.scroll = anchor;
            }
        }
        let (mut frame, info) = match self.compositor.layout(snapshot, &request) {
            Ok(laid_out) => laid_out,
            Err(error) => {
                self.status = Some(error.to_string());
                return;
            }
        };
        self.scroll = info.anchor;
        let scale = viewport.scale;
        let Some(surface) = self.surface.as_mut() else {
            return;
        };
        let painted = surface
            .layers
            .update(&surface.gpu, &mut self.compositor, &mut frame, scale);
        let palette = Style::new(self.options.theme, self.options.density).palette;
        let card_rect = |node: NodeRef| {
            frame
                .cards
                .iter()
                .find(|card| card.node == node)
                .map(|card| Rect {
                    x: card.origin.x,
                    y: card.origin.y,
                    width: frame.regions.transcript.width,
                    height: card.layout.height,
                })
        };
        let mut highlights = Vec::new();
        if let Some(rect) = self.hovered.and_then(card_rect) {
            highlights.push(Highlight {
                rect,
                color: palette.text.with_alpha(14),
                outline: None,
            });
        }
        if let Some(rect) = self.focused_card.and_then(card_rect) {
            highlights.push(Highlight {
                rect,
                color: palette.accent,
                outline: Some(2.0),
            });
        }
        surface
            .gpu
            .reserve(frame.cards.len() + highlights.len() * 4 + 2);
        let items = surface
            .layers
            .draw_list(&surface.gpu, &frame, scale, &highlights);
        let background = layers::premultiplied(palette.background);
        let prepared = started.elapsed();
        if let Err(error) = surface.gpu.present(background.map(f64::from), &items) {
            self.status = Some(error);
        }
        drop(items);
        let window = surface.window.clone();
        let presented = started.elapsed();
        self.stats.frame(
            prepared,
            presented - prepared,
            painted,
            surface.layers.bytes(),
        );
        if let Some(pressed) = self.key_pressed_at.take() {
            let to_present = pressed.elapsed();
            self.stats
                .key_to_present(to_present.saturating_sub(presented - prepared), to_present);
        }
        self.shown = ShownFrame {
            cards: frame
                .cards
                .iter()
                .map(|card| {
                    (
                        card.node,
                        Rect {
                            x: card.origin.x,
                            y: card.origin.y,
                            width: frame.regions.transcript.width,
                            height: card.layout.height,
                        },
                    )
                })
                .collect(),
            hits: frame.hits,
            regions: frame.regions,
            info: Some(info),
        };
        self.update_title();
        if self.pending_scroll != 0.0 {
            window.request_redraw();
        }
    }

    fn update_title(&mut self) {
        let snapshot = self.session.snapshot();
        let awaiting = self
            .shown
            .info
            .as_ref()
            .map(|info| info.awaiting.clone())
            .unwrap_or_default();
        let mut title = format!("{} — {awaiting} — chatsurface", snapshot.title());
        if let Some(status) = &self.status {
            title = format!("{status} — {title}");
        }
        if title != self.title {
            if let Some(surface) = &self.surface {
                surface.window.set_title(&title);
            }
            self.title = title;
        }
    }

    fn transcript_height(&self) -> f32 {
        self.shown.regions.transcript.height.0.max(LINE)
    }

    /// Makes a node's card show: leaves a thread focus that hides it, scrolls to it unless it
    /// is wholly in view.
    fn reveal(&mut self, node: NodeRef) {
        let snapshot = self.session.snapshot();
        if let (Some(thread), Some(focus)) = (
            thread_of(snapshot, node),
            self.thread_focus
                .as_ref()
                .and_then(|focus| snapshot.thread_index(focus)),
        ) {
            if !snapshot.is_within(thread, focus) {
                self.thread_focus = None;
            }
        }
        let region = self.shown.regions.transcript;
        let in_view = self.shown.cards.iter().any(|(shown, rect)| {
            *shown == node && rect.y >= region.y && rect.bottom() <= region.bottom()
        });
        if !in_view {
            self.pending_scroll = 0.0;
            self.scroll = ScrollAnchor::Block {
                block: node,
                offset: Pixels(-16.0),
            };
        }
    }

    fn start_answering(&mut self, node: NodeRef) {
        if self
            .answering
            .as_ref()
            .is_some_and(|answering| answering.node() == node)
        {
            return;
        }
        self.save_draft();
        let snapshot = self.session.snapshot();
        self.answering = Answering::open(snapshot, node, self.editor_fonts.font_system());
        if self.answering.is_some() {
            self.focused_card = Some(node);
            self.reveal(node);
        }
    }

    fn next_open_question(&mut self) {
        let snapshot = self.session.snapshot();
        let open: Vec<NodeRef> = snapshot
            .timeline
            .iter()
            .map(|entry| entry.node)
            .filter(|node| snapshot.is_open_question(*node))
            .collect();
        if open.is_empty() {
            self.status = Some("no open questions".to_owned());
            return;
        }
        let current = self.answering.as_ref().map(Answering::node);
        let next = current
            .and_then(|node| open.iter().position(|candidate| *candidate == node))
            .map_or(open[0], |at| open[(at + 1) % open.len()]);
        self.start_answering(next);
    }

    fn move_card(&mut self, forward: bool) {
        let cards = &self.shown.cards;
        if cards.is_empty() {
            return;
        }
        let region = self.shown.regions.transcript;
        let position = self
            .focused_card
            .and_then(|node| cards.iter().position(|(shown, _)| *shown == node));
        let target = match (position, forward) {
            (None, true) => cards.iter().position(|(_, rect)| rect.y >= region.y),
            (None, false) => cards
                .iter()
                .rposition(|(_, rect)| rect.bottom() <= region.bottom()),
            (Some(at), true) => Some(at + 1).filter(|next| *next < cards.len()),
            (Some(at), false) => at.checked_sub(1),
        };
        match target {
            Some(index) => {
                let (node, rect) = cards[index];
                self.focused_card = Some(node);
                if rect.bottom() > region.bottom() {
                    self.pending_scroll +=
                        (rect.bottom() - region.bottom()).0.min(region.height.0) + 8.0;
                } else if rect.y < region.y {
                    self.pending_scroll -= (region.y - rect.y).0.min(region.height.0) + 8.0;
                }
            }
            None => self.pending_scroll += if forward { LINE } else { -LINE },
        }
    }

    fn append(&mut self, bodies: Vec<EventBody>) -> bool {
        match self.session.append(bodies) {
            Ok(()) => true,
            Err(error) => {
                eprintln!("error: {error}");
                self.status = Some(format!("not saved: {error}"));
                false
            }
        }
    }

    fn save_draft(&mut self) {
        self.draft_due = None;
        let snapshot = self.session.snapshot();
        let Some(draft) = self
            .answering
            .as_mut()
            .and_then(|answering| answering.take_draft(snapshot))
        else {
            return;
        };
        self.append(vec![draft]);
    }

    fn after_answer_change(&mut self) {
        if self
            .answering
            .as_ref()
            .is_some_and(Answering::has_unsaved_draft)
        {
            self.draft_due = Some(Instant::now() + DRAFT_DEBOUNCE);
        }
    }

    fn key_context(&self) -> KeyContext {
        match &self.answering {
            Some(answering) => answering.context(self.session.snapshot()),
            None => KeyContext::Browsing,
        }
    }

    fn key(&mut self, press: KeyPress, event_loop: &ActiveEventLoop) {
        if press.modifiers.ctrl && press.key == Key::Character("q".to_owned()) {
            self.stop_answering();
            event_loop.exit();
            return;
        }
        self.key_pressed_at = Some(Instant::now());
        if let Some(command) = command_for(&press, self.key_context()) {
            self.status = None;
            self.command(command);
            self.redraw_soon();
        }
    }

    fn command(&mut self, command: Command) {
        let fonts = self.editor_fonts.font_system();
        let snapshot = self.session.snapshot();
        match command {
            Command::ScrollPages(pages) => {
                self.pending_scroll += pages * self.transcript_height() * 0.9;
            }
            Command::Top => {
                self.pending_scroll = 0.0;
                if let Some(first) = self.shown.info.as_ref().and_then(|info| info.first_block) {
                    self.scroll = ScrollAnchor::Block {
                        block: first,
                        offset: Pixels::ZERO,
                    };
                }
            }
            Command::Bottom => {
                self.pending_scroll = 0.0;
                self.scroll = ScrollAnchor::Bottom;
            }
            Command::NextCard => self.move_card(true),
            Command::PreviousCard => self.move_card(false),
            Command::DrillIn => {
                let Some(node) = self.focused_card else {
                    return;
                };
                if snapshot.is_open_question(node) {
                    self.start_answering(node);
                } else if let Some(thread) = thread_of(snapshot, node) {
                    self.thread_focus = Some(snapshot.threads[thread].spec.id.clone());
                    self.scroll = ScrollAnchor::Bottom;
                }
            }
            Command::Back => {
                if self.answering.is_some() {
                    self.stop_answering();
                } else if let Some(focus) = self.thread_focus.take() {
                    self.thread_focus = snapshot
                        .thread_index(&focus)
                        .and_then(|index| snapshot.parent_of(index))
                        .map(|parent| snapshot.threads[parent].spec.id.clone());
                    self.scroll = ScrollAnchor::Bottom;
                }
            }
            Command::NextOpenQuestion => self.next_open_question(),
            Command::NextItem | Command::PreviousItem => {
                if let Some(answering) = &mut self.answering {
                    answering.step(snapshot, command == Command::NextItem, fonts);
                }
            }
            Command::Pick(number) => {
                if let Some(answering) = &mut self.answering {
                    answering.pick(snapshot, number);
                }
            }
            Command::YesNo(yes) => {
                if let Some(answering) = &mut self.answering {
                    answering.yes_no(snapshot, yes);
                }
            }
            Command::Skip => {
                if let Some(answering) = &mut self.answering {
                    answering.skip(snapshot, fonts);
                }
            }
            Command::EditField => {
                if let Some(answering) = &mut self.answering {
                    answering.edit_custom(snapshot, fonts);
                }
            }
            Command::TypeInto(text) => {
                if let Some(answering) = &mut self.answering {
                    if answering.edit_custom(snapshot, fonts) {
                        answering.edit(
                            snapshot,
                            EditCommand::Insert(text),
                            fonts,
                            self.clipboard.as_mut(),
                        );
                    }
                }
            }
            Command::Edit(edit) => {
                if let Some(answering) = &mut self.answering {
                    answering.edit(snapshot, edit, fonts, self.clipboard.as_mut());
                }
            }
            Command::Submit => self.submit(true),
            Command::Decline => self.submit(false),
            Command::OpenAttachment => {
                let node = self.answering.as_ref().map(Answering::node);
                if let Some(node) = node.or(self.focused_card) {
                    self.open_attachment(node);
                }
            }
            Command::Leave => {
                if let Some(answering) = &mut self.answering {
                    if !answering.leave_field() {
                        self.stop_answering();
                    }
                }
            }
        }
        self.after_answer_change();
    }

    /// Opens the attachment of a question, saying in the status line what happened.
    fn open_attachment(&mut self, node: NodeRef) {
        self.status = Some(match self.session.snapshot().attachment(node) {
            Some(path) => opener::open_attachment(path).unwrap_or_else(|error| error),
            None => "this card has no attachment".to_owned(),
        });
    }

    fn stop_answering(&mut self) {
        self.save_draft();
        self.answering = None;
    }

    fn submit(&mut self, accept: bool) {
        let snapshot = self.session.snapshot();
        let Some(answering) = &self.answering else {
            return;
        };
        let event = if accept {
            answering.submission(snapshot)
        } else {
            answering
                .decline(snapshot)
                .ok_or_else(|| "only a confirmation can be declined".to_owned())
        };
        match event {
            Ok(event) => {
                if self.append(vec![event]) {
                    self.answering = None;
                    self.draft_due = None;
                    self.status = Some(if accept { "sent" } else { "declined" }.to_owned());
                }
            }
            Err(reason) => self.status = Some(format!("cannot send: {reason}")),
        }
    }

    fn click(&mut self, x: f32, y: f32) {
        let target = self
            .shown
            .hits
            .iter()
            .find(|(rect, _)| rect.contains_xy(x, y))
            .map(|(_, target)| *target);
        let snapshot = self.session.snapshot();
        match target {
            Some(HitTarget::OverviewThread(thread)) => {
                self.thread_focus = snapshot
                    .threads
                    .get(thread)
                    .map(|node| node.spec.id.clone());
                self.scroll = ScrollAnchor::Bottom;
            }
            Some(HitTarget::Block(node)) => {
                self.focused_card = Some(node);
                if snapshot.is_open_question(node) {
                    self.start_answering(node);
                }
            }
            Some(HitTarget::Answer {
                node,
                hit: CardHit::Attachment,
            }) => {
                self.focused_card = Some(node);
                self.open_attachment(node);
            }
            Some(HitTarget::Answer { node, hit }) => {
                self.focused_card = Some(node);
                self.start_answering(node);
                let fonts = self.editor_fonts.font_system();
                let snapshot = self.session.snapshot();
                let Some(answering) = &mut self.answering else {
                    return;
                };
                match hit {
                    CardHit::Item(item) => {
                        answering.focus_part(snapshot, Some(AnswerField::Item(item)), fonts)
                    }
                    CardHit::Choice { item, option } => {
                        answering.focus_part(snapshot, Some(AnswerField::Item(item)), fonts);
                        answering.pick(snapshot, option + 1);
                    }
                    CardHit::YesNo { item, yes } => {
                        answering.focus_part(snapshot, Some(AnswerField::Item(item)), fonts);
                        answering.yes_no(snapshot, yes);
                    }
                    CardHit::Field(field) => {
                        answering.focus_part(snapshot, Some(field), fonts);
                        if let AnswerField::Item(_) = field {
                            if !answering.is_typing() {
                                answering.edit_custom(snapshot, fonts);
                            }
                        }
                    }
                    CardHit::Accept => self.submit(true),
                    CardHit::Decline => self.submit(false),
                    CardHit::Attachment => {}
                }
            }
            None => {}
        }
        self.after_answer_change();
        self.redraw_soon();
    }

    fn hover(&mut self, x: f32, y: f32) {
        let hovered = self
            .shown
            .cards
            .iter()
            .find(|(_, rect)| rect.contains_xy(x, y))
            .map(|(node, _)| *node);
        if hovered != self.hovered {
            self.hovered = hovered;
            self.redraw_soon();
        }
    }

    fn follow(&mut self) {
        match self.session.follow() {
            Ok(true) => self.redraw_soon(),
            Ok(false) => {}
            Err(error) => self.status = Some(error),
        }
    }

    /// Moves to the store's most recently written session, if it is another one and the human
    /// is not answering.
    fn follow_store(&mut self) {
        let Some(data) = &self.options.follow_store else {
            return;
        };
        if self.answering.is_some() {
            return;
        }
        let Some(newest) = session::newest_session(data) else {
            return;
        };
        if newest == self.session.path() {
            return;
        }
        match SessionLog::open(&newest) {
            Ok(session) => {
                self.session = session;
                self.thread_focus = None;
                self.scroll = ScrollAnchor::Bottom;
                self.pending_scroll = 0.0;
                self.focused_card = None;
                self.hovered = None;
                self.expanded.clear();
                self.redraw_soon();
            }
            Err(error) => self.status = Some(error.to_string()),
        }
    }

    fn bench_step(&mut self, event_loop: &ActiveEventLoop) {
        let Some(frames) = self.options.bench_frames else {
            return;
        };
        if self.stats.scrolled_frames() < frames {
            // A steady scroll toward older content, a few pixels a frame, as a trackpad does.
            let delta = -3.0;
            self.pending_scroll = delta;
            self.stats.start_scrolled_frame();
            self.redraw_soon();
            return;
        }
        if self.stats.key_presses() == 0 && self.answering.is_none() {
            self.scroll = ScrollAnchor::Bottom;
            self.next_open_question();
            if let Some(answering) = &mut self.answering {
                let snapshot = self.session.snapshot();
                let fonts = self.editor_fonts.font_system();
                let parts = snapshot
                    .batches
                    .get(match answering.node() {
                        NodeRef::Batch(index) => index,
                        _ => usize::MAX,
                    })
                    .map_or(0, |batch| batch.spec.items.len());
                for _ in 0..parts {
                    if answering.is_typing() {
                        break;
                    }
                    answering.step(snapshot, true, fonts);
                }
            }
        }
        if self.stats.key_presses() < 100
            && self.answering.as_ref().is_some_and(Answering::is_typing)
        {
            self.stats.start_key_press();
            self.key(
                KeyPress {
                    key: Key::Character("x".to_owned()),
                    modifiers: Modifiers::default(),
                },
                event_loop,
            );
            return;
        }
        if let Some(path) = &self.options.stats {
            let size = self
                .surface
                .as_ref()
                .map(|surface| surface.gpu.size())
                .unwrap_or_default();
            let adapter = self
                .surface
                .as_ref()
                .map(|surface| surface.gpu.adapter.clone())
                .unwrap_or_default();
            if let Err(error) = self.stats.write(path, size, &adapter) {
                self.failure = Some(error);
            }
        }
        self.stop_answering();
        event_loop.exit();
    }
}

fn thread_of(snapshot: &Snapshot, node: NodeRef) -> Option<usize> {
    match node {
        NodeRef::Thread(index) => Some(index),
        _ => snapshot
            .timeline
            .iter()
            .find(|entry| entry.node == node)
            .map(|entry| entry.thread),
    }
}

fn translate_key(event: &KeyEvent, modifiers: ModifiersState) -> Option<KeyPress> {
    let key = match &event.logical_key {
        WinitKey::Named(named) => match named {
            NamedKey::Enter => Key::Enter,
            NamedKey::Tab => Key::Tab,
            NamedKey::Backspace => Key::Backspace,
            NamedKey::Delete => Key::Delete,
            NamedKey::Escape => Key::Escape,
            NamedKey::ArrowLeft => Key::Left,
            NamedKey::ArrowRight => Key::Right,
            NamedKey::ArrowUp => Key::Up,
            NamedKey::ArrowDown => Key::Down,
            NamedKey::Home => Key::Home,
            NamedKey::End => Key::End,
            NamedKey::PageUp => Key::PageUp,
            NamedKey::PageDown => Key::PageDown,
            NamedKey::Space => Key::Space,
            _ => return None,
        },
        WinitKey::Character(text) => Key::Character(text.to_string()),
        _ => return None,
    };
    Some(KeyPress {
        key,
        modifiers: Modifiers {
            ctrl: modifiers.control_key() || modifiers.super_key(),
            shift: modifiers.shift_key(),
            alt: modifiers.alt_key(),
        },
    })
}

impl ApplicationHandler for WindowApp {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.surface.is_some() {
            return;
        }
        let (width, height) = self.options.size;
        let attributes = Window::default_attributes()
            .with_title(format!("{} — chatsurface", self.session.snapshot().title()))
            .with_inner_size(LogicalSize::new(width, height))
            .with_min_inner_size(LogicalSize::new(VIEWPORT_RANGE.0, VIEWPORT_RANGE.0));
        let window = match event_loop.create_window(attributes) {
            Ok(window) => Arc::new(window),
            Err(error) => {
                self.failure = Some(AppError::Unavailable(format!(
                    "cannot open a window: {error}"
                )));
                event_loop.exit();
                return;
            }
        };
        window.set_ime_allowed(true);
        match gpu::Gpu::new(window.clone()) {
            Ok(gpu) => {
                if self.options.bench_frames.is_some() {
                    eprintln!("GPU: {}", gpu.adapter);
                }
                self.surface = Some(Surface {
                    window: window.clone(),
                    gpu,
                    layers: RetainedLayers::default(),
                });
                window.request_redraw();
            }
            Err(error) => {
                self.failure = Some(AppError::Unavailable(error));
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => {
                self.stop_answering();
                event_loop.exit();
            }
            WindowEvent::Resized(size) => {
                if let Some(surface) = &mut self.surface {
                    surface.gpu.resize(size.width, size.height);
                    surface.window.request_redraw();
                }
            }
            WindowEvent::ScaleFactorChanged { .. } => self.redraw_soon(),
            WindowEvent::RedrawRequested => {
                self.redraw();
                self.bench_step(event_loop);
            }
            WindowEvent::ModifiersChanged(modifiers) => self.modifiers = modifiers.state(),
            WindowEvent::KeyboardInput { event, .. } if event.state == ElementState::Pressed => {
                if let Some(press) = translate_key(&event, self.modifiers) {
                    self.key(press, event_loop);
                }
            }
            WindowEvent::Ime(ime) => match ime {
                Ime::Preedit(text, _) => {
                    self.preedit_active = !text.is_empty();
                    if let Some(answering) = &mut self.answering {
                        answering.set_preedit(Some(text));
                        self.redraw_soon();
                    }
                }
                // Without composition, typed text already arrived as key presses.
                Ime::Commit(text) if self.preedit_active => {
                    self.preedit_active = false;
                    self.command(Command::Edit(EditCommand::Insert(text)));
                    self.redraw_soon();
                }
                _ => {}
            },
            WindowEvent::MouseWheel { delta, .. } => {
                let pixels = match delta {
                    MouseScrollDelta::LineDelta(_, lines) => -lines * LINE,
                    MouseScrollDelta::PixelDelta(position) => {
                        let scale = self
                            .surface
                            .as_ref()
                            .map_or(1.0, |surface| surface.window.scale_factor());
                        -(position.y / scale) as f32
                    }
                };
                self.pending_scroll += pixels;
                self.redraw_soon();
            }
            WindowEvent::CursorMoved { position, .. } => {
                let scale = self
                    .surface
                    .as_ref()
                    .map_or(1.0, |surface| surface.window.scale_factor());
                let (x, y) = (position.x / scale, position.y / scale);
                self.cursor = Some((x, y));
                self.hover(x as f32, y as f32);
            }
            WindowEvent::CursorLeft { .. } => {
                self.cursor = None;
                self.hovered = None;
                self.redraw_soon();
            }
            WindowEvent::MouseInput {
                state: ElementState::Pressed,
                button: MouseButton::Left,
                ..
            } => {
                if let Some((x, y)) = self.cursor {
                    self.click(x as f32, y as f32);
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        let now = Instant::now();
        if now >= self.next_store_look {
            self.follow_store();
            self.next_store_look = now + STORE_INTERVAL;
        }
        if now >= self.next_follow {
            self.follow();
            self.next_follow = now + FOLLOW_INTERVAL;
        }
        if self.draft_due.is_some_and(|due| now >= due) {
            self.save_draft();
        }
        let wake = self
            .draft_due
            .map_or(self.next_follow, |due| due.min(self.next_follow));
        event_loop.set_control_flow(ControlFlow::WaitUntil(wake));
    }
}
