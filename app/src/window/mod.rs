//! The native window: `chatsurface open LOG` (and `chatsurface` with no arguments).
//!
//! winit delivers input; the keymap turns keys into commands; the answer state and the view
//! state (scroll, focus, the thread drilled into) change; the compositor lays out a frame from
//! the session's snapshot and that state; retained layers repaint only what changed; wgpu
//! composites and presents, vsynced. The session log is followed as it grows, and the human's
//! drafts and answers are appended to it. The window only uses the compositor's public
//! pipeline; it never reaches into its stages.

mod answer;
mod desk;
mod editor;
mod gpu;
mod inbox;
mod keymap;
mod layers;
mod map;
mod notify;
mod opener;
mod search;
mod session;
mod shelf;
mod stats;
mod stop;
mod switcher;

use crate::error::AppError;
use answer::Answering;
use chatsurface_compositor::FontSet;
use chatsurface_compositor::{px, ScaleFactor};
use chatsurface_compositor::{Density, Style, Theme};
use chatsurface_compositor::{Viewport, VIEWPORT_RANGE};
use desk::{Desk, LINE};
use editor::{Clipboard, EditCommand, MemoryClipboard};
use keymap::{command_for, Command, Key, KeyPress, Modifiers};
use layers::{Highlight, RetainedLayers};
use session::SessionLog;
use stats::FrameStats;
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
/// How often the logs are checked for events others appended (and the store for new ones).
const FOLLOW_INTERVAL: Duration = Duration::from_millis(150);
/// How often a countdown on screen is redrawn.
const COUNTDOWN_TICK: Duration = Duration::from_secs(1);
/// How much one notch of Ctrl+wheel zooms the branch map.
const MAP_WHEEL_ZOOM: f32 = 1.15;

/// What `chatsurface open` was asked for.
#[derive(Clone, Debug)]
pub struct WindowOptions {
    /// The session log, or an agent's transcript.
    pub log: PathBuf,
    /// The file's format (detected from its content when `None`).
    pub format: Option<crate::agents::Format>,
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
    /// Whether a question new in another session raises a desktop notification.
    pub notify: bool,
}

/// Opens the window and runs until it is closed.
pub fn run(options: WindowOptions) -> Result<(), AppError> {
    let session = SessionLog::open_as(&options.log, options.format)?;
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

struct Surface {
    window: Arc<Window>,
    gpu: gpu::Gpu,
    layers: RetainedLayers,
}

struct WindowApp {
    options: WindowOptions,
    /// Raised by SIGINT or SIGTERM: close as Ctrl+Q does.
    stop: stop::StopFlag,
    desk: Desk,
    surface: Option<Surface>,
    draft_due: Option<Instant>,
    preedit_active: bool,
    modifiers: ModifiersState,
    cursor: Option<(f64, f64)>,
    title: String,
    next_look: Instant,
    next_tick: Instant,
    /// The desk's session switches the retained layers were painted for.
    switches_painted: u64,
    key_pressed_at: Option<Instant>,
    stats: FrameStats,
    failure: Option<AppError>,
    /// Delivers the desk's notices, unless `--no-notify`.
    notifier: Option<notify::Notifier>,
}

impl WindowApp {
    fn new(options: WindowOptions, session: SessionLog) -> WindowApp {
        let desk = Desk::new(
            session,
            options.follow_store.clone(),
            (options.theme, options.density),
            system_clipboard(),
            FontSet::BundledWithSystemFallback,
        );
        WindowApp {
            stop: stop::on_signals(),
            desk,
            surface: None,
            draft_due: None,
            preedit_active: false,
            modifiers: ModifiersState::empty(),
            cursor: None,
            title: String::new(),
            next_look: Instant::now(),
            next_tick: Instant::now(),
            switches_painted: 0,
            key_pressed_at: None,
            stats: FrameStats::default(),
            failure: None,
            notifier: (options.notify && options.bench_frames.is_none())
                .then(notify::Notifier::start),
            options,
        }
    }

    fn redraw_soon(&self) {
        if let Some(surface) = &self.surface {
            surface.window.request_redraw();
        }
    }

    fn viewport(window: &Window) -> Viewport {
        let scale = window.scale_factor() as f32;
        let size = window.inner_size();
        let (min, max) = VIEWPORT_RANGE;
        let side = |device: u32| px((device as f32 / scale).clamp(min, max));
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
        let Some((mut frame, _info)) = self.desk.lay_out(viewport) else {
            return;
        };
        let scale = viewport.scale;
        let Some(surface) = self.surface.as_mut() else {
            return;
        };
        if self.switches_painted != self.desk.switches {
            // Another session: nothing painted for the last one is kept.
            surface.layers = RetainedLayers::default();
            self.switches_painted = self.desk.switches;
        }
        let painted =
            surface
                .layers
                .update(&surface.gpu, self.desk.compositor(), &mut frame, scale);
        let palette = Style::new(self.options.theme, self.options.density).palette;
        let mut highlights = Vec::new();
        // A panel lies over the cards: their highlights would be drawn over it.
        let cards_highlighted = !self.desk.overlay_open();
        if let Some(rect) = self
            .desk
            .hovered
            .filter(|_| cards_highlighted)
            .and_then(|node| frame.card_rect(node))
        {
            highlights.push(Highlight {
                rect,
                color: palette.text.with_alpha(14),
                outline: None,
            });
        }
        // Every search match on screen is ringed; the current one is the focused card.
        if let Some(search) = self.desk.search().filter(|_| cards_highlighted) {
            for card in frame.cards.iter().filter(|card| search.matches(card.node)) {
                if let Some(rect) = frame.card_rect(card.node) {
                    highlights.push(Highlight {
                        rect,
                        color: palette.question.with_alpha(170),
                        outline: Some(1.5),
                    });
                }
            }
        }
        if let Some(rect) = self
            .desk
            .focused_card
            .filter(|_| cards_highlighted)
            .and_then(|node| frame.card_rect(node))
        {
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
            self.desk.say(error);
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
        self.update_title();
        if self.desk.pending_scroll != 0.0 {
            window.request_redraw();
        }
    }

    fn update_title(&mut self) {
        let awaiting = self
            .desk
            .shown
            .info
            .as_ref()
            .map(|info| info.awaiting.clone())
            .unwrap_or_default();
        let mut title = format!(
            "{} — {awaiting} — chatsurface",
            self.desk.snapshot().title()
        );
        if let Some(status) = &self.desk.status {
            title = format!("{} — {title}", status.text);
        }
        if title != self.title {
            if let Some(surface) = &self.surface {
                surface.window.set_title(&title);
            }
            self.title = title;
        }
    }

    fn key(&mut self, press: KeyPress, event_loop: &ActiveEventLoop) {
        if press.modifiers.ctrl && press.key == Key::Character("q".to_owned()) {
            self.desk.stop_answering();
            event_loop.exit();
            return;
        }
        self.key_pressed_at = Some(Instant::now());
        if let Some(command) = command_for(&press, self.desk.key_context()) {
            self.desk.status = None;
            self.command(command);
        }
    }

    fn command(&mut self, command: Command) {
        self.desk.command(command);
        self.after_answer_change();
        self.redraw_soon();
    }

    fn after_answer_change(&mut self) {
        if self.desk.has_unsaved_draft() {
            self.draft_due = Some(Instant::now() + DRAFT_DEBOUNCE);
        } else if self.desk.answering().is_none() {
            self.draft_due = None;
        }
    }

    fn save_draft(&mut self) {
        self.draft_due = None;
        self.desk.save_draft();
    }

    fn bench_step(&mut self, event_loop: &ActiveEventLoop) {
        let Some(frames) = self.options.bench_frames else {
            return;
        };
        if self.stats.scrolled_frames() < frames {
            // A steady scroll toward older content, a few pixels a frame, as a trackpad does.
            self.desk.pending_scroll = -3.0;
            self.stats.start_scrolled_frame();
            self.redraw_soon();
            return;
        }
        if self.stats.key_presses() == 0 && self.desk.answering().is_none() {
            self.desk.bench_focus_first_text_field();
        }
        if self.stats.key_presses() < 100 && self.desk.answering().is_some_and(Answering::is_typing)
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
        self.desk.stop_answering();
        event_loop.exit();
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
            .with_title(format!("{} — chatsurface", self.desk.snapshot().title()))
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
                    tracing::info!("GPU: {}", gpu.adapter);
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
                self.desk.stop_answering();
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
                    if self.desk.set_preedit(Some(text)) {
                        self.redraw_soon();
                    }
                }
                // Without composition, typed text already arrived as key presses.
                Ime::Commit(text) if self.preedit_active => {
                    self.preedit_active = false;
                    self.command(Command::Edit(EditCommand::Insert(text)));
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
                let ctrl = self.modifiers.control_key() || self.modifiers.super_key();
                let cursor = self.cursor.map(|(x, y)| (x as f32, y as f32));
                match self.desk.map_mut() {
                    // Ctrl+wheel zooms about the pointer; a plain wheel moves the map.
                    Some(map) if ctrl => map.zoom(MAP_WHEEL_ZOOM.powf(-pixels / LINE), cursor),
                    Some(map) => map.pan(0.0, -pixels),
                    None => self.desk.pending_scroll += pixels,
                }
                self.redraw_soon();
            }
            WindowEvent::CursorMoved { position, .. } => {
                let scale = self
                    .surface
                    .as_ref()
                    .map_or(1.0, |surface| surface.window.scale_factor());
                let (x, y) = (position.x / scale, position.y / scale);
                self.cursor = Some((x, y));
                let dragged = self
                    .desk
                    .map_mut()
                    .is_some_and(|map| map.pointer_moved(x as f32, y as f32));
                if dragged || self.desk.hover(x as f32, y as f32) {
                    self.redraw_soon();
                }
            }
            WindowEvent::CursorLeft { .. } => {
                self.cursor = None;
                self.desk.hovered = None;
                self.redraw_soon();
            }
            WindowEvent::MouseInput {
                state: ElementState::Pressed,
                button: MouseButton::Left,
                ..
            } => {
                if let Some((x, y)) = self.cursor {
                    // On the map a press may start a drag: it is a click only if released
                    // where it began.
                    if let Some(map) = self.desk.map_mut() {
                        map.press(x as f32, y as f32);
                        return;
                    }
                    self.desk.click(x as f32, y as f32);
                    self.after_answer_change();
                    self.redraw_soon();
                }
            }
            WindowEvent::MouseInput {
                state: ElementState::Released,
                button: MouseButton::Left,
                ..
            } => {
                let Some((x, y)) = self.cursor else {
                    return;
                };
                let (x, y) = (x as f32, y as f32);
                if self.desk.map_mut().is_some_and(|map| map.release(x, y)) {
                    self.desk.click(x, y);
                    self.redraw_soon();
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if self.stop.is_raised() {
            self.desk.stop_answering();
            event_loop.exit();
            return;
        }
        let now = Instant::now();
        if now >= self.next_look {
            if self.desk.look() {
                self.redraw_soon();
            }
            for notice in self.desk.notices.drain(..) {
                if let Some(notifier) = &self.notifier {
                    notifier.send(notice);
                }
            }
            self.next_look = now + FOLLOW_INTERVAL;
        }
        if self.draft_due.is_some_and(|due| now >= due) {
            self.save_draft();
        }
        if now >= self.next_tick {
            // A countdown on screen moves once a second.
            if self.desk.counting_down() {
                self.redraw_soon();
            }
            self.next_tick = now + COUNTDOWN_TICK;
        }
        let wake = self
            .draft_due
            .map_or(self.next_look, |due| due.min(self.next_look))
            .min(self.next_tick);
        event_loop.set_control_flow(ControlFlow::WaitUntil(wake));
    }
}
