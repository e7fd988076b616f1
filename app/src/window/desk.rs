//! The window's state without the window: which session is shown, the view of it (scroll,
//! focus, the thread drilled into, what is unfolded), the question being answered, and what
//! the last frame showed, with every rule for changing them.
//!
//! Input arrives here as keymap [`Command`]s and pointer positions; frames are laid out here
//! through the compositor's public API; answers and drafts are appended here. No winit, no
//! GPU: the whole desk runs in tests without a display, which is how the rule that matters
//! most is checked: **an answer is written only for the question the human had on screen, in
//! the session it belongs to.** A frame remembers the snapshot history it was laid out from;
//! a click on a frame of another history does nothing, and an answer is written only while
//! its question is open in the shown session and its card was in the last frame.

use super::answer::Answering;
use super::editor::{Clipboard, EditCommand};
use super::inbox::{self, Inbox};
use super::keymap::{Command, InboxCommand, KeyContext, MapCommand, OverviewCommand};
use super::keymap::{SearchCommand, SwitcherCommand};
use super::map::BranchMap;
use super::notify::{Announcer, DesktopNotice};
use super::opener;
use super::search::Search;
use super::session::{is_demo, SessionLog};
use super::shelf::{Shelf, WaitingQuestion};
use super::switcher::{Scanner, Switcher};
use crate::agents::catalog::Folders;
use chatsurface_compositor::{px, Pixels, Rect};
use chatsurface_compositor::{AnswerField, CardHit};
use chatsurface_compositor::{ChatSurfaceCompositor, FrameInfo};
use chatsurface_compositor::{Density, Theme};
use chatsurface_compositor::{FontSet, TextSystem};
use chatsurface_compositor::{FrameLayout, FrameRegions, HitTarget};
use chatsurface_compositor::{IntentRequest, Notice, ScrollAnchor, Viewport};
use chatsurface_compositor::{Overlay, Presentation};
use chatsurface_model::{EventBody, History, NodeRef, Snapshot, ThreadId};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// Logical pixels one wheel notch or arrow line scrolls.
pub(super) const LINE: f32 = 48.0;
/// Room kept at the transcript's bottom edge for the "more below" pill when a focused part is
/// scrolled into view.
const PILL_ROOM: f32 = 40.0;

/// What the last frame showed, for hit tests and keyboard navigation.
#[derive(Debug, Default)]
pub(super) struct ShownFrame {
    /// The snapshot history the frame was laid out from; `None` before the first frame.
    pub history: Option<History>,
    /// What the pointer can hit, in frame coordinates.
    pub hits: Vec<(Rect, HitTarget)>,
    /// The transcript's cards and where they were.
    pub cards: Vec<(NodeRef, Rect)>,
    /// The cards shown folded or as a one-line summary, which Enter or a click unfolds.
    pub folded: BTreeSet<NodeRef>,
    /// The frame's regions.
    pub regions: FrameRegions,
    /// What the compositor said of the frame.
    pub info: Option<FrameInfo>,
}

/// Notes when each open confirmation first came into a frame (its `cards`), forgetting the
/// closed ones.
fn note_confirmations_shown(
    shown_at: &mut BTreeMap<NodeRef, Instant>,
    cards: &[(NodeRef, Rect)],
    snapshot: &Snapshot,
) {
    let now = Instant::now();
    shown_at.retain(|node, _| snapshot.is_open_question(*node));
    for (node, _) in cards {
        if matches!(node, NodeRef::Confirmation(_)) && snapshot.is_open_question(*node) {
            shown_at.entry(*node).or_insert(now);
        }
    }
}

/// What a status line says and how loudly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Status {
    /// One line.
    pub text: String,
    /// Whether it reports a failure to save (drawn as an alarm).
    pub alarm: bool,
}

impl Status {
    fn info(text: impl Into<String>) -> Status {
        Status {
            text: text.into(),
            alarm: false,
        }
    }

    fn alarm(text: impl Into<String>) -> Status {
        Status {
            text: text.into(),
            alarm: true,
        }
    }
}

/// What sending does with the question being answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Send {
    /// Submit the batch, or accept the confirmation.
    Answer,
    /// Decline the confirmation.
    Decline,
    /// Accept the confirmation for good.
    AcceptAlways,
    /// Send every item of the batch as skipped.
    SkipAll,
}

/// The window's state: sessions, view, answer, last frame.
pub(super) struct Desk {
    shelf: Shelf,
    compositor: ChatSurfaceCompositor,
    editor_fonts: TextSystem,
    clipboard: Box<dyn Clipboard>,
    theme: Theme,
    density: Density,
    /// The thread drilled into.
    pub thread_focus: Option<ThreadId>,
    /// Where the transcript is scrolled.
    pub scroll: ScrollAnchor,
    /// Scrolling still to be done, spread over the next frames.
    pub pending_scroll: f32,
    expanded: BTreeSet<NodeRef>,
    /// The card with the keyboard focus.
    pub focused_card: Option<NodeRef>,
    /// The card under the pointer.
    pub hovered: Option<NodeRef>,
    answering: Option<Answering>,
    /// The last frame laid out.
    pub shown: ShownFrame,
    /// The last word to the human.
    pub status: Option<Status>,
    /// Counts session switches, so the window knows to drop its retained layers.
    pub switches: u64,
    switched_at: Option<Instant>,
    /// The answer part last scrolled into view, so a part is brought into view once when it
    /// gets the focus and the human may scroll away from it after.
    part_in_view: Option<(NodeRef, AnswerField)>,
    /// How long after a session switch clicks are ignored: a click aimed at the last
    /// session's button must not land on the new one's.
    pub click_grace: Duration,
    /// When each open confirmation of the shown session was first in a frame.
    confirmation_shown_at: BTreeMap<NodeRef, Instant>,
    /// How long a confirmation must have been on screen before it can be accepted.
    pub accept_grace: Duration,
    /// The session switcher, while it is open.
    switcher: Option<Switcher>,
    /// What reads the switcher's list, started the first time it opens.
    scanner: Option<Scanner>,
    /// Where the switcher looks for sessions.
    pub folders: Folders,
    /// The questions inbox, while it is open.
    inbox: Option<Inbox>,
    /// The branch map, while it is open.
    map: Option<BranchMap>,
    /// The search bar, while it is open.
    search: Option<Search>,
    /// The overview row the keyboard is on, by its place from the top, while the overview
    /// has the keyboard.
    overview_cursor: Option<usize>,
    /// The overview row under the pointer, by its place from the top.
    overview_hover: Option<usize>,
    /// What of the waiting questions was news.
    announcer: Announcer,
    /// Notifications of questions new in other sessions, for the window to deliver.
    pub notices: Vec<DesktopNotice>,
    /// Whether the store's logs were looked at once.
    looked: bool,
}

/// How far below the transcript's top a search match is scrolled to: below the search bar.
const SEARCH_BAR_ROOM: f32 = 60.0;

/// The default [`Desk::click_grace`]: longer than a human takes to notice a change and stop
/// a click already on its way.
pub(super) const CLICK_GRACE: Duration = Duration::from_millis(600);

/// The default [`Desk::accept_grace`]. A confirmation that appears while the human is typing
/// or clicking elsewhere must not be approved by the momentum of that: a Ctrl+Enter or a click
/// meant for what was there before lands in this half second and is refused.
pub(super) const ACCEPT_GRACE: Duration = Duration::from_millis(500);

impl std::fmt::Debug for Desk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Desk")
            .field("shown", &self.session().path())
            .field("answering", &self.answering)
            .finish_non_exhaustive()
    }
}

impl Desk {
    /// A desk showing `log`; with `store`, it follows every session of that data directory.
    pub(super) fn new(
        log: SessionLog,
        store: Option<PathBuf>,
        look: (Theme, Density),
        clipboard: Box<dyn Clipboard>,
        fonts: FontSet,
    ) -> Desk {
        Desk {
            shelf: Shelf::new(log, store),
            compositor: ChatSurfaceCompositor::new(fonts),
            editor_fonts: TextSystem::new(FontSet::BundledOnly),
            clipboard,
            theme: look.0,
            density: look.1,
            thread_focus: None,
            scroll: ScrollAnchor::Bottom,
            pending_scroll: 0.0,
            expanded: BTreeSet::new(),
            focused_card: None,
            hovered: None,
            answering: None,
            shown: ShownFrame::default(),
            status: None,
            switches: 0,
            switched_at: None,
            part_in_view: None,
            click_grace: CLICK_GRACE,
            confirmation_shown_at: BTreeMap::new(),
            accept_grace: ACCEPT_GRACE,
            switcher: None,
            scanner: None,
            folders: Folders::of_this_machine(),
            inbox: None,
            map: None,
            search: None,
            overview_cursor: None,
            overview_hover: None,
            announcer: Announcer::default(),
            notices: Vec::new(),
            looked: false,
        }
    }

    /// The session shown.
    pub(super) fn session(&self) -> &SessionLog {
        self.shelf.shown()
    }

    /// The snapshot of the session shown.
    pub(super) fn snapshot(&self) -> &Snapshot {
        self.session().snapshot()
    }

    /// The compositor, for painting what [`Desk::lay_out`] laid out.
    pub(super) fn compositor(&mut self) -> &mut ChatSurfaceCompositor {
        &mut self.compositor
    }

    /// The question being answered.
    pub(super) fn answering(&self) -> Option<&Answering> {
        self.answering.as_ref()
    }

    /// Sets the status line.
    pub(super) fn say(&mut self, text: impl Into<String>) {
        self.status = Some(Status::info(text));
    }

    fn request(&self, viewport: Viewport) -> IntentRequest {
        IntentRequest {
            viewport,
            focus: self.thread_focus.clone(),
            scroll: self.scroll,
            expanded: self.expanded.clone(),
            theme: self.theme,
            density: self.density,
            answering: self.answering.as_ref().map(Answering::view),
            elsewhere: self.shelf.elsewhere(),
            notice: self.status.as_ref().map(|status| Notice {
                text: status.text.clone(),
                alarm: status.alarm,
            }),
            now: Some(SystemTime::now()),
            overlay: self.overlay(),
            search: self.search.as_ref().map(Search::view),
            overview_cursor: self.overview_cursor,
            overview_hover: self.overview_hover,
        }
    }

    /// The overview's rows in the last frame, top to bottom, with what each is for.
    fn overview_rows(&self) -> Vec<(Rect, HitTarget)> {
        let region = self.shown.regions.overview;
        let mut rows: Vec<(Rect, HitTarget)> = self
            .shown
            .hits
            .iter()
            .filter(|(rect, _)| region.contains_xy(rect.x.as_f32() + 1.0, rect.y.as_f32() + 1.0))
            .copied()
            .collect();
        rows.sort_by(|a, b| a.0.y.as_f32().total_cmp(&b.0.y.as_f32()));
        rows
    }

    /// The search bar, while it is open (the window rings its matches).
    pub(super) fn search(&self) -> Option<&Search> {
        self.search.as_ref()
    }

    /// The panel open over the frame: the switcher, the map, or the inbox with what waits
    /// now.
    fn overlay(&self) -> Option<Overlay> {
        if let Some(switcher) = &self.switcher {
            return Some(Overlay::Switcher(switcher.view(self.session().path())));
        }
        if let Some(map) = &self.map {
            return Some(Overlay::Map(map.view()));
        }
        let inbox = self.inbox.as_ref()?;
        Some(Overlay::Inbox(
            inbox.view(inbox::gather(&self.shelf, SystemTime::now())),
        ))
    }

    /// Whether a panel (the switcher, the inbox, the map) is open over the frame (cards are
    /// then not highlighted).
    pub(super) fn overlay_open(&self) -> bool {
        self.switcher.is_some() || self.inbox.is_some() || self.map.is_some()
    }

    /// The branch map, while it is open (for the pointer: drags and wheel turns move it).
    pub(super) fn map_mut(&mut self) -> Option<&mut BranchMap> {
        self.map.as_mut()
    }

    /// Whether an open question of the shown session has a deadline, so its countdown must
    /// be redrawn as the seconds pass.
    pub(super) fn counting_down(&self) -> bool {
        let snapshot = self.snapshot();
        let now = SystemTime::now();
        snapshot
            .timeline
            .iter()
            .any(|entry| snapshot.time_left(entry.node, now).is_some())
    }

    /// Drops view state that no longer fits the snapshot: an answer to a question that
    /// closed, a thread focus on a thread that is gone.
    fn settle(&mut self) {
        let snapshot = self.shelf.shown().snapshot();
        if self.answering.as_ref().is_some_and(|answering| {
            answering.history() != snapshot.history || !snapshot.is_open_question(answering.node())
        }) {
            self.answering = None;
        }
        if self
            .thread_focus
            .as_ref()
            .is_some_and(|thread| snapshot.thread_index(thread).is_none())
        {
            self.thread_focus = None;
        }
    }

    /// Lays out the next frame (taking one step of any smooth scroll) and remembers what it
    /// shows for the pointer and the keyboard.
    pub(super) fn lay_out(&mut self, viewport: Viewport) -> Option<(FrameLayout, FrameInfo)> {
        self.settle();
        if let Some(search) = &mut self.search {
            // What an agent wrote since is searched too.
            search.refresh(self.shelf.shown().snapshot());
        }
        let mut request = self.request(viewport);
        let snapshot = self.shelf.shown().snapshot();
        if self.pending_scroll != 0.0 {
            // Smooth scrolling: each frame covers part of the way, the last pixel exactly.
            let step = if self.pending_scroll.abs() <= 2.0 {
                self.pending_scroll
            } else {
                self.pending_scroll * 0.45
            };
            self.pending_scroll -= step;
            if let Ok(anchor) = self.compositor.scroll(snapshot, &request, px(step)) {
                self.scroll = anchor;
                request.scroll = anchor;
            }
        }
        let (frame, info) = match self.compositor.layout(snapshot, &request) {
            Ok(laid_out) => laid_out,
            Err(error) => {
                self.status = Some(Status::alarm(error.to_string()));
                return None;
            }
        };
        self.scroll = info.anchor;
        if let (Some(map), Some(drawn)) = (&mut self.map, info.map) {
            map.shown(drawn);
        }
        self.shown = ShownFrame {
            history: Some(snapshot.history),
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
            folded: frame
                .cards
                .iter()
                .filter(|card| {
                    matches!(
                        card.presentation,
                        Presentation::Folded | Presentation::Summary
                    )
                })
                .map(|card| card.node)
                .collect(),
            hits: frame.hits.clone(),
            regions: frame.regions,
            info: Some(info.clone()),
        };
        note_confirmations_shown(&mut self.confirmation_shown_at, &self.shown.cards, snapshot);
        self.bring_focused_part_into_view(&frame);
        Some((frame, info))
    }

    /// Whether a confirmation has been on screen too short a time to be accepted.
    fn just_appeared(&self, node: NodeRef) -> bool {
        matches!(node, NodeRef::Confirmation(_))
            && self
                .confirmation_shown_at
                .get(&node)
                .is_none_or(|shown_at| shown_at.elapsed() < self.accept_grace)
    }

    /// When the keyboard moved to another part of the question (an item below the fold of a
    /// small or `--mfd` window), scrolls just enough for it to show, clear of the "more below"
    /// pill at the bottom edge.
    fn bring_focused_part_into_view(&mut self, frame: &FrameLayout) {
        let Some((node, part)) = self
            .answering
            .as_ref()
            .and_then(|answering| Some((answering.node(), answering.focus()?)))
        else {
            self.part_in_view = None;
            return;
        };
        if self.part_in_view == Some((node, part)) {
            return;
        }
        let hit = match part {
            AnswerField::Item(item) => CardHit::Item(item),
            field => CardHit::Field(field),
        };
        // The card's own parts, unclipped: a part below the transcript's edge has no hit
        // region in the frame, but its place in the card is known.
        let Some(rect) = frame
            .cards
            .iter()
            .find(|card| card.node == node)
            .and_then(|card| {
                card.layout
                    .hits
                    .iter()
                    .find(|(_, part)| *part == hit)
                    .map(|(rect, _)| rect.translate(card.origin.x, card.origin.y))
            })
        else {
            return;
        };
        self.part_in_view = Some((node, part));
        let region = self.shown.regions.transcript;
        let bottom = region.bottom().as_f32() - PILL_ROOM;
        if rect.bottom().as_f32() > bottom {
            let down = (rect.bottom().as_f32() - bottom).min((rect.y - region.y).as_f32().max(0.0));
            self.pending_scroll += down;
        } else if rect.y < region.y {
            self.pending_scroll -= (region.y - rect.y).as_f32();
        }
    }

    /// Whether the last frame was laid out from the snapshot shown now, so its hits and
    /// cards name nodes of this snapshot.
    fn shown_is_current(&self) -> bool {
        self.shown.history == Some(self.snapshot().history)
    }

    fn transcript_height(&self) -> f32 {
        self.shown.regions.transcript.height.as_f32().max(LINE)
    }

    /// Follows every session: folds what others appended, and moves to the session that
    /// grew last when the shown one has nothing waiting and the human is not answering.
    /// Returns whether anything changed.
    pub(super) fn look(&mut self) -> bool {
        let listed = self.refresh_switcher();
        let growth = self.shelf.look();
        if let Some(error) = growth.errors.into_iter().next() {
            self.status = Some(Status::alarm(error));
        }
        if growth.grown.is_empty() {
            if !self.looked {
                self.announce();
            }
            return listed;
        }
        // The fold keeps these counts per thread: no walk of the timeline per look.
        let snapshot = self.snapshot();
        let waiting_here =
            !is_demo(snapshot) && snapshot.open_questions() + snapshot.pending_confirmations() > 0;
        if self.answering.is_none() && !self.overlay_open() && !waiting_here {
            let last = self.shelf.last_grown().to_path_buf();
            self.switch_to(&last);
        }
        // After the move: a question the window has just brought on screen is no news.
        self.announce();
        true
    }

    /// Notes a notice for each question new since the last look in a session not shown; the
    /// first look only learns what waited before the window opened.
    fn announce(&mut self) {
        self.looked = true;
        let waiting = inbox::gather(&self.shelf, SystemTime::now());
        self.notices.extend(self.announcer.fresh(&waiting));
    }

    /// While the switcher is open, asks for a fresh list of sessions now and then and takes
    /// the one that arrived; returns whether the switcher changed.
    fn refresh_switcher(&mut self) -> bool {
        let (Some(switcher), Some(scanner)) = (&mut self.switcher, &mut self.scanner) else {
            return false;
        };
        scanner.ask(&self.folders);
        match scanner.arrived() {
            Some(entries) => {
                switcher.replace_entries(entries);
                true
            }
            None => false,
        }
    }

    fn toggle_switcher(&mut self) {
        if self.switcher.take().is_some() {
            return;
        }
        self.inbox = None;
        let scanner = self.scanner.get_or_insert_with(Scanner::start);
        self.switcher = Some(Switcher::new(scanner.latest()));
        self.hovered = None;
        self.refresh_switcher();
    }

    fn switcher_command(&mut self, command: SwitcherCommand) {
        let Some(switcher) = &mut self.switcher else {
            return;
        };
        match command {
            SwitcherCommand::Type(text) => switcher.type_text(&text),
            SwitcherCommand::Erase => switcher.erase(),
            SwitcherCommand::Step(delta) => switcher.step(delta),
            SwitcherCommand::Close => self.switcher = None,
            SwitcherCommand::Open => match switcher.chosen() {
                Some(path) => {
                    self.switcher = None;
                    self.open_session(&path);
                }
                None => self.say("no session matches what was typed"),
            },
        }
    }

    fn toggle_inbox(&mut self) {
        if self.inbox.take().is_some() {
            return;
        }
        self.switcher = None;
        self.map = None;
        self.hovered = None;
        self.inbox = Some(Inbox::default());
    }

    /// Opens the branch map with the thread in view selected, or closes it.
    fn toggle_map(&mut self) {
        if self.map.take().is_some() {
            return;
        }
        self.switcher = None;
        self.inbox = None;
        self.hovered = None;
        let snapshot = self.snapshot();
        let in_view = self
            .thread_focus
            .as_ref()
            .and_then(|focus| snapshot.thread_index(focus))
            .or_else(|| {
                let node = self.focused_card?;
                thread_of(snapshot, node)
            });
        self.map = Some(BranchMap::open(snapshot, in_view));
    }

    fn overview_command(&mut self, command: OverviewCommand) {
        let rows = self.overview_rows();
        let Some(cursor) = self.overview_cursor else {
            return;
        };
        let last = rows.len().saturating_sub(1);
        match command {
            OverviewCommand::Step(rows) => {
                let moved = (cursor as isize)
                    .saturating_add(rows)
                    .clamp(0, last as isize);
                self.overview_cursor = Some(moved as usize);
            }
            OverviewCommand::Leave => self.overview_cursor = None,
            OverviewCommand::Open => {
                // Just what a click on the row does: on a thread the keyboard stays on the
                // overview, on a question it goes to the answer.
                if let Some((rect, _)) = rows.get(cursor.min(last)) {
                    let (x, y) = (rect.x.as_f32() + 2.0, rect.y.as_f32() + 2.0);
                    self.click(x, y);
                }
            }
        }
    }

    fn search_command(&mut self, command: SearchCommand) {
        let snapshot = self.shelf.shown().snapshot();
        let Some(search) = &mut self.search else {
            return;
        };
        let shown = match command {
            SearchCommand::Type(text) => {
                search.type_text(&text);
                search.refresh(snapshot)
            }
            SearchCommand::Erase => {
                search.erase();
                search.refresh(snapshot)
            }
            SearchCommand::Step(delta) => search.step(delta),
            SearchCommand::Close => {
                self.search = None;
                return;
            }
        };
        if let Some(node) = shown {
            self.show_match(node);
        }
    }

    /// Brings a search match into view: unfolds what hides it (a long message, an answered
    /// batch, the resolved threads it lies in), leaves a thread drilled into that does not
    /// hold it, focuses its card and scrolls to it, below the search bar.
    fn show_match(&mut self, node: NodeRef) {
        let snapshot = self.shelf.shown().snapshot();
        self.expanded
            .extend(chatsurface_compositor::nodes_to_unfold(snapshot, node));
        self.reveal(node);
        if let ScrollAnchor::Block { block, .. } = self.scroll {
            if block == node {
                self.scroll = ScrollAnchor::Block {
                    block,
                    offset: px(-SEARCH_BAR_ROOM),
                };
            }
        }
        self.focused_card = Some(node);
    }

    fn map_command(&mut self, command: MapCommand) {
        let snapshot = self.shelf.shown().snapshot();
        let Some(map) = self.map.as_mut().filter(|map| map.is_of(snapshot)) else {
            self.map = None;
            return;
        };
        match command {
            MapCommand::Step(step) => map.step(snapshot, step),
            MapCommand::Zoom(factor) => map.zoom(factor, None),
            MapCommand::Fit => map.fit(),
            MapCommand::Close => self.map = None,
            MapCommand::Open => {
                let thread = map
                    .selected()
                    .and_then(|thread| snapshot.threads.get(thread));
                if let Some(thread) = thread {
                    self.thread_focus = Some(thread.spec.id.clone());
                    self.scroll = ScrollAnchor::Bottom;
                    self.pending_scroll = 0.0;
                    self.map = None;
                }
            }
        }
    }

    fn inbox_command(&mut self, command: InboxCommand) {
        let Some(open) = &mut self.inbox else {
            return;
        };
        let rows = inbox::gather(&self.shelf, SystemTime::now());
        match command {
            InboxCommand::Step(delta) => open.step(&rows, delta),
            InboxCommand::Close => self.inbox = None,
            InboxCommand::Answer => match open.chosen(&rows) {
                Some(question) => {
                    self.inbox = None;
                    self.switch_to(&question.log);
                    self.start_answering(question.node);
                }
                None => self.say("no open questions in any session"),
            },
        }
    }

    /// Shows the session at `path`, opening it (any format) if the window does not follow it
    /// yet.
    fn open_session(&mut self, path: &Path) {
        if path == self.session().path() {
            return;
        }
        if !self.shelf.holds(path) {
            match SessionLog::open_as(path, None) {
                Ok(log) => self.shelf.add(log),
                Err(error) => {
                    self.status = Some(Status::alarm(error.to_string()));
                    return;
                }
            }
        }
        self.switch_to(path);
    }

    /// Shows another session, from the bottom, with a fresh view.
    fn switch_to(&mut self, log: &Path) {
        if log == self.session().path() {
            return;
        }
        self.stop_answering();
        if !self.shelf.show(log) {
            return;
        }
        self.thread_focus = None;
        self.scroll = ScrollAnchor::Bottom;
        self.pending_scroll = 0.0;
        self.focused_card = None;
        self.hovered = None;
        self.expanded.clear();
        self.shown = ShownFrame::default();
        self.confirmation_shown_at.clear();
        self.map = None;
        self.search = None;
        self.overview_cursor = None;
        self.overview_hover = None;
        self.compositor.reset();
        self.switches += 1;
        self.switched_at = Some(Instant::now());
    }

    /// Keeps the top of a card where it is while it grows or shrinks (unfolding), so the text
    /// under the pointer or the focus stays put.
    fn keep_in_view(&mut self, node: NodeRef) {
        let region = self.shown.regions.transcript;
        if let Some((_, rect)) = self.shown.cards.iter().find(|(shown, _)| *shown == node) {
            self.pending_scroll = 0.0;
            self.scroll = ScrollAnchor::Block {
                block: node,
                offset: region.y - rect.y,
            };
        }
    }

    /// Makes a node's card show: leaves a thread focus that hides it, scrolls to it unless it
    /// is wholly in view.
    fn reveal(&mut self, node: NodeRef) {
        let snapshot = self.snapshot();
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
        let in_view = self.shown_is_current()
            && self.shown.cards.iter().any(|(shown, rect)| {
                *shown == node && rect.y >= region.y && rect.bottom() <= region.bottom()
            });
        if !in_view {
            self.pending_scroll = 0.0;
            self.scroll = ScrollAnchor::Block {
                block: node,
                offset: px(-16.0),
            };
        }
    }

    /// Unfolds a folded or summarised card, or folds an unfolded one again; returns whether
    /// the card was one of those.
    fn toggle_unfolded(&mut self, node: NodeRef) -> bool {
        if self.expanded.remove(&node) {
            return true;
        }
        if self.shown_is_current() && self.shown.folded.contains(&node) {
            self.expanded.insert(node);
            return true;
        }
        false
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
        let snapshot = self.shelf.shown().snapshot();
        self.answering = Answering::open(snapshot, node, self.editor_fonts.font_system());
        if self.answering.is_some() {
            self.focused_card = Some(node);
            self.reveal(node);
        }
    }

    /// The next open question after the one being answered, in any session: this session's
    /// later ones first, then the other sessions', wrapping around.
    fn next_open_question(&mut self) {
        let waiting = self.shelf.waiting();
        if waiting.is_empty() {
            self.say("no open questions in any session");
            return;
        }
        let current = self.answering.as_ref().map(|answering| WaitingQuestion {
            log: self.session().path().to_path_buf(),
            node: answering.node(),
        });
        let next = match current.and_then(|current| waiting.iter().position(|q| *q == current)) {
            Some(at) => waiting[(at + 1) % waiting.len()].clone(),
            None => waiting
                .iter()
                .find(|q| q.log == self.session().path())
                .unwrap_or(&waiting[0])
                .clone(),
        };
        self.switch_to(&next.log);
        self.start_answering(next.node);
    }

    fn move_card(&mut self, forward: bool) {
        if !self.shown_is_current() {
            return;
        }
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
                    self.pending_scroll += (rect.bottom() - region.bottom())
                        .as_f32()
                        .min(region.height.as_f32())
                        + 8.0;
                } else if rect.y < region.y {
                    self.pending_scroll -=
                        (region.y - rect.y).as_f32().min(region.height.as_f32()) + 8.0;
                }
            }
            None => self.pending_scroll += if forward { LINE } else { -LINE },
        }
    }

    fn append(&mut self, bodies: Vec<EventBody>) -> bool {
        match self.shelf.shown_mut().append(bodies) {
            Ok(()) => true,
            Err(error) => {
                // On stderr too: the status line may be gone before anyone reads it.
                tracing::error!("{error}");
                self.status = Some(Status::alarm(format!("NOT SAVED: {error}")));
                false
            }
        }
    }

    /// Saves the working answer's unsaved changes as a draft.
    pub(super) fn save_draft(&mut self) {
        let snapshot = self.shelf.shown().snapshot();
        // A draft of another session's question has no place in this log.
        let Some(draft) = self
            .answering
            .as_mut()
            .filter(|answering| answering.history() == snapshot.history)
            .and_then(|answering| answering.take_draft(snapshot))
        else {
            return;
        };
        self.append(vec![draft]);
    }

    /// Whether the working answer has changes a draft would save.
    pub(super) fn has_unsaved_draft(&self) -> bool {
        self.answering
            .as_ref()
            .is_some_and(Answering::has_unsaved_draft)
    }

    /// The keymap's context for what has the keyboard.
    pub(super) fn key_context(&self) -> KeyContext {
        if self.switcher.is_some() {
            return KeyContext::Switcher;
        }
        if self.inbox.is_some() {
            return KeyContext::Inbox;
        }
        if self.map.is_some() {
            return KeyContext::Map;
        }
        if self.search.as_ref().is_some_and(|search| search.has_keys) {
            return KeyContext::Search;
        }
        if self.overview_cursor.is_some() {
            return KeyContext::Overview;
        }
        match &self.answering {
            Some(answering) if answering.history() == self.snapshot().history => {
                answering.context(self.snapshot())
            }
            _ => KeyContext::Browsing,
        }
    }

    /// Carries out one command.
    pub(super) fn command(&mut self, command: Command) {
        self.settle();
        let command = match command {
            Command::ToggleSwitcher => return self.toggle_switcher(),
            Command::Switcher(command) => return self.switcher_command(command),
            Command::ToggleInbox => return self.toggle_inbox(),
            Command::Inbox(command) => return self.inbox_command(command),
            Command::ToggleMap => return self.toggle_map(),
            Command::Map(command) => return self.map_command(command),
            Command::OpenSearch if !self.overlay_open() => {
                self.search.get_or_insert_with(Search::new).has_keys = true;
                return;
            }
            Command::Search(command) => return self.search_command(command),
            Command::FocusOverview => {
                self.overview_cursor = Some(0);
                return;
            }
            Command::Overview(command) => return self.overview_command(command),
            // Text an input method composed goes into the query while the bar has the keys.
            Command::Edit(EditCommand::Insert(text))
                if self.key_context() == KeyContext::Search =>
            {
                return self.search_command(SearchCommand::Type(text));
            }
            // Text an input method composed arrives as an edit, wherever the keyboard is.
            Command::Edit(EditCommand::Insert(text)) if self.switcher.is_some() => {
                return self.switcher_command(SwitcherCommand::Type(text));
            }
            // What the keymap sends only while no panel is open must not act behind one.
            _ if self.overlay_open() => return,
            command => command,
        };
        let fonts = self.editor_fonts.font_system();
        let snapshot = self.shelf.shown().snapshot();
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
                let Some(node) = self.focused_card.filter(|node| snapshot.contains(*node)) else {
                    return;
                };
                let open = snapshot.is_open_question(node);
                let thread = thread_of(snapshot, node)
                    .map(|thread| snapshot.threads[thread].spec.id.clone());
                if open {
                    self.start_answering(node);
                } else if self.toggle_unfolded(node) {
                    self.keep_in_view(node);
                } else if let Some(thread) = thread {
                    self.thread_focus = Some(thread);
                    self.scroll = ScrollAnchor::Bottom;
                }
            }
            Command::Back => {
                if self.answering.is_some() {
                    self.stop_answering();
                } else if let Some(focus) = self.thread_focus.take() {
                    let left = snapshot.thread_index(&focus);
                    self.thread_focus = left
                        .and_then(|index| snapshot.parent_of(index))
                        .map(|parent| snapshot.threads[parent].spec.id.clone());
                    // Back out to where the thread branches off, not to the bottom.
                    if let Some(left) = left {
                        self.pending_scroll = 0.0;
                        self.scroll = ScrollAnchor::Block {
                            block: NodeRef::Thread(left),
                            offset: px(-16.0),
                        };
                        self.focused_card = Some(NodeRef::Thread(left));
                    }
                } else {
                    self.say("this is the whole session: there is nothing to go back to");
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
            Command::Submit => self.send(Send::Answer),
            Command::AcceptAlways => self.send(Send::AcceptAlways),
            Command::Decline => self.send(Send::Decline),
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
            // Taken above, before anything else could act on them.
            Command::ToggleSwitcher
            | Command::Switcher(_)
            | Command::ToggleInbox
            | Command::Inbox(_)
            | Command::ToggleMap
            | Command::Map(_)
            | Command::OpenSearch
            | Command::Search(_)
            | Command::FocusOverview
            | Command::Overview(_) => {}
        }
    }

    /// Opens the attachment of a question, saying in the status line what happened.
    fn open_attachment(&mut self, node: NodeRef) {
        let said = match self.snapshot().attachment(node) {
            Some(path) => opener::open_attachment(path).unwrap_or_else(|error| error),
            None => "this card has no attachment".to_owned(),
        };
        self.say(said);
    }

    /// Leaves the question being answered, saving its draft.
    pub(super) fn stop_answering(&mut self) {
        self.save_draft();
        self.answering = None;
    }

    /// Sends the working answer (accepting a confirmation), declines the confirmation or
    /// skips the whole batch.
    ///
    /// Written only when the question is open in the shown session and its card was in the
    /// last frame, so the human has seen what they answer.
    fn send(&mut self, send: Send) {
        let snapshot = self.snapshot();
        let Some(answering) = &self.answering else {
            return;
        };
        if answering.history() != snapshot.history || !snapshot.is_open_question(answering.node()) {
            self.answering = None;
            self.say("that question is no longer open here; nothing was sent");
            return;
        }
        let on_screen = self.shown_is_current()
            && self
                .shown
                .cards
                .iter()
                .any(|(node, _)| *node == answering.node());
        if !on_screen {
            self.reveal(answering.node());
            self.say("the question is now in view: check it, then send again");
            return;
        }
        if matches!(send, Send::Answer | Send::AcceptAlways) && self.just_appeared(answering.node())
        {
            self.say("this confirmation has just appeared: read it, then accept again");
            return;
        }
        let event = match send {
            Send::Answer => answering.submission(snapshot),
            Send::Decline => answering
                .decline(snapshot)
                .ok_or_else(|| "only a confirmation can be declined".to_owned()),
            Send::SkipAll => answering.skip_all(snapshot),
            Send::AcceptAlways => answering.accept_always(snapshot),
        };
        match event {
            Ok(event) => {
                if self.append(vec![event]) {
                    self.answering = None;
                    self.say(match send {
                        Send::Answer => "sent",
                        Send::Decline => "declined",
                        Send::AcceptAlways => "sent: accepted for good",
                        Send::SkipAll => "skipped: every item was sent as skipped",
                    });
                }
            }
            Err(reason) => self.say(format!("cannot send: {reason}")),
        }
    }

    /// A click at a point of the last frame.
    pub(super) fn click(&mut self, x: f32, y: f32) {
        if !self.shown_is_current() {
            // The session changed since that frame was drawn: what was under the pointer is
            // not there any more, so the click must not land on whatever is now.
            self.say("the view changed under the pointer; nothing was clicked");
            return;
        }
        if self
            .switched_at
            .is_some_and(|at| at.elapsed() < self.click_grace)
        {
            self.say("the session just changed; nothing was clicked");
            return;
        }
        let target = self
            .shown
            .hits
            .iter()
            .find(|(rect, _)| rect.contains_xy(x, y))
            .map(|(_, target)| *target);
        if self.switcher.is_some() {
            return self.click_switcher(target);
        }
        if self.inbox.is_some() {
            return self.click_inbox(target);
        }
        if self.map.is_some() {
            return self.click_map(target);
        }
        // A click on the search bar gives it the keyboard, one elsewhere gives it to what was
        // clicked (the bar stays, with its matches).
        if let Some(search) = &mut self.search {
            search.has_keys = target == Some(HitTarget::SearchBar);
        }
        // A click on an overview thread gives the overview the keyboard; one elsewhere (a
        // question there starts answering it, which needs the keys) takes it.
        self.overview_cursor = self.overview_rows().iter().position(|(rect, target)| {
            rect.contains_xy(x, y) && matches!(target, HitTarget::OverviewThread(_))
        });
        let snapshot = self.shelf.shown().snapshot();
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
                let in_overview = self.shown.regions.overview.contains_xy(x, y);
                if snapshot.is_open_question(node) {
                    let scroll = (self.scroll, self.pending_scroll);
                    self.start_answering(node);
                    // From the transcript the card was under the pointer: it stays put. From
                    // the overview, answering scrolls to it.
                    if !in_overview {
                        (self.scroll, self.pending_scroll) = scroll;
                    }
                } else if in_overview {
                    self.reveal(node);
                } else {
                    self.toggle_unfolded(node);
                }
            }
            Some(HitTarget::Waiting) => self.next_open_question(),
            Some(HitTarget::MoreBelow) => {
                self.pending_scroll = 0.0;
                self.scroll = ScrollAnchor::Bottom;
            }
            Some(HitTarget::Answer {
                node,
                hit: CardHit::Attachment,
            }) => {
                self.focused_card = Some(node);
                self.open_attachment(node);
            }
            Some(HitTarget::Answer { node, hit }) => self.click_answer(node, hit),
            // Drawn only while a panel is open, which is handled above.
            Some(
                HitTarget::OverlayRow(_)
                | HitTarget::OverlayPanel
                | HitTarget::MapNode(_)
                | HitTarget::MapArea,
            )
            | Some(HitTarget::SearchBar)
            | None => {}
        }
    }

    /// A click while the switcher is open: a row opens its session, the panel does nothing,
    /// and anywhere else closes the switcher without clicking what is behind it.
    fn click_switcher(&mut self, target: Option<HitTarget>) {
        match target {
            Some(HitTarget::OverlayRow(row)) => {
                if let Some(switcher) = &mut self.switcher {
                    switcher.select(row);
                }
                self.switcher_command(SwitcherCommand::Open);
            }
            Some(HitTarget::OverlayPanel) => {}
            _ => self.switcher = None,
        }
    }

    /// A click while the inbox is open: a row answers its question, the panel does nothing,
    /// and anywhere else closes the inbox without clicking what is behind it.
    fn click_inbox(&mut self, target: Option<HitTarget>) {
        match target {
            Some(HitTarget::OverlayRow(row)) => {
                let rows = inbox::gather(&self.shelf, SystemTime::now());
                if let Some(open) = &mut self.inbox {
                    open.select(&rows, row);
                }
                self.inbox_command(InboxCommand::Answer);
            }
            Some(HitTarget::OverlayPanel) => {}
            _ => self.inbox = None,
        }
    }

    /// A click on the map: a node selects its thread, and a click on the selected one opens
    /// it in the transcript; the rest of the map does nothing (it is dragged, not clicked).
    fn click_map(&mut self, target: Option<HitTarget>) {
        let Some(map) = &mut self.map else {
            return;
        };
        if let Some(HitTarget::MapNode(thread)) = target {
            if map.selected() == Some(thread) {
                self.map_command(MapCommand::Open);
            } else {
                map.select(thread);
            }
        }
    }

    fn click_answer(&mut self, node: NodeRef, hit: CardHit) {
        self.focused_card = Some(node);
        let scroll = (self.scroll, self.pending_scroll);
        self.start_answering(node);
        // A click must not move what is under the pointer: the card was in view to be
        // clicked, so the view stays where it was.
        (self.scroll, self.pending_scroll) = scroll;
        let fonts = self.editor_fonts.font_system();
        let snapshot = self.shelf.shown().snapshot();
        let Some(answering) = self
            .answering
            .as_mut()
            .filter(|answering| answering.node() == node)
        else {
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
            CardHit::Accept | CardHit::Submit => self.send(Send::Answer),
            CardHit::AcceptAlways => self.send(Send::AcceptAlways),
            CardHit::Decline => self.send(Send::Decline),
            CardHit::SkipAll => self.send(Send::SkipAll),
            CardHit::Attachment => {}
        }
    }

    /// The pointer moved to a point of the last frame; returns whether the hovered card
    /// changed.
    pub(super) fn hover(&mut self, x: f32, y: f32) -> bool {
        let hovered = if self.shown_is_current() && self.switcher.is_none() {
            self.shown
                .cards
                .iter()
                .find(|(_, rect)| rect.contains_xy(x, y))
                .map(|(node, _)| *node)
        } else {
            None
        };
        let overview_hover = if self.shown_is_current() && !self.overlay_open() {
            self.overview_rows()
                .iter()
                .position(|(rect, _)| rect.contains_xy(x, y))
        } else {
            None
        };
        let changed = hovered != self.hovered || overview_hover != self.overview_hover;
        self.hovered = hovered;
        self.overview_hover = overview_hover;
        changed
    }

    /// Text typed through an input method, into the field being typed into.
    pub(super) fn set_preedit(&mut self, preedit: Option<String>) -> bool {
        match &mut self.answering {
            Some(answering) => {
                answering.set_preedit(preedit);
                true
            }
            None => false,
        }
    }

    /// The benchmark's set-up: answers the first open question up to its first text field.
    pub(super) fn bench_focus_first_text_field(&mut self) {
        self.scroll = ScrollAnchor::Bottom;
        self.next_open_question();
        let snapshot = self.shelf.shown().snapshot();
        let fonts = self.editor_fonts.font_system();
        if let Some(answering) = &mut self.answering {
            let parts = match answering.node() {
                NodeRef::Batch(index) => snapshot
                    .batches
                    .get(index)
                    .map_or(0, |batch| batch.spec.items.len()),
                _ => 0,
            };
            for _ in 0..parts {
                if answering.is_typing() {
                    break;
                }
                answering.step(snapshot, true, fonts);
            }
        }
    }
}

/// The thread a node belongs to.
pub(super) fn thread_of(snapshot: &Snapshot, node: NodeRef) -> Option<usize> {
    match node {
        NodeRef::Thread(index) => Some(index),
        _ => snapshot
            .timeline
            .iter()
            .find(|entry| entry.node == node)
            .map(|entry| entry.thread),
    }
}

#[cfg(test)]
mod tests_support {
    //! Agents writing session logs beside the desk, as the API would.
    use super::*;
    use crate::window::editor::MemoryClipboard;
    use chatsurface_compositor::ScaleFactor;
    use chatsurface_model::{BatchId, ConfirmationId, LogWriter};
    use serde_json::json;
    use std::collections::HashSet;

    /// A question as an agent knows it: which log, which id.
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    pub(super) enum Asked {
        Batch(PathBuf, BatchId),
        Confirmation(PathBuf, ConfirmationId),
    }

    /// One agent per session log, writing as the API would, beside the window.
    pub(super) struct Agent {
        pub writer: LogWriter,
        asked: u32,
    }

    impl Agent {
        pub(super) fn start(dir: &Path, name: &str) -> Agent {
            let path = dir.join(format!("{name}.jsonl"));
            std::fs::write(&path, "").unwrap();
            let mut writer = LogWriter::open(&path).unwrap();
            writer
                .append_all([
                    body(json!({"type":"session_started","session":{"id":name,"title":format!("Session {name}")}})),
                    body(json!({"type":"thread_opened","thread":{"id":"main","parent":null,"title":"Main","kind":"topic"}})),
                ])
                .unwrap();
            Agent { writer, asked: 0 }
        }

        pub(super) fn say(&mut self, text: &str) {
            let id = format!("m-{}", self.writer.snapshot().last_seq + 1);
            self.writer
                .append(body(json!({"type":"message_appended","message":{"id":id,"thread_id":"main","role":"agent","text":text}})))
                .unwrap();
        }

        pub(super) fn ask_choice(&mut self) {
            self.asked += 1;
            let id = format!("b-{}", self.asked);
            self.writer
                .append(body(json!({"type":"clarification_batch_opened","batch":{"id":id,"thread_id":"main","title":"Pick one","items":[{"id":"q","prompt":"Which way?","kind":"choice","options":[{"id":"a","label":"Left"},{"id":"b","label":"Right"}]}]}})))
                .unwrap();
        }

        pub(super) fn ask_confirmation(&mut self) {
            self.asked += 1;
            let id = format!("c-{}", self.asked);
            self.writer
                .append(body(json!({"type":"confirmation_requested","confirmation":{"id":id,"thread_id":"main","title":"Go?","message":"Roll out now?"}})))
                .unwrap();
        }

        /// Withdraws (or lets expire) the oldest open question, as the server does.
        pub(super) fn take_back(&mut self) {
            let snapshot = self.writer.snapshot();
            let batch = snapshot
                .batches
                .iter()
                .find(|batch| {
                    snapshot
                        .batch(&batch.spec.id)
                        .is_some_and(|_| batch.status == chatsurface_model::BatchStatus::Open)
                })
                .map(|batch| batch.spec.id.clone());
            let event = match batch {
                Some(id) => {
                    json!({"type":"clarification_batch_closed","batch_id":id,"reason":"withdrawn"})
                }
                None => {
                    let Some(confirmation) = snapshot
                        .confirmations
                        .iter()
                        .find(|c| c.status == chatsurface_model::ConfirmationStatus::Pending)
                    else {
                        return;
                    };
                    json!({"type":"confirmation_resolved","confirmation_id":confirmation.spec.id,"outcome":"expired"})
                }
            };
            self.writer.append(body(event)).unwrap();
        }

        /// The human's answers the window wrote since the last call.
        pub(super) fn answers_written(&mut self) -> Vec<Asked> {
            let path = self.writer.path().to_path_buf();
            self.writer
                .catch_up()
                .unwrap()
                .into_iter()
                .filter_map(|event| match event.body {
                    EventBody::ClarificationAnswerSubmitted { batch_id, .. } => {
                        Some(Asked::Batch(path.clone(), batch_id))
                    }
                    EventBody::ConfirmationResolved {
                        confirmation_id, ..
                    } => Some(Asked::Confirmation(path.clone(), confirmation_id)),
                    _ => None,
                })
                .collect()
        }
    }

    /// Where the last frame shows the first part `wanted` takes.
    pub(super) fn hit_of(desk: &Desk, wanted: impl Fn(&HitTarget) -> bool) -> Rect {
        desk.shown
            .hits
            .iter()
            .find(|(_, target)| wanted(target))
            .map(|(rect, _)| *rect)
            .expect("the frame has that part")
    }

    /// A click just inside a part's corner.
    pub(super) fn click_at(desk: &mut Desk, rect: Rect) {
        desk.click(rect.x.as_f32() + 3.0, rect.y.as_f32() + 3.0);
    }

    /// Whether a part is some card's accept button.
    pub(super) fn is_accept(target: &HitTarget) -> bool {
        matches!(
            target,
            HitTarget::Answer {
                hit: CardHit::Accept,
                ..
            }
        )
    }

    /// A scratch data directory (kept while the first value lives) and its sessions folder.
    pub(super) fn scratch_store() -> (tempfile::TempDir, PathBuf) {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("sessions");
        std::fs::create_dir_all(&dir).unwrap();
        (root, dir)
    }

    pub(super) fn body(value: serde_json::Value) -> EventBody {
        serde_json::from_value(value).unwrap()
    }

    pub(super) fn viewport() -> Viewport {
        Viewport {
            width: px(1000.0),
            height: px(700.0),
            scale: ScaleFactor(1.0),
        }
    }

    pub(super) fn desk_over(dir: &Path, shown: &Path) -> Desk {
        Desk::new(
            SessionLog::open(shown).unwrap(),
            Some(dir.parent().unwrap().to_path_buf()),
            (Theme::Dark, Density::Comfortable),
            Box::new(MemoryClipboard::default()),
            FontSet::BundledOnly,
        )
    }

    /// The open questions whose cards the desk's last frame showed, named as agents know them.
    pub(super) fn on_screen(desk: &Desk) -> HashSet<Asked> {
        let snapshot = desk.snapshot();
        if desk.shown.history != Some(snapshot.history) {
            return HashSet::new();
        }
        let log = desk.session().path().to_path_buf();
        desk.shown
            .cards
            .iter()
            .filter(|(node, _)| snapshot.is_open_question(*node))
            .filter_map(|(node, _)| match *node {
                NodeRef::Batch(index) => Some(Asked::Batch(
                    log.clone(),
                    snapshot.batches[index].spec.id.clone(),
                )),
                NodeRef::Confirmation(index) => Some(Asked::Confirmation(
                    log.clone(),
                    snapshot.confirmations[index].spec.id.clone(),
                )),
                _ => None,
            })
            .collect()
    }

    /// A click at the middle of a random hit region of the last frame.
    pub(super) fn click_somewhere(desk: &mut Desk, rng: &mut fastrand::Rng) {
        if desk.shown.hits.is_empty() {
            return;
        }
        let (rect, _) = desk.shown.hits[rng.usize(..desk.shown.hits.len())];
        desk.click(
            (rect.x + rect.width * 0.5).as_f32(),
            (rect.y + rect.height * 0.5).as_f32(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::*;
    use super::*;
    use chatsurface_model::ConfirmationId;

    #[test]
    fn every_answer_written_names_a_question_that_was_open_and_on_screen() {
        let (_root, dir) = scratch_store();
        let mut agents: Vec<Agent> = ["deployer", "reviewer", "migrator", "auditor", "scaler"]
            .iter()
            .map(|name| Agent::start(&dir, name))
            .collect();
        let mut desk = desk_over(&dir, agents[0].writer.path());
        // Clicks right after a switch are what this walk is for.
        desk.click_grace = Duration::ZERO;
        let mut rng = fastrand::Rng::with_seed(0x5eed);
        let mut answered = 0;
        for step in 0..1500 {
            let before = on_screen(&desk);
            let agent = rng.usize(..agents.len());
            match rng.u32(..16) {
                0 => agents[agent].ask_choice(),
                1 => agents[agent].ask_confirmation(),
                2 => agents[agent].say("Working on it."),
                3 => agents[agent].take_back(),
                4 | 5 => {
                    desk.look();
                }
                6..=8 => {
                    desk.lay_out(viewport());
                }
                9 | 10 => click_somewhere(&mut desk, &mut rng),
                11 => desk.command(Command::NextOpenQuestion),
                12 => desk.command(Command::Pick(rng.usize(1..3))),
                13 => desk.command(Command::Submit),
                14 => desk.command(Command::Decline),
                _ => desk.command(if rng.bool() {
                    Command::Leave
                } else {
                    Command::NextCard
                }),
            }
            for agent in &mut agents {
                for answer in agent.answers_written() {
                    answered += 1;
                    assert!(
                        before.contains(&answer),
                        "step {step}: the window answered {answer:?}, which was not an open \
                         question on screen (on screen: {before:?})"
                    );
                }
            }
        }
        assert!(
            answered >= 20,
            "the walk answered only {answered} questions"
        );
    }

    #[test]
    fn a_confirmation_that_has_just_appeared_cannot_be_accepted_by_key_or_click() {
        let (_root, dir) = scratch_store();
        let mut agent = Agent::start(&dir, "deployer");
        let mut desk = desk_over(&dir, agent.writer.path());
        desk.look();
        desk.lay_out(viewport());
        agent.ask_confirmation();
        desk.look();
        desk.lay_out(viewport());
        desk.command(Command::NextOpenQuestion);
        desk.command(Command::Submit);
        let refused = Some("this confirmation has just appeared: read it, then accept again");
        assert_eq!(desk.status.as_ref().map(|s| s.text.as_str()), refused);
        let accept = hit_of(&desk, is_accept);
        click_at(&mut desk, accept);
        assert_eq!(desk.status.as_ref().map(|s| s.text.as_str()), refused);
        assert!(agent.answers_written().is_empty());
        std::thread::sleep(ACCEPT_GRACE);
        desk.lay_out(viewport());
        desk.command(Command::Submit);
        assert_eq!(desk.status.as_ref().map(|s| s.text.as_str()), Some("sent"));
        assert_eq!(agent.answers_written().len(), 1);
    }

    #[test]
    fn a_confirmation_offering_always_is_accepted_for_good_by_key_or_button() {
        let (_root, dir) = scratch_store();
        let mut agent = Agent::start(&dir, "claude-code");
        agent
            .writer
            .append(body(serde_json::json!({"type":"confirmation_requested","confirmation":{"id":"c-edit","thread_id":"main","message":"Edit a.txt","accept_always":"Allow edits for this session"}})))
            .unwrap();
        agent.ask_confirmation();
        let mut desk = desk_over(&dir, agent.writer.path());
        desk.accept_grace = Duration::ZERO;
        desk.look();
        desk.lay_out(viewport());
        // The button is on the card that offers it, and only there.
        let always_buttons = desk
            .shown
            .hits
            .iter()
            .filter(|(_, target)| {
                matches!(
                    target,
                    HitTarget::Answer {
                        hit: CardHit::AcceptAlways,
                        ..
                    }
                )
            })
            .count();
        assert_eq!(always_buttons, 1);
        desk.command(Command::NextOpenQuestion);
        desk.command(Command::AcceptAlways);
        assert_eq!(
            desk.status.as_ref().map(|s| s.text.as_str()),
            Some("sent: accepted for good")
        );
        let resolved = |desk: &Desk, id: &str| {
            desk.snapshot()
                .confirmations
                .iter()
                .find(|c| c.spec.id.as_str() == id)
                .map(|c| (c.status, c.accepted_always))
        };
        desk.look();
        assert_eq!(
            resolved(&desk, "c-edit"),
            Some((chatsurface_model::ConfirmationStatus::Accepted, true))
        );
        // The other confirmation offers no such answer: the chord sends nothing.
        desk.lay_out(viewport());
        desk.command(Command::NextOpenQuestion);
        desk.command(Command::AcceptAlways);
        assert_eq!(
            desk.status.as_ref().map(|s| s.text.as_str()),
            Some("cannot send: this question offers no \"always\" answer")
        );
        desk.look();
        assert_eq!(
            resolved(&desk, "c-1"),
            Some((chatsurface_model::ConfirmationStatus::Pending, false))
        );
    }

    #[test]
    fn declining_a_confirmation_is_taken_at_once() {
        let (_root, dir) = scratch_store();
        let mut agent = Agent::start(&dir, "deployer");
        agent.ask_confirmation();
        let mut desk = desk_over(&dir, agent.writer.path());
        desk.look();
        desk.lay_out(viewport());
        desk.command(Command::NextOpenQuestion);
        desk.command(Command::Decline);
        assert_eq!(
            desk.status.as_ref().map(|s| s.text.as_str()),
            Some("declined")
        );
        assert_eq!(agent.answers_written().len(), 1);
    }

    #[test]
    fn a_click_on_a_frame_of_another_session_answers_nothing() {
        let (_root, dir) = scratch_store();
        let mut deployer = Agent::start(&dir, "deployer");
        let mut reviewer = Agent::start(&dir, "reviewer");
        deployer.ask_confirmation();
        let mut desk = desk_over(&dir, deployer.writer.path());
        desk.look();
        desk.lay_out(viewport());
        let accept = hit_of(&desk, is_accept);
        // The deployer's question is open, so the reviewer's arriving does not move the view.
        reviewer.ask_confirmation();
        desk.look();
        assert_eq!(desk.session().path(), deployer.writer.path());
        assert_eq!(
            desk.shelf.elsewhere(),
            chatsurface_compositor::Elsewhere {
                questions: 1,
                sessions: 1
            }
        );
        // o goes to the reviewer's question: a switch, and the deployer's frame is stale.
        desk.command(Command::NextOpenQuestion);
        desk.command(Command::NextOpenQuestion);
        assert_eq!(desk.session().path(), reviewer.writer.path());
        click_at(&mut desk, accept);
        assert!(reviewer.answers_written().is_empty());
        assert!(deployer.answers_written().is_empty());
        // Once the reviewer's card is on screen, a click on it in the first moments after the
        // switch is still taken for one aimed at the deployer's, and ignored.
        desk.lay_out(viewport());
        let accept = hit_of(&desk, is_accept);
        click_at(&mut desk, accept);
        assert!(reviewer.answers_written().is_empty());
        // After the grace, the click answers the reviewer.
        desk.click_grace = Duration::ZERO;
        desk.accept_grace = Duration::ZERO;
        click_at(&mut desk, accept);
        assert_eq!(
            desk.status.as_ref().map(|status| status.text.as_str()),
            Some("sent")
        );
        assert_eq!(
            reviewer.answers_written(),
            vec![Asked::Confirmation(
                reviewer.writer.path().to_path_buf(),
                ConfirmationId::from("c-1")
            )]
        );
        assert!(deployer.answers_written().is_empty());
    }

    #[test]
    fn a_plain_message_elsewhere_does_not_move_away_from_an_open_question() {
        let (_root, dir) = scratch_store();
        let mut deployer = Agent::start(&dir, "deployer");
        let mut chatter = Agent::start(&dir, "chatter");
        let mut desk = desk_over(&dir, deployer.writer.path());
        desk.look();
        chatter.say("hello");
        desk.look();
        assert_eq!(
            desk.session().path(),
            chatter.writer.path(),
            "with nothing waiting, the window follows the agent that wrote last"
        );
        deployer.ask_choice();
        desk.look();
        assert_eq!(desk.session().path(), deployer.writer.path());
        chatter.say("still here");
        desk.look();
        assert_eq!(desk.session().path(), deployer.writer.path());
    }
}

#[cfg(test)]
mod mouse_tests {
    use super::tests_support::*;
    use super::*;
    use chatsurface_compositor::MapStep;
    use serde_json::json;

    #[test]
    fn a_batch_is_submitted_and_skipped_with_its_buttons() {
        let (_root, dir) = scratch_store();
        let mut agent = Agent::start(&dir, "planner");
        agent.ask_choice();
        agent.ask_choice();
        let mut desk = desk_over(&dir, agent.writer.path());
        desk.lay_out(viewport());
        // Clicks a part of a batch's card in a fresh frame.
        let press = |desk: &mut Desk, batch: usize, hit: CardHit| {
            desk.lay_out(viewport());
            let node = NodeRef::Batch(batch);
            let part = hit_of(desk, |target| *target == HitTarget::Answer { node, hit });
            click_at(desk, part);
        };
        // The answer the agent got last.
        let submitted = |agent: &mut Agent| {
            let written = agent.writer.catch_up().unwrap();
            match written.last().map(|event| event.body.clone()) {
                Some(EventBody::ClarificationAnswerSubmitted {
                    batch_id, answers, ..
                }) => (batch_id, answers),
                other => panic!("a button sends the batch: {other:?}"),
            }
        };
        // The newest batch is lowest; pick "Right" in it, then press its Submit button.
        press(&mut desk, 1, CardHit::Choice { item: 0, option: 1 });
        press(&mut desk, 1, CardHit::Submit);
        let (batch_id, answers) = submitted(&mut agent);
        assert_eq!(batch_id.as_str(), "b-2");
        assert_eq!(answers[0].selected[0].as_str(), "b");
        press(&mut desk, 0, CardHit::SkipAll);
        let (batch_id, answers) = submitted(&mut agent);
        assert_eq!(batch_id.as_str(), "b-1");
        assert!(answers.iter().all(|answer| answer.skipped));
    }

    #[test]
    fn clicking_an_option_does_not_move_what_is_under_the_pointer() {
        let (_root, dir) = scratch_store();
        let mut agent = Agent::start(&dir, "planner");
        agent.ask_choice();
        for _ in 0..6 {
            agent.say("A line of context after the question, so it sits higher up.");
        }
        let mut desk = desk_over(&dir, agent.writer.path());
        desk.lay_out(viewport());
        let region = desk.shown.regions.transcript;
        let (_, card) = desk.shown.cards[desk
            .shown
            .cards
            .iter()
            .position(|(node, _)| *node == NodeRef::Batch(0))
            .expect("the batch is on screen")];
        assert!(
            card.y < region.y,
            "the card's top is cut off, so revealing it would scroll"
        );
        let left = hit_of(&desk, |target| {
            matches!(
                target,
                HitTarget::Answer {
                    hit: CardHit::Choice { option: 0, .. },
                    ..
                }
            )
        });
        click_at(&mut desk, left);
        desk.lay_out(viewport());
        let after = hit_of(&desk, |target| {
            matches!(
                target,
                HitTarget::Answer {
                    hit: CardHit::Choice { option: 0, .. },
                    ..
                }
            )
        });
        assert_eq!(after.y, left.y, "the option stayed under the pointer");
    }

    #[test]
    fn a_folded_message_unfolds_with_a_click_and_with_enter() {
        let (_root, dir) = scratch_store();
        let mut agent = Agent::start(&dir, "writer");
        agent.say(&"A long report line that goes on. ".repeat(200));
        let mut desk = desk_over(&dir, agent.writer.path());
        desk.lay_out(viewport());
        let message = NodeRef::Message(0);
        assert!(desk.shown.folded.contains(&message), "a long message folds");
        let card = hit_of(&desk, |target| *target == HitTarget::Block(message));
        click_at(&mut desk, card);
        desk.lay_out(viewport());
        assert!(!desk.shown.folded.contains(&message), "a click unfolds it");
        desk.focused_card = Some(message);
        desk.command(Command::DrillIn);
        desk.lay_out(viewport());
        assert!(desk.shown.folded.contains(&message), "Enter folds it again");
        desk.command(Command::DrillIn);
        desk.lay_out(viewport());
        assert!(
            !desk.shown.folded.contains(&message),
            "and Enter unfolds it"
        );
        assert!(
            desk.thread_focus.is_none(),
            "Enter on a folded card does not drill in"
        );
    }

    #[test]
    fn the_headers_count_goes_to_the_next_open_question_in_any_session() {
        let (_root, dir) = scratch_store();
        let quiet = Agent::start(&dir, "quiet");
        let mut asking = Agent::start(&dir, "asking");
        asking.ask_confirmation();
        let mut desk = desk_over(&dir, quiet.writer.path());
        desk.look();
        // The asking session grew last, and the quiet one has nothing waiting: the window
        // moves there by itself; go back to the quiet one to test the pill from there.
        desk.switch_to(quiet.writer.path());
        desk.click_grace = Duration::ZERO;
        desk.lay_out(viewport());
        let pill = hit_of(&desk, |target| *target == HitTarget::Waiting);
        click_at(&mut desk, pill);
        assert_eq!(desk.session().path(), asking.writer.path());
        assert_eq!(
            desk.answering().map(Answering::node),
            Some(NodeRef::Confirmation(0))
        );
    }

    #[test]
    fn in_a_small_window_the_focused_item_scrolls_into_view() {
        let (_root, dir) = scratch_store();
        let log = dir.join("answer.jsonl");
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/window-answer.jsonl");
        std::fs::copy(fixture, &log).unwrap();
        let mut desk = desk_over(&dir, &log);
        let small = Viewport {
            width: px(600.0),
            height: px(420.0),
            scale: chatsurface_compositor::ScaleFactor(1.0),
        };
        // Frames until the smooth scroll has arrived.
        let settle = |desk: &mut Desk| {
            for _ in 0..40 {
                desk.lay_out(small);
            }
        };
        desk.command(Command::NextOpenQuestion);
        settle(&mut desk);
        let node = desk.answering().map(Answering::node).unwrap();
        let items = match node {
            NodeRef::Batch(index) => desk.snapshot().batches[index].spec.items.len(),
            _ => panic!("the fixture's first question is a batch"),
        };
        for item in 1..items {
            desk.command(Command::NextItem);
            settle(&mut desk);
            let region = desk.shown.regions.transcript;
            let rect = hit_of(&desk, |target| {
                *target
                    == HitTarget::Answer {
                        node,
                        hit: CardHit::Item(item),
                    }
            });
            assert!(
                rect.y >= region.y && rect.y < region.bottom() - px(PILL_ROOM),
                "item {item} is in view: {rect:?} in {region:?}"
            );
        }
    }

    #[test]
    fn the_map_opens_on_m_and_keys_or_a_second_click_open_a_thread() {
        let (_root, dir) = scratch_store();
        let mut agent = Agent::start(&dir, "planner");
        for branch in ["b1", "b2"] {
            agent
                .writer
                .append(body(json!({"type":"thread_opened","thread":{"id":branch,"parent":"main","title":format!("Branch {branch}"),"kind":"branch"}})))
                .unwrap();
        }
        let mut desk = desk_over(&dir, agent.writer.path());
        desk.lay_out(viewport());
        let map_drawn = |desk: &mut Desk| {
            let (_, info) = desk.lay_out(viewport()).unwrap();
            info.map.expect("the map is drawn")
        };

        desk.command(Command::ToggleMap);
        assert_eq!(desk.key_context(), KeyContext::Map);
        let fitted = map_drawn(&mut desk);
        for thread in 0..3 {
            hit_of(&desk, |target| *target == HitTarget::MapNode(thread));
        }
        // Keys for the transcript do nothing behind the map.
        desk.command(Command::NextCard);
        assert_eq!(desk.focused_card, None);
        desk.command(Command::Map(MapCommand::Zoom(2.0)));
        let zoomed = map_drawn(&mut desk);
        assert!((zoomed.camera.zoom - (fitted.camera.zoom * 2.0).min(4.0)).abs() < 1e-4);
        desk.command(Command::Map(MapCommand::Fit));
        assert_eq!(map_drawn(&mut desk).camera, fitted.camera);

        desk.command(Command::Map(MapCommand::Step(MapStep::Next)));
        desk.command(Command::Map(MapCommand::Open));
        assert_eq!(desk.thread_focus.as_ref().map(|id| id.as_str()), Some("b1"));
        assert_eq!(desk.key_context(), KeyContext::Browsing);

        // Opened again, the thread in view is selected; a click selects, a second opens.
        desk.command(Command::ToggleMap);
        map_drawn(&mut desk);
        let second = hit_of(&desk, |target| *target == HitTarget::MapNode(2));
        click_at(&mut desk, second);
        assert_eq!(desk.thread_focus.as_ref().map(|id| id.as_str()), Some("b1"));
        map_drawn(&mut desk);
        click_at(&mut desk, second);
        assert_eq!(desk.thread_focus.as_ref().map(|id| id.as_str()), Some("b2"));
        assert!(!desk.overlay_open());
    }

    #[test]
    fn search_finds_a_word_in_a_resolved_branch_unfolds_it_and_steps_through_matches() {
        let (_root, dir) = scratch_store();
        let mut agent = Agent::start(&dir, "planner");
        agent.say("The first PINEAPPLE, on the main line.");
        let append = |agent: &mut Agent, value: serde_json::Value| {
            agent.writer.append(body(value)).unwrap();
        };
        append(
            &mut agent,
            json!({"type":"thread_opened","thread":{"id":"side","parent":"main","title":"Side","kind":"branch"}}),
        );
        let long_output = format!(
            "{}\nthe pineapple is deep in this output",
            "line\n".repeat(40)
        );
        append(
            &mut agent,
            json!({"type":"message_appended","message":{"id":"tool-1","thread_id":"side","role":"tool","text":long_output}}),
        );
        append(
            &mut agent,
            json!({"type":"thread_status_changed","thread_id":"side","status":"resolved"}),
        );
        for _ in 0..12 {
            agent.say("Filler on the main line, so the first message is far above.");
        }
        let mut desk = desk_over(&dir, agent.writer.path());
        desk.lay_out(viewport());
        let on_screen =
            |desk: &Desk, node: NodeRef| desk.shown.cards.iter().any(|(shown, _)| *shown == node);
        let tool = NodeRef::Message(1);
        assert!(
            !on_screen(&desk, tool),
            "folded into the resolved branch's summary"
        );

        desk.command(Command::OpenSearch);
        assert_eq!(desk.key_context(), KeyContext::Search);
        for letter in ["p", "i", "n", "E", "a", "p", "p", "l", "e"] {
            desk.command(Command::Search(SearchCommand::Type(letter.into())));
        }
        // The newest match first: inside the resolved branch's folded tool output.
        assert_eq!(desk.focused_card, Some(tool));
        assert!(desk.expanded.contains(&NodeRef::Thread(1)));
        desk.lay_out(viewport());
        assert!(
            on_screen(&desk, tool),
            "the branch and the output unfold to show it"
        );
        hit_of(&desk, |target| *target == HitTarget::SearchBar);

        desk.command(Command::Search(SearchCommand::Step(1)));
        assert_eq!(desk.focused_card, Some(NodeRef::Message(0)));
        desk.lay_out(viewport());
        assert!(on_screen(&desk, NodeRef::Message(0)));
        // Round the end, back to the newest.
        desk.command(Command::Search(SearchCommand::Step(1)));
        assert_eq!(desk.focused_card, Some(tool));

        // What the agent writes while the bar is open is found; the current match stays.
        agent.say("A later pineapple.");
        desk.look();
        desk.lay_out(viewport());
        assert_eq!(
            desk.search().map(|search| search.current_node()),
            Some(Some(tool))
        );
        desk.command(Command::Search(SearchCommand::Step(-1)));
        assert!(matches!(desk.focused_card, Some(NodeRef::Message(_))));
        assert_ne!(desk.focused_card, Some(tool));

        // A click on a card gives it the keyboard, the bar staying; Ctrl+F gives it back.
        desk.lay_out(viewport());
        let (_, card) = desk.shown.cards[0];
        desk.click_grace = Duration::ZERO;
        click_at(&mut desk, card);
        assert_ne!(desk.key_context(), KeyContext::Search);
        assert!(desk.search().is_some());
        desk.command(Command::OpenSearch);
        assert_eq!(desk.key_context(), KeyContext::Search);

        desk.command(Command::Search(SearchCommand::Close));
        assert_eq!(desk.key_context(), KeyContext::Browsing);
        assert!(desk.focused_card.is_some(), "closing stays on the match");
    }

    #[test]
    fn the_overview_takes_the_keyboard_with_tab_and_its_rows_open_by_enter() {
        let (_root, dir) = scratch_store();
        let mut agent = Agent::start(&dir, "planner");
        agent
            .writer
            .append(body(json!({"type":"thread_opened","thread":{"id":"side","parent":"main","title":"Side","kind":"branch"}})))
            .unwrap();
        agent.ask_choice();
        let mut desk = desk_over(&dir, agent.writer.path());
        desk.lay_out(viewport());
        desk.command(Command::FocusOverview);
        assert_eq!(desk.key_context(), KeyContext::Overview);
        let rows = desk.overview_rows();
        let at = |target: HitTarget| rows.iter().position(|(_, row)| *row == target).unwrap();
        let side = at(HitTarget::OverviewThread(1));
        let question = at(HitTarget::Block(NodeRef::Batch(0)));

        desk.command(Command::Overview(OverviewCommand::Step(side as isize)));
        let (_, info) = desk.lay_out(viewport()).unwrap();
        assert_eq!(desk.overview_cursor, Some(side));
        desk.command(Command::Overview(OverviewCommand::Open));
        assert_eq!(
            desk.thread_focus.as_ref().map(|id| id.as_str()),
            Some("side")
        );
        assert_eq!(
            desk.key_context(),
            KeyContext::Overview,
            "a thread keeps the keys"
        );
        assert!(info.at_bottom);

        desk.command(Command::Overview(OverviewCommand::Leave));
        desk.thread_focus = None;
        desk.lay_out(viewport());
        desk.command(Command::FocusOverview);
        let rows = desk.overview_rows();
        let question_now = rows
            .iter()
            .position(|(_, row)| *row == HitTarget::Block(NodeRef::Batch(0)))
            .unwrap_or(question);
        desk.command(Command::Overview(OverviewCommand::Step(isize::MAX)));
        desk.command(Command::Overview(OverviewCommand::Step(
            question_now as isize - (rows.len() as isize - 1),
        )));
        desk.command(Command::Overview(OverviewCommand::Open));
        assert!(
            desk.answering.is_some(),
            "a question row starts answering it"
        );
        assert!(matches!(desk.key_context(), KeyContext::ChoiceItem { .. }));

        // The pointer over a row is handed to the compositor, which shows a cut row whole.
        desk.lay_out(viewport());
        let (rect, _) = desk.overview_rows()[side];
        desk.hover(rect.x.as_f32() + 4.0, rect.y.as_f32() + 4.0);
        assert_eq!(desk.overview_hover, Some(side));
    }

    #[test]
    fn a_click_on_the_more_below_pill_goes_to_the_newest() {
        let (_root, dir) = scratch_store();
        let mut agent = Agent::start(&dir, "chatty");
        for _ in 0..30 {
            agent.say("Another line of progress, one of many.");
        }
        let mut desk = desk_over(&dir, agent.writer.path());
        desk.lay_out(viewport());
        desk.command(Command::Top);
        desk.lay_out(viewport());
        assert!(!desk.shown.info.as_ref().unwrap().at_bottom);
        let pill = hit_of(&desk, |target| *target == HitTarget::MoreBelow);
        click_at(&mut desk, pill);
        desk.lay_out(viewport());
        assert!(desk.shown.info.as_ref().unwrap().at_bottom);
    }

    /// Folds a session list's first answer: the scanner reads on a thread of its own.
    fn look_until_listed(desk: &mut Desk) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !desk.look() {
            assert!(
                Instant::now() < deadline,
                "the list of sessions never arrived"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn rows_drawn(desk: &Desk) -> Vec<usize> {
        desk.shown
            .hits
            .iter()
            .filter_map(|(_, target)| match target {
                HitTarget::OverlayRow(row) => Some(*row),
                _ => None,
            })
            .collect()
    }

    /// The inbox the desk would draw now.
    fn inbox_view(desk: &Desk) -> chatsurface_compositor::InboxView {
        match desk.overlay() {
            Some(Overlay::Inbox(view)) => view,
            other => panic!("the inbox is not open: {other:?}"),
        }
    }

    #[test]
    fn the_inbox_lists_every_waiting_question_oldest_first_and_enter_answers_the_chosen_one() {
        let (_root, dir) = scratch_store();
        let quiet = Agent::start(&dir, "quiet");
        // The later question is in the session whose path sorts first, so the order drawn
        // is the questions' age, not the shelf's.
        let mut early = Agent::start(&dir, "z-early");
        let mut late = Agent::start(&dir, "a-late");
        early.ask_choice();
        late.ask_confirmation();
        let mut desk = desk_over(&dir, quiet.writer.path());
        desk.look();
        desk.switch_to(quiet.writer.path());

        desk.command(Command::ToggleInbox);
        assert_eq!(desk.key_context(), KeyContext::Inbox);
        let view = inbox_view(&desk);
        let sessions: Vec<&str> = view.rows.iter().map(|row| row.session.as_str()).collect();
        assert_eq!(sessions, ["Session z-early", "Session a-late"]);
        assert_eq!(view.sessions, 2);
        assert_eq!(view.rows[0].asks, "Pick one");
        assert_eq!(view.rows[0].thread, "Main");
        assert_eq!(
            view.rows[1].kind,
            chatsurface_compositor::WaitingKind::Confirmation
        );
        assert_eq!(view.rows[1].asks, "Go? — Roll out now?");
        assert!(view
            .rows
            .iter()
            .all(|row| !row.here && row.waited.is_some()));

        // What answers behind the panel does nothing while it is open.
        desk.command(Command::Submit);
        desk.command(Command::Decline);
        assert!(early.answers_written().is_empty() && late.answers_written().is_empty());

        // A question arriving elsewhere moves neither the session shown nor the selection.
        desk.command(Command::Inbox(InboxCommand::Step(1)));
        let mut third = Agent::start(&dir, "m-third");
        third.ask_choice();
        early.take_back();
        desk.look();
        assert_eq!(desk.session().path(), quiet.writer.path());
        let view = inbox_view(&desk);
        assert_eq!(
            view.rows.len(),
            2,
            "the withdrawn question left, the new one came"
        );
        assert_eq!(view.rows[view.selected].session, "Session a-late");

        desk.command(Command::Inbox(InboxCommand::Answer));
        assert!(desk.overlay().is_none());
        assert_eq!(desk.session().path(), late.writer.path());
        assert_eq!(
            desk.answering().map(Answering::node),
            Some(NodeRef::Confirmation(0))
        );
    }

    #[test]
    fn a_question_new_in_another_session_is_announced_once_and_moves_nothing() {
        let (_root, dir) = scratch_store();
        let mut shown = Agent::start(&dir, "shown");
        let mut before = Agent::start(&dir, "before");
        before.ask_choice();
        shown.ask_choice();
        let mut desk = desk_over(&dir, shown.writer.path());
        desk.look();
        assert!(
            desk.notices.is_empty(),
            "what waited before the window is no news"
        );
        desk.command(Command::NextOpenQuestion);
        let answering = desk.answering().map(Answering::node);
        assert!(answering.is_some());

        let mut other = Agent::start(&dir, "other");
        other.ask_confirmation();
        shown.ask_choice();
        desk.look();
        let notices = std::mem::take(&mut desk.notices);
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert_eq!(
            notices[0].summary,
            "chatsurface asks to confirm: Go? — Roll out now?"
        );
        assert!(notices[0].body.starts_with("Session other › Main"));
        assert_eq!(desk.session().path(), shown.writer.path());
        assert_eq!(desk.answering().map(Answering::node), answering);
        desk.look();
        other.say("still there");
        desk.look();
        assert!(desk.notices.is_empty(), "announced once");
    }

    #[test]
    fn a_click_on_an_inbox_row_answers_that_question_and_a_click_outside_closes_it() {
        let (_root, dir) = scratch_store();
        let quiet = Agent::start(&dir, "quiet");
        let mut asking = Agent::start(&dir, "asking");
        asking.ask_choice();
        let mut desk = desk_over(&dir, quiet.writer.path());
        desk.look();
        desk.switch_to(quiet.writer.path());
        desk.click_grace = Duration::ZERO;

        desk.command(Command::ToggleInbox);
        desk.lay_out(viewport());
        // Outside the panel: the inbox closes and nothing behind it is clicked.
        desk.click(2.0, 690.0);
        assert!(desk.overlay().is_none());
        assert_eq!(desk.session().path(), quiet.writer.path());

        desk.command(Command::ToggleInbox);
        desk.lay_out(viewport());
        let row = hit_of(&desk, |target| *target == HitTarget::OverlayRow(0));
        click_at(&mut desk, row);
        assert_eq!(desk.session().path(), asking.writer.path());
        assert_eq!(
            desk.answering().map(Answering::node),
            Some(NodeRef::Batch(0))
        );
    }

    #[test]
    fn ctrl_p_lists_the_agents_sessions_and_opens_the_one_typed_for() {
        let (root, dir) = scratch_store();
        let mut agent = Agent::start(&dir, "native");
        agent.say("A session of our own.");
        // Transcripts the real agents wrote, where their default folders would be.
        let claude = root.path().join("claude-projects/-home-op-lighthouse");
        let codex = root.path().join("codex-sessions/2026/12/04");
        std::fs::create_dir_all(&claude).unwrap();
        std::fs::create_dir_all(&codex).unwrap();
        let claude_file = claude.join("8aca0649-b70e-494e-93c9-752dcfc99335.jsonl");
        std::fs::copy(
            crate::agents::fixture_file("claude-code-2.1.328", "plain-ru"),
            &claude_file,
        )
        .unwrap();
        std::fs::copy(
            crate::agents::fixture_file("codex-0.169.0", "exec-command"),
            codex.join("rollout-2026-12-04T01-00-00-test.jsonl"),
        )
        .unwrap();
        let claude_title = crate::agents::load(&claude_file, None)
            .unwrap()
            .snapshot
            .title()
            .to_owned();

        let mut desk = desk_over(&dir, agent.writer.path());
        desk.folders = Folders {
            native: Some(dir.clone()),
            claude_code: Some(root.path().join("claude-projects")),
            codex: Some(root.path().join("codex-sessions")),
            gemini: None,
        };
        desk.command(Command::ToggleSwitcher);
        assert_eq!(desk.key_context(), KeyContext::Switcher);
        look_until_listed(&mut desk);
        desk.lay_out(viewport());
        assert_eq!(rows_drawn(&desk), vec![0, 1, 2], "one row per session");

        // Letters that would browse or answer are the filter's while it is open.
        let word = claude_title
            .split_whitespace()
            .next()
            .unwrap()
            .to_lowercase();
        for text in ["claude ", word.as_str()] {
            desk.command(Command::Switcher(SwitcherCommand::Type(text.into())));
        }
        desk.lay_out(viewport());
        assert_eq!(
            rows_drawn(&desk),
            vec![0],
            "only the Claude Code session matches"
        );
        desk.command(Command::Switcher(SwitcherCommand::Open));
        assert_eq!(desk.session().path(), claude_file);
        assert_eq!(desk.snapshot().title(), claude_title);
        assert_eq!(desk.key_context(), KeyContext::Browsing);

        // Back to our own session with the mouse.
        desk.click_grace = Duration::ZERO;
        desk.command(Command::ToggleSwitcher);
        desk.lay_out(viewport());
        desk.command(Command::Switcher(SwitcherCommand::Type("native".into())));
        desk.lay_out(viewport());
        let row = hit_of(&desk, |target| *target == HitTarget::OverlayRow(0));
        click_at(&mut desk, row);
        assert_eq!(desk.session().path(), agent.writer.path());
    }

    #[test]
    fn the_switcher_list_grows_while_it_is_open_and_escape_changes_nothing() {
        let (_root, dir) = scratch_store();
        let agent = Agent::start(&dir, "first");
        let mut desk = desk_over(&dir, agent.writer.path());
        desk.folders = Folders {
            native: Some(dir.clone()),
            ..Folders::default()
        };
        desk.command(Command::ToggleSwitcher);
        look_until_listed(&mut desk);
        desk.lay_out(viewport());
        assert_eq!(rows_drawn(&desk).len(), 1);
        let _second = Agent::start(&dir, "second");
        // The next rescan is due within RESCAN_EVERY.
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            desk.look();
            desk.lay_out(viewport());
            if rows_drawn(&desk).len() == 2 {
                break;
            }
            assert!(Instant::now() < deadline, "the new session never showed");
            std::thread::sleep(Duration::from_millis(50));
        }
        // Keys that mean something behind the switcher do nothing while it is open.
        desk.command(Command::Submit);
        desk.command(Command::Switcher(SwitcherCommand::Close));
        assert_eq!(desk.session().path(), agent.writer.path());
        assert_eq!(desk.key_context(), KeyContext::Browsing);
    }
}
