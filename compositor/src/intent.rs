//! Stage one, Intent: what the operator wants to see.
//!
//! An [`IntentRequest`] is what was asked (command-line flags, or the window's state after
//! input): the viewport, the focused thread, where the transcript is scrolled, what is
//! expanded, the theme. [`resolve_intent`] checks it against the snapshot and turns it into an
//! [`Intent`] the later stages can trust: ids become indices, sizes are in range, the style is
//! chosen. This stage must not look at message text or measure anything.

use crate::answering::AnswerView;
use crate::inbox::InboxView;
use crate::map::MapView;
use crate::search::{SearchHit, SearchView};
use crate::switcher::SwitcherView;
use crate::theme::{Density, Style, Theme};
use crate::units::{Pixels, ScaleFactor};
use crate::words::Lang;
use chatsurface_model::{NodeRef, Snapshot, ThreadId};
use std::collections::BTreeSet;
use std::fmt;

/// Smallest and largest viewport side, in logical pixels.
pub const VIEWPORT_RANGE: (f32, f32) = (240.0, 16384.0);
/// Smallest and largest scale factor.
pub(crate) const SCALE_RANGE: (f32, f32) = (0.5, 4.0);
/// Largest frame side in device pixels.
pub(crate) const MAX_DEVICE_SIDE: f32 = 16384.0;

/// Which transcript block sits at the top of the viewport, or pinned to the bottom.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum ScrollAnchor {
    /// Follow the newest content, like a chat log.
    #[default]
    Bottom,
    /// `block`'s top edge is `offset` above the top of the transcript viewport.
    Block {
        /// The block at the top.
        block: NodeRef,
        /// How far it is scrolled past the top edge.
        offset: Pixels,
    },
}

/// The size of the frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// Width in logical pixels.
    pub width: Pixels,
    /// Height in logical pixels.
    pub height: Pixels,
    /// Device pixels per logical pixel.
    pub scale: ScaleFactor,
}

impl Default for Viewport {
    fn default() -> Self {
        Viewport {
            width: Pixels(1920.0),
            height: Pixels(1080.0),
            scale: ScaleFactor(1.0),
        }
    }
}

/// What waits for the human in sessions other than the one shown (the window counts them
/// across its store; a single log has none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Elsewhere {
    /// Open batches and pending confirmations in other sessions.
    pub questions: usize,
    /// How many other sessions hold them.
    pub sessions: usize,
}

/// A line the window shows in the frame about what just happened ("sent", or that an answer
/// was not saved).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// What happened, one line.
    pub text: String,
    /// Whether it is a failure the human must not miss (drawn in the danger colour).
    pub alarm: bool,
}

/// What the operator asked for, before it is checked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IntentRequest {
    /// The frame's size and scale.
    pub viewport: Viewport,
    /// The thread drilled into, if any.
    pub focus: Option<ThreadId>,
    /// Where the transcript is scrolled.
    pub scroll: ScrollAnchor,
    /// Blocks the operator unfolded (long messages, answered batches, resolved threads).
    pub expanded: BTreeSet<NodeRef>,
    /// The look.
    pub theme: Theme,
    /// The spacing.
    pub density: Density,
    /// The open question being answered, drawn from the operator's working answer.
    pub answering: Option<AnswerView>,
    /// What waits in other sessions, for the header.
    pub elsewhere: Elsewhere,
    /// The window's last word to the human, shown in the header.
    pub notice: Option<Notice>,
    /// The wall clock, for the countdown on questions with a timeout; without it a card says
    /// only how long its timeout is (still frames, goldens).
    pub now: Option<std::time::SystemTime>,
    /// The panel open over the frame, if any: the session switcher or the inbox.
    pub overlay: Option<Overlay>,
    /// The search bar, while it is open: what was typed and what matches.
    pub search: Option<SearchView>,
    /// The overview row the keyboard is on, by its place from the panel's top, while the
    /// overview has the keyboard.
    pub overview_cursor: Option<usize>,
    /// The overview row under the pointer, by its place from the top: a row cut to fit shows
    /// its whole words beside it.
    pub overview_hover: Option<usize>,
}

/// A panel the window opens over the frame; it hides what is under it and moves nothing.
#[derive(Clone, Debug, PartialEq)]
pub enum Overlay {
    /// The session switcher (`Ctrl+P`).
    Switcher(SwitcherView),
    /// The questions inbox (`i`).
    Inbox(InboxView),
    /// The branch map (`m`).
    Map(MapView),
}

impl Overlay {
    /// The same overlay with its selection pulled back within its rows.
    fn checked(self) -> Overlay {
        match self {
            Overlay::Switcher(mut view) => {
                view.selected = view.selected.min(view.rows.len().saturating_sub(1));
                Overlay::Switcher(view)
            }
            Overlay::Inbox(mut view) => {
                view.selected = view.selected.min(view.rows.len().saturating_sub(1));
                Overlay::Inbox(view)
            }
            Overlay::Map(view) => Overlay::Map(view),
        }
    }
}

/// A request that cannot be honoured: which field, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntentError {
    /// The field, named as on the command line.
    pub field: &'static str,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for IntentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.reason)
    }
}

impl std::error::Error for IntentError {}

/// A checked request: what every later stage reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Intent {
    /// The frame's size and scale.
    pub viewport: Viewport,
    /// The focused thread, as an index into the snapshot's threads.
    pub focus: Option<usize>,
    /// The path from the topic down to the focused thread (empty without focus).
    pub breadcrumb: Vec<usize>,
    /// Where the transcript is scrolled.
    pub scroll: ScrollAnchor,
    /// Blocks the operator unfolded.
    pub expanded: BTreeSet<NodeRef>,
    /// Colours and sizes.
    pub style: Style,
    /// The open question being answered.
    pub answering: Option<AnswerView>,
    /// What waits in other sessions.
    pub elsewhere: Elsewhere,
    /// The window's last word to the human.
    pub notice: Option<Notice>,
    /// The wall clock, for countdowns.
    pub now: Option<std::time::SystemTime>,
    /// The panel open over the frame, with its selection within its rows.
    pub overlay: Option<Overlay>,
    /// The search bar, with only the matches that are nodes of this snapshot.
    pub search: Option<SearchView>,
    /// The overview row the keyboard is on.
    pub overview_cursor: Option<usize>,
    /// The overview row under the pointer.
    pub overview_hover: Option<usize>,
    /// The language of the surface's own words, the session's.
    pub lang: Lang,
}

impl Intent {
    /// Whether a thread is shown in the transcript: all of them without focus, otherwise the
    /// focused thread and what branches off it.
    pub fn shows_thread(&self, snapshot: &Snapshot, thread: usize) -> bool {
        self.focus
            .is_none_or(|focus| snapshot.is_within(thread, focus))
    }
}

fn check_side(field: &'static str, value: Pixels, scale: ScaleFactor) -> Result<(), IntentError> {
    let (min, max) = VIEWPORT_RANGE;
    if !(value.0.is_finite() && value.0 >= min && value.0 <= max) {
        return Err(IntentError {
            field,
            reason: format!("must be between {min} and {max} pixels (got {})", value.0),
        });
    }
    if value.0 * scale.0 > MAX_DEVICE_SIDE {
        return Err(IntentError {
            field,
            reason: format!(
                "{} × scale {} exceeds {MAX_DEVICE_SIDE} device pixels",
                value.0, scale.0
            ),
        });
    }
    Ok(())
}

/// Stage one: checks a request against the snapshot.
pub fn resolve_intent(snapshot: &Snapshot, request: &IntentRequest) -> Result<Intent, IntentError> {
    let viewport = request.viewport;
    let (min_scale, max_scale) = SCALE_RANGE;
    if !(viewport.scale.0.is_finite()
        && viewport.scale.0 >= min_scale
        && viewport.scale.0 <= max_scale)
    {
        return Err(IntentError {
            field: "scale",
            reason: format!(
                "must be between {min_scale} and {max_scale} (got {})",
                viewport.scale.0
            ),
        });
    }
    check_side("width", viewport.width, viewport.scale)?;
    check_side("height", viewport.height, viewport.scale)?;
    let focus = match &request.focus {
        None => None,
        Some(id) => Some(snapshot.thread_index(id).ok_or_else(|| IntentError {
            field: "focus",
            reason: format!("the session has no thread \"{id}\""),
        })?),
    };
    if let Some(view) = &request.answering {
        if view.history != snapshot.history {
            return Err(IntentError {
                field: "answering",
                reason: "the question belongs to another session's snapshot".to_owned(),
            });
        }
        if !snapshot.is_open_question(view.node) {
            return Err(IntentError {
                field: "answering",
                reason: "only an open batch or confirmation can be answered".to_owned(),
            });
        }
    }
    let mut breadcrumb = Vec::new();
    let mut current = focus;
    while let Some(thread) = current {
        breadcrumb.push(thread);
        current = snapshot.parent_of(thread);
    }
    breadcrumb.reverse();
    // A scroll anchor or an unfolded block kept from another snapshot may point past this
    // one's vectors: such references are dropped, never followed.
    let scroll = match request.scroll {
        ScrollAnchor::Block { block, .. } if !snapshot.contains(block) => ScrollAnchor::Bottom,
        anchor => anchor,
    };
    let expanded = request
        .expanded
        .iter()
        .copied()
        .filter(|node| snapshot.contains(*node))
        .collect();
    Ok(Intent {
        viewport,
        focus,
        breadcrumb,
        scroll,
        expanded,
        style: Style::new(request.theme, request.density),
        answering: request.answering.clone(),
        elsewhere: request.elsewhere,
        notice: request.notice.clone(),
        now: request.now,
        overlay: request.overlay.clone().map(Overlay::checked),
        search: request.search.clone().map(|mut search| {
            let here = |hit: &SearchHit| {
                snapshot.contains(hit.node) && hit.thread < snapshot.threads.len()
            };
            if !search.hits.iter().all(here) {
                search.hits = search
                    .hits
                    .iter()
                    .filter(|hit| here(hit))
                    .copied()
                    .collect();
                search.current = None;
            }
            search.current = search
                .current
                .filter(|&current| current < search.hits.len());
            search
        }),
        overview_cursor: request.overview_cursor,
        overview_hover: request.overview_hover,
        lang: Lang::of(snapshot),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chatsurface_model::{EventBody, ThreadKind, ThreadSpec};

    fn snapshot() -> Snapshot {
        let open = |id: &str, parent: Option<&str>| EventBody::ThreadOpened {
            thread: ThreadSpec {
                id: id.into(),
                parent: parent.map(Into::into),
                title: id.into(),
                kind: ThreadKind::Topic,
            },
        };
        let events = [
            open("t1", None),
            open("t2", Some("t1")),
            open("t3", Some("t2")),
            open("u", None),
        ];
        Snapshot::from_events(events.into_iter().enumerate().map(|(n, body)| {
            chatsurface_model::Event {
                v: 1,
                seq: n as u64 + 1,
                at: "2026-11-30T10:00:00Z".into(),
                body,
            }
        }))
        .unwrap()
    }

    #[test]
    fn focus_resolves_to_a_breadcrumb_from_the_topic() {
        let snapshot = snapshot();
        let request = IntentRequest {
            focus: Some("t3".into()),
            ..Default::default()
        };
        let intent = resolve_intent(&snapshot, &request).unwrap();
        assert_eq!(intent.breadcrumb, vec![0, 1, 2]);
        assert!(intent.shows_thread(&snapshot, 2));
        assert!(
            !intent.shows_thread(&snapshot, 1),
            "the parent of the focus is outside it"
        );
        assert!(!intent.shows_thread(&snapshot, 3));
    }

    #[test]
    fn an_unknown_focus_is_named() {
        let request = IntentRequest {
            focus: Some("nope".into()),
            ..Default::default()
        };
        let error = resolve_intent(&snapshot(), &request).unwrap_err();
        assert_eq!(
            error.to_string(),
            "focus: the session has no thread \"nope\""
        );
    }

    #[test]
    fn sizes_out_of_range_are_refused() {
        let mut request = IntentRequest::default();
        request.viewport.width = Pixels(10.0);
        assert_eq!(
            resolve_intent(&snapshot(), &request).unwrap_err().field,
            "width"
        );
        request.viewport.width = Pixels(9000.0);
        request.viewport.scale = ScaleFactor(2.0);
        assert_eq!(
            resolve_intent(&snapshot(), &request).unwrap_err().field,
            "width"
        );
        request.viewport.scale = ScaleFactor(f32::NAN);
        assert_eq!(
            resolve_intent(&snapshot(), &request).unwrap_err().field,
            "scale"
        );
    }
}
