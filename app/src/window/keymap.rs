//! The keymap: a key press, in the context of what has focus, becomes one [`Command`].
//!
//! Keys are described by our own [`KeyPress`] rather than winit's types, so the whole keymap is
//! tested without a window. The same key means different things in different contexts: `j`
//! moves between cards while browsing, picks nothing on a choice item, and is a letter while a
//! field is being typed into. The context decides; this module holds every such rule in one
//! table-like function, and the README's keymap is written from it.

use super::editor::{CaretMotion, EditCommand};
use chatsurface_compositor::MapStep;

/// A key, as far as the keymap cares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Key {
    /// A key that produces a character (the character without modifiers applied by Ctrl).
    Character(String),
    /// Enter or Return.
    Enter,
    /// Tab.
    Tab,
    /// Backspace.
    Backspace,
    /// Delete.
    Delete,
    /// Escape.
    Escape,
    /// Arrow left.
    Left,
    /// Arrow right.
    Right,
    /// Arrow up.
    Up,
    /// Arrow down.
    Down,
    /// Home.
    Home,
    /// End.
    End,
    /// Page Up.
    PageUp,
    /// Page Down.
    PageDown,
    /// The space bar.
    Space,
}

/// Modifier keys held during a press.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Modifiers {
    /// Control (or Command on macOS).
    pub ctrl: bool,
    /// Shift.
    pub shift: bool,
    /// Alt.
    pub alt: bool,
}

/// One key press.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct KeyPress {
    /// The key.
    pub key: Key,
    /// The modifiers.
    pub modifiers: Modifiers,
}

/// What has the keyboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KeyContext {
    /// No question is being answered: keys move around the session.
    Browsing,
    /// A choice item of a batch has focus.
    ChoiceItem {
        /// Whether it has a free-text answer too.
        custom: bool,
    },
    /// A yes/no item has focus.
    YesNoItem,
    /// A confirmation has focus, without a comment field being typed into.
    Confirmation,
    /// A text field is being typed into.
    Typing {
        /// Whether Enter breaks the line.
        multiline: bool,
    },
    /// The session switcher is open: keys filter and choose.
    Switcher,
    /// The questions inbox is open: keys choose a question to answer.
    Inbox,
    /// The branch map is open: keys move between threads and the view.
    Map,
    /// The search bar has the keyboard: keys type the query and move between matches.
    Search,
    /// The overview has the keyboard: keys move between its rows.
    Overview,
}

/// What a key press asks of the overview while it has the keyboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OverviewCommand {
    /// Move to the row this many rows down (up when negative).
    Step(isize),
    /// Do what a click on the row does: drill into its thread, go to its question.
    Open,
    /// Give the keyboard back to the transcript.
    Leave,
}

/// What a key press asks of the search bar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum SearchCommand {
    /// Add text to the query.
    Type(String),
    /// Remove the query's last character.
    Erase,
    /// Go to the next older match (1) or newer (-1).
    Step(isize),
    /// Close the bar, staying on the match shown.
    Close,
}

/// What a key press asks of the open branch map.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum MapCommand {
    /// Move the selection.
    Step(MapStep),
    /// Open the selected thread in the transcript.
    Open,
    /// Zoom about the map's centre by this factor.
    Zoom(f32),
    /// Fit the whole map in the window.
    Fit,
    /// Close the map, showing what was shown before.
    Close,
}

/// How much one `+` or `-` zooms the map.
pub(super) const MAP_ZOOM_STEP: f32 = 1.25;

/// What a key press asks of the open inbox.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum InboxCommand {
    /// Move the selection by this many rows.
    Step(isize),
    /// Answer the selected question: show its session and start answering it.
    Answer,
    /// Close the inbox, showing what was shown before.
    Close,
}

/// What a key press asks of the open session switcher.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum SwitcherCommand {
    /// Add text to the filter.
    Type(String),
    /// Remove the last character of the filter.
    Erase,
    /// Move the selection by this many rows.
    Step(isize),
    /// Open the selected session.
    Open,
    /// Close the switcher, showing what was shown before.
    Close,
}

/// What a key press asks for.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Command {
    /// Scroll by this many pages.
    ScrollPages(f32),
    /// Jump to the oldest content.
    Top,
    /// Jump to the newest content and follow it.
    Bottom,
    /// Focus the next card.
    NextCard,
    /// Focus the previous card.
    PreviousCard,
    /// Drill into the focused card's thread.
    DrillIn,
    /// Go back out of the thread drilled into.
    Back,
    /// Focus the next open question item, in transcript order.
    NextOpenQuestion,
    /// Next item of the batch.
    NextItem,
    /// Previous item of the batch.
    PreviousItem,
    /// Pick option N (1-based) of the focused choice item.
    Pick(usize),
    /// Answer the focused yes/no item.
    YesNo(bool),
    /// Skip the focused item.
    Skip,
    /// Put the caret into the focused item's field (a choice item's custom answer).
    EditField,
    /// Start typing into the focused item's field with this text.
    TypeInto(String),
    /// Submit the batch, or accept the confirmation.
    Submit,
    /// Accept the confirmation for good (its "always" answer, where it offers one).
    AcceptAlways,
    /// Decline the confirmation.
    Decline,
    /// Open the attachment of the question being answered, or of the focused card.
    OpenAttachment,
    /// Leave the field, or stop answering.
    Leave,
    /// An edit in the field being typed into.
    Edit(EditCommand),
    /// Open the session switcher, or close it when open.
    ToggleSwitcher,
    /// A key for the open session switcher.
    Switcher(SwitcherCommand),
    /// Open the questions inbox, or close it when open.
    ToggleInbox,
    /// A key for the open inbox.
    Inbox(InboxCommand),
    /// Open the branch map, or close it when open.
    ToggleMap,
    /// A key for the open branch map.
    Map(MapCommand),
    /// Open the search bar (or give it the keyboard again).
    OpenSearch,
    /// A key for the search bar.
    Search(SearchCommand),
    /// Give the overview the keyboard.
    FocusOverview,
    /// A key for the overview.
    Overview(OverviewCommand),
}

/// The command for a key press in a context, if any.
pub(super) fn command_for(press: &KeyPress, context: KeyContext) -> Option<Command> {
    let KeyPress { key, modifiers } = press;
    let (ctrl, shift, alt) = (modifiers.ctrl, modifiers.shift, modifiers.alt);
    if ctrl && matches!(key, Key::Character(text) if text.eq_ignore_ascii_case("p")) {
        return Some(Command::ToggleSwitcher);
    }
    if context == KeyContext::Switcher {
        return switcher(key, *modifiers).map(Command::Switcher);
    }
    if context == KeyContext::Inbox {
        return inbox(key, *modifiers).map(Command::Inbox);
    }
    if context == KeyContext::Map {
        return map(key, *modifiers).map(Command::Map);
    }
    if ctrl && matches!(key, Key::Character(text) if text.eq_ignore_ascii_case("f")) {
        return Some(Command::OpenSearch);
    }
    if context == KeyContext::Search {
        return search(key, *modifiers).map(Command::Search);
    }
    if context == KeyContext::Overview {
        // Keys of its own; the rest (o, i, m, /, Page Down) mean what they mean browsing.
        if let Some(command) = overview(key, *modifiers) {
            return Some(Command::Overview(command));
        }
        return command_for(press, KeyContext::Browsing);
    }
    if context == KeyContext::Browsing && *key == Key::Tab && !ctrl && !alt {
        return Some(Command::FocusOverview);
    }
    // Keys that mean the same wherever the keyboard is.
    match key {
        Key::Enter if ctrl && shift => return Some(Command::AcceptAlways),
        Key::Enter if ctrl => return Some(Command::Submit),
        // Declining has a chord of its own that no text field uses, so deleting a word of a
        // comment (Ctrl+Backspace) can never decline by accident.
        Key::Character(text) if ctrl && text.eq_ignore_ascii_case("d") => {
            return Some(Command::Decline)
        }
        Key::Character(text) if ctrl && text.eq_ignore_ascii_case("o") => {
            return Some(Command::OpenAttachment)
        }
        Key::Tab if context != KeyContext::Browsing => {
            return Some(if shift {
                Command::PreviousItem
            } else {
                Command::NextItem
            });
        }
        Key::PageUp => return Some(Command::ScrollPages(-1.0)),
        Key::PageDown => return Some(Command::ScrollPages(1.0)),
        _ => {}
    }
    if let KeyContext::Typing { multiline } = context {
        return typing(key, *modifiers, multiline);
    }
    if ctrl {
        return match key {
            Key::Home => Some(Command::Top),
            Key::End => Some(Command::Bottom),
            _ => None,
        };
    }
    let character = match key {
        Key::Character(text) => text.chars().next().filter(|_| text.chars().count() == 1),
        _ => None,
    };
    match (key, context) {
        (Key::Escape, KeyContext::Browsing) => None,
        (Key::Escape, _) => Some(Command::Leave),
        (Key::Home, _) => Some(Command::Top),
        (Key::End, _) => Some(Command::Bottom),
        (Key::Left, _) if alt => Some(Command::Back),
        (Key::Backspace, KeyContext::Browsing) => Some(Command::Back),
        (Key::Space, KeyContext::Browsing) => {
            Some(Command::ScrollPages(if shift { -1.0 } else { 1.0 }))
        }
        (Key::Down, _) => Some(Command::NextCard),
        (Key::Up, _) => Some(Command::PreviousCard),
        (Key::Enter, KeyContext::Browsing) => Some(Command::DrillIn),
        (Key::Enter, KeyContext::ChoiceItem { custom: true }) => Some(Command::EditField),
        (Key::Enter, _) => Some(Command::NextItem),
        _ => match (character, context) {
            (Some('o'), _) => Some(Command::NextOpenQuestion),
            // Typed into a choice's own answer otherwise (below).
            (Some('i'), context) if context != KeyContext::ChoiceItem { custom: true } => {
                Some(Command::ToggleInbox)
            }
            (Some('m'), context) if context != KeyContext::ChoiceItem { custom: true } => {
                Some(Command::ToggleMap)
            }
            (Some('/'), context) if context != KeyContext::ChoiceItem { custom: true } => {
                Some(Command::OpenSearch)
            }
            (Some('j'), KeyContext::Browsing) => Some(Command::NextCard),
            (Some('k'), KeyContext::Browsing) => Some(Command::PreviousCard),
            (Some('s'), KeyContext::ChoiceItem { .. } | KeyContext::YesNoItem) => {
                Some(Command::Skip)
            }
            (Some(digit @ '1'..='9'), KeyContext::ChoiceItem { .. }) => {
                Some(Command::Pick(digit as usize - '0' as usize))
            }
            (Some('y'), KeyContext::YesNoItem) => Some(Command::YesNo(true)),
            (Some('n'), KeyContext::YesNoItem) => Some(Command::YesNo(false)),
            (Some(_), KeyContext::ChoiceItem { custom: true }) => match key {
                Key::Character(text) => Some(Command::TypeInto(text.clone())),
                _ => None,
            },
            _ => None,
        },
    }
}

fn switcher(key: &Key, modifiers: Modifiers) -> Option<SwitcherCommand> {
    match key {
        Key::Escape => Some(SwitcherCommand::Close),
        Key::Enter => Some(SwitcherCommand::Open),
        Key::Backspace => Some(SwitcherCommand::Erase),
        Key::Down => Some(SwitcherCommand::Step(1)),
        Key::Up => Some(SwitcherCommand::Step(-1)),
        Key::Tab if modifiers.shift => Some(SwitcherCommand::Step(-1)),
        Key::Tab => Some(SwitcherCommand::Step(1)),
        Key::PageDown => Some(SwitcherCommand::Step(10)),
        Key::PageUp => Some(SwitcherCommand::Step(-10)),
        Key::Space => Some(SwitcherCommand::Type(" ".into())),
        Key::Character(text) if modifiers.ctrl => match text.to_lowercase().as_str() {
            "n" | "j" => Some(SwitcherCommand::Step(1)),
            "k" => Some(SwitcherCommand::Step(-1)),
            _ => None,
        },
        Key::Character(text) => Some(SwitcherCommand::Type(text.clone())),
        _ => None,
    }
}

fn inbox(key: &Key, modifiers: Modifiers) -> Option<InboxCommand> {
    match key {
        Key::Escape => Some(InboxCommand::Close),
        // Plain or with Ctrl: Ctrl+Enter must not reach the question behind the panel.
        Key::Enter => Some(InboxCommand::Answer),
        Key::Down => Some(InboxCommand::Step(1)),
        Key::Up => Some(InboxCommand::Step(-1)),
        Key::Tab if modifiers.shift => Some(InboxCommand::Step(-1)),
        Key::Tab => Some(InboxCommand::Step(1)),
        Key::PageDown => Some(InboxCommand::Step(10)),
        Key::PageUp => Some(InboxCommand::Step(-10)),
        Key::Character(text) if !modifiers.ctrl => match text.as_str() {
            "j" => Some(InboxCommand::Step(1)),
            "k" => Some(InboxCommand::Step(-1)),
            "i" => Some(InboxCommand::Close),
            _ => None,
        },
        _ => None,
    }
}

fn map(key: &Key, modifiers: Modifiers) -> Option<MapCommand> {
    match key {
        Key::Escape => Some(MapCommand::Close),
        Key::Enter => Some(MapCommand::Open),
        Key::Down => Some(MapCommand::Step(MapStep::Next)),
        Key::Up => Some(MapCommand::Step(MapStep::Previous)),
        Key::Left => Some(MapCommand::Step(MapStep::Parent)),
        Key::Right => Some(MapCommand::Step(MapStep::FirstBranch)),
        Key::Tab if modifiers.shift => Some(MapCommand::Step(MapStep::Previous)),
        Key::Tab => Some(MapCommand::Step(MapStep::Next)),
        Key::Character(text) if !modifiers.ctrl => match text.as_str() {
            "j" => Some(MapCommand::Step(MapStep::Next)),
            "k" => Some(MapCommand::Step(MapStep::Previous)),
            "h" => Some(MapCommand::Step(MapStep::Parent)),
            "l" => Some(MapCommand::Step(MapStep::FirstBranch)),
            "+" | "=" => Some(MapCommand::Zoom(MAP_ZOOM_STEP)),
            "-" | "_" => Some(MapCommand::Zoom(1.0 / MAP_ZOOM_STEP)),
            "0" => Some(MapCommand::Fit),
            "m" => Some(MapCommand::Close),
            _ => None,
        },
        _ => None,
    }
}

fn overview(key: &Key, modifiers: Modifiers) -> Option<OverviewCommand> {
    match key {
        Key::Escape | Key::Tab => Some(OverviewCommand::Leave),
        Key::Enter if !modifiers.ctrl => Some(OverviewCommand::Open),
        Key::Down => Some(OverviewCommand::Step(1)),
        Key::Up => Some(OverviewCommand::Step(-1)),
        Key::Home => Some(OverviewCommand::Step(isize::MIN)),
        Key::End => Some(OverviewCommand::Step(isize::MAX)),
        Key::Character(text) if !modifiers.ctrl => match text.as_str() {
            "j" => Some(OverviewCommand::Step(1)),
            "k" => Some(OverviewCommand::Step(-1)),
            _ => None,
        },
        _ => None,
    }
}

fn search(key: &Key, modifiers: Modifiers) -> Option<SearchCommand> {
    match key {
        Key::Escape => Some(SearchCommand::Close),
        Key::Enter if modifiers.shift => Some(SearchCommand::Step(-1)),
        Key::Enter => Some(SearchCommand::Step(1)),
        Key::Down => Some(SearchCommand::Step(1)),
        Key::Up => Some(SearchCommand::Step(-1)),
        Key::Backspace => Some(SearchCommand::Erase),
        Key::Space => Some(SearchCommand::Type(" ".into())),
        Key::Character(text) if !modifiers.ctrl => Some(SearchCommand::Type(text.clone())),
        _ => None,
    }
}

fn typing(key: &Key, modifiers: Modifiers, multiline: bool) -> Option<Command> {
    let (ctrl, shift) = (modifiers.ctrl, modifiers.shift);
    let go = |motion| {
        Some(Command::Edit(EditCommand::Move {
            motion,
            select: shift,
        }))
    };
    match key {
        Key::Escape => Some(Command::Leave),
        Key::Backspace if ctrl => Some(Command::Edit(EditCommand::BackspaceWord)),
        Key::Backspace => Some(Command::Edit(EditCommand::Backspace)),
        Key::Delete => Some(Command::Edit(EditCommand::Delete)),
        Key::Enter if multiline => Some(Command::Edit(EditCommand::Newline)),
        Key::Enter => Some(Command::NextItem),
        Key::Left if ctrl => go(CaretMotion::WordLeft),
        Key::Right if ctrl => go(CaretMotion::WordRight),
        Key::Left => go(CaretMotion::Left),
        Key::Right => go(CaretMotion::Right),
        Key::Up => go(CaretMotion::Up),
        Key::Down => go(CaretMotion::Down),
        Key::Home => go(CaretMotion::Home),
        Key::End => go(CaretMotion::End),
        Key::Space => Some(Command::Edit(EditCommand::Insert(" ".into()))),
        Key::Character(text) if ctrl => match text.to_lowercase().as_str() {
            "a" => Some(Command::Edit(EditCommand::SelectAll)),
            "c" => Some(Command::Edit(EditCommand::Copy)),
            "x" => Some(Command::Edit(EditCommand::Cut)),
            "v" => Some(Command::Edit(EditCommand::Paste)),
            _ => None,
        },
        Key::Character(text) => Some(Command::Edit(EditCommand::Insert(text.clone()))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(key: Key) -> KeyPress {
        KeyPress {
            key,
            modifiers: Modifiers::default(),
        }
    }

    fn ch(text: &str) -> KeyPress {
        press(Key::Character(text.into()))
    }

    fn ctrl(key: Key) -> KeyPress {
        KeyPress {
            key,
            modifiers: Modifiers {
                ctrl: true,
                ..Modifiers::default()
            },
        }
    }

    const TYPING: KeyContext = KeyContext::Typing { multiline: false };

    #[test]
    fn tab_gives_the_overview_the_keyboard_whose_keys_move_and_open_its_rows() {
        assert_eq!(
            command_for(&press(Key::Tab), KeyContext::Browsing),
            Some(Command::FocusOverview)
        );
        assert_eq!(
            command_for(&press(Key::Tab), KeyContext::ChoiceItem { custom: false }),
            Some(Command::NextItem),
            "Tab still moves between a batch's items"
        );
        let overview = |press: KeyPress| command_for(&press, KeyContext::Overview);
        let step = |rows| Some(Command::Overview(OverviewCommand::Step(rows)));
        assert_eq!(overview(ch("j")), step(1));
        assert_eq!(overview(press(Key::Down)), step(1));
        assert_eq!(overview(ch("k")), step(-1));
        assert_eq!(overview(press(Key::Up)), step(-1));
        assert_eq!(
            overview(press(Key::Enter)),
            Some(Command::Overview(OverviewCommand::Open))
        );
        for leave in [Key::Tab, Key::Escape] {
            assert_eq!(
                overview(press(leave)),
                Some(Command::Overview(OverviewCommand::Leave))
            );
        }
        // The rest mean what they mean while browsing.
        assert_eq!(overview(ch("o")), Some(Command::NextOpenQuestion));
        assert_eq!(overview(ch("m")), Some(Command::ToggleMap));
    }

    #[test]
    fn slash_or_ctrl_f_opens_the_search_whose_keys_type_and_step_through_matches() {
        assert_eq!(
            command_for(&ch("/"), KeyContext::Browsing),
            Some(Command::OpenSearch)
        );
        assert_eq!(
            command_for(&ch("/"), TYPING),
            Some(Command::Edit(EditCommand::Insert("/".into())))
        );
        for context in [KeyContext::Browsing, TYPING, KeyContext::Search] {
            assert_eq!(
                command_for(&ctrl(Key::Character("f".into())), context),
                Some(Command::OpenSearch),
                "{context:?}"
            );
        }
        let search = |press: KeyPress| command_for(&press, KeyContext::Search);
        assert_eq!(
            search(ch("m")),
            Some(Command::Search(SearchCommand::Type("m".into())))
        );
        assert_eq!(
            search(ch("/")),
            Some(Command::Search(SearchCommand::Type("/".into())))
        );
        assert_eq!(
            search(press(Key::Enter)),
            Some(Command::Search(SearchCommand::Step(1)))
        );
        let shift_enter = KeyPress {
            key: Key::Enter,
            modifiers: Modifiers {
                shift: true,
                ..Modifiers::default()
            },
        };
        assert_eq!(
            search(shift_enter),
            Some(Command::Search(SearchCommand::Step(-1)))
        );
        assert_eq!(
            search(press(Key::Backspace)),
            Some(Command::Search(SearchCommand::Erase))
        );
        assert_eq!(
            search(press(Key::Escape)),
            Some(Command::Search(SearchCommand::Close))
        );
        // Keys that answer or decline do nothing while the bar has the keyboard.
        assert_eq!(search(ctrl(Key::Character("d".into()))), None);
    }

    #[test]
    fn m_opens_the_map_where_it_is_not_typed_and_its_keys_move_zoom_and_open() {
        for context in [
            KeyContext::Browsing,
            KeyContext::YesNoItem,
            KeyContext::Confirmation,
        ] {
            assert_eq!(command_for(&ch("m"), context), Some(Command::ToggleMap));
        }
        assert_eq!(
            command_for(&ch("m"), TYPING),
            Some(Command::Edit(EditCommand::Insert("m".into())))
        );
        assert_eq!(
            command_for(&ch("m"), KeyContext::ChoiceItem { custom: true }),
            Some(Command::TypeInto("m".into()))
        );
        let map = |press: KeyPress| command_for(&press, KeyContext::Map);
        let step = |step| Some(Command::Map(MapCommand::Step(step)));
        assert_eq!(map(ch("j")), step(MapStep::Next));
        assert_eq!(map(press(Key::Down)), step(MapStep::Next));
        assert_eq!(map(ch("k")), step(MapStep::Previous));
        assert_eq!(map(press(Key::Left)), step(MapStep::Parent));
        assert_eq!(map(press(Key::Right)), step(MapStep::FirstBranch));
        assert_eq!(map(press(Key::Enter)), Some(Command::Map(MapCommand::Open)));
        assert_eq!(
            map(ch("+")),
            Some(Command::Map(MapCommand::Zoom(MAP_ZOOM_STEP)))
        );
        assert_eq!(
            map(ch("-")),
            Some(Command::Map(MapCommand::Zoom(1.0 / MAP_ZOOM_STEP)))
        );
        assert_eq!(map(ch("0")), Some(Command::Map(MapCommand::Fit)));
        assert_eq!(map(ch("m")), Some(Command::Map(MapCommand::Close)));
        assert_eq!(
            map(press(Key::Escape)),
            Some(Command::Map(MapCommand::Close))
        );
        // Keys that answer or decline behind the map do nothing, or open, on it.
        assert_eq!(map(ctrl(Key::Enter)), Some(Command::Map(MapCommand::Open)));
        assert_eq!(map(ctrl(Key::Character("d".into()))), None);
        assert_eq!(map(ch("o")), None);
    }

    #[test]
    fn i_opens_the_inbox_wherever_it_is_not_a_letter_typed_and_its_keys_choose() {
        for context in [
            KeyContext::Browsing,
            KeyContext::YesNoItem,
            KeyContext::Confirmation,
            KeyContext::ChoiceItem { custom: false },
        ] {
            assert_eq!(
                command_for(&ch("i"), context),
                Some(Command::ToggleInbox),
                "{context:?}"
            );
        }
        assert_eq!(
            command_for(&ch("i"), TYPING),
            Some(Command::Edit(EditCommand::Insert("i".into())))
        );
        assert_eq!(
            command_for(&ch("i"), KeyContext::ChoiceItem { custom: true }),
            Some(Command::TypeInto("i".into()))
        );
        assert_eq!(
            command_for(&ch("i"), KeyContext::Switcher),
            Some(Command::Switcher(SwitcherCommand::Type("i".into())))
        );
        let inbox = |press: KeyPress| command_for(&press, KeyContext::Inbox);
        assert_eq!(inbox(ch("i")), Some(Command::Inbox(InboxCommand::Close)));
        assert_eq!(
            inbox(press(Key::Escape)),
            Some(Command::Inbox(InboxCommand::Close))
        );
        assert_eq!(inbox(ch("j")), Some(Command::Inbox(InboxCommand::Step(1))));
        assert_eq!(
            inbox(press(Key::Up)),
            Some(Command::Inbox(InboxCommand::Step(-1)))
        );
        assert_eq!(
            inbox(press(Key::Enter)),
            Some(Command::Inbox(InboxCommand::Answer))
        );
        // Keys that answer or decline behind the panel do nothing, or choose, in it.
        assert_eq!(
            inbox(ctrl(Key::Enter)),
            Some(Command::Inbox(InboxCommand::Answer))
        );
        assert_eq!(inbox(ctrl(Key::Character("d".into()))), None);
        assert_eq!(inbox(ch("y")), None);
        assert_eq!(inbox(ch("1")), None);
        assert_eq!(
            command_for(&ctrl(Key::Character("p".into())), KeyContext::Inbox),
            Some(Command::ToggleSwitcher)
        );
    }

    #[test]
    fn ctrl_p_opens_the_switcher_from_anywhere_and_its_keys_filter_and_choose() {
        for context in [
            KeyContext::Browsing,
            KeyContext::YesNoItem,
            TYPING,
            KeyContext::Switcher,
        ] {
            assert_eq!(
                command_for(&ctrl(Key::Character("p".into())), context),
                Some(Command::ToggleSwitcher),
                "{context:?}"
            );
        }
        let switcher = |press: KeyPress| command_for(&press, KeyContext::Switcher);
        // Letters that browse (j, o) or answer (y, 1) are filter text in the switcher.
        for letter in ["j", "o", "y", "1", "Ж"] {
            assert_eq!(
                switcher(ch(letter)),
                Some(Command::Switcher(SwitcherCommand::Type(letter.into())))
            );
        }
        assert_eq!(
            switcher(press(Key::Space)),
            Some(Command::Switcher(SwitcherCommand::Type(" ".into())))
        );
        assert_eq!(
            switcher(press(Key::Down)),
            Some(Command::Switcher(SwitcherCommand::Step(1)))
        );
        assert_eq!(
            switcher(press(Key::Up)),
            Some(Command::Switcher(SwitcherCommand::Step(-1)))
        );
        assert_eq!(
            switcher(press(Key::Enter)),
            Some(Command::Switcher(SwitcherCommand::Open))
        );
        // Ctrl+Enter submits an answer elsewhere; here it must not reach the question behind.
        assert_eq!(
            switcher(ctrl(Key::Enter)),
            Some(Command::Switcher(SwitcherCommand::Open))
        );
        assert_eq!(
            switcher(press(Key::Escape)),
            Some(Command::Switcher(SwitcherCommand::Close))
        );
        assert_eq!(
            switcher(press(Key::Backspace)),
            Some(Command::Switcher(SwitcherCommand::Erase))
        );
        assert_eq!(switcher(ctrl(Key::Character("d".into()))), None);
    }

    #[test]
    fn browsing_keys_move_between_cards_and_threads() {
        let at = KeyContext::Browsing;
        assert_eq!(command_for(&ch("j"), at), Some(Command::NextCard));
        assert_eq!(
            command_for(&press(Key::Up), at),
            Some(Command::PreviousCard)
        );
        assert_eq!(command_for(&press(Key::Enter), at), Some(Command::DrillIn));
        assert_eq!(command_for(&press(Key::Backspace), at), Some(Command::Back));
        let alt_left = KeyPress {
            key: Key::Left,
            modifiers: Modifiers {
                alt: true,
                ..Modifiers::default()
            },
        };
        assert_eq!(command_for(&alt_left, at), Some(Command::Back));
        assert_eq!(command_for(&ch("o"), at), Some(Command::NextOpenQuestion));
        assert_eq!(command_for(&press(Key::End), at), Some(Command::Bottom));
        assert_eq!(command_for(&ch("1"), at), None, "no item to pick for");
    }

    #[test]
    fn question_keys_pick_answer_and_skip() {
        let choice = KeyContext::ChoiceItem { custom: false };
        assert_eq!(command_for(&ch("3"), choice), Some(Command::Pick(3)));
        assert_eq!(command_for(&ch("s"), choice), Some(Command::Skip));
        assert_eq!(command_for(&ch("y"), choice), None);
        assert_eq!(
            command_for(&ch("y"), KeyContext::YesNoItem),
            Some(Command::YesNo(true))
        );
        assert_eq!(
            command_for(&ch("n"), KeyContext::YesNoItem),
            Some(Command::YesNo(false))
        );
        let shift_tab = KeyPress {
            key: Key::Tab,
            modifiers: Modifiers {
                shift: true,
                ..Modifiers::default()
            },
        };
        assert_eq!(command_for(&shift_tab, choice), Some(Command::PreviousItem));
        assert_eq!(
            command_for(&press(Key::Escape), choice),
            Some(Command::Leave)
        );
        assert_eq!(
            command_for(&ctrl(Key::Enter), choice),
            Some(Command::Submit)
        );
    }

    #[test]
    fn a_choice_with_a_custom_answer_starts_typing_on_a_letter() {
        let choice = KeyContext::ChoiceItem { custom: true };
        assert_eq!(
            command_for(&ch("д"), choice),
            Some(Command::TypeInto("д".into()))
        );
        assert_eq!(
            command_for(&press(Key::Enter), choice),
            Some(Command::EditField)
        );
        assert_eq!(command_for(&ch("2"), choice), Some(Command::Pick(2)));
    }

    #[test]
    fn while_typing_letters_are_text_and_commands_need_modifiers() {
        for letter in ["s", "o", "j", "1", "y"] {
            assert_eq!(
                command_for(&ch(letter), TYPING),
                Some(Command::Edit(EditCommand::Insert(letter.into())))
            );
        }
        assert_eq!(
            command_for(&ctrl(Key::Enter), TYPING),
            Some(Command::Submit)
        );
        assert_eq!(
            command_for(&press(Key::Escape), TYPING),
            Some(Command::Leave)
        );
        assert_eq!(
            command_for(&press(Key::Tab), TYPING),
            Some(Command::NextItem)
        );
        assert_eq!(
            command_for(&ctrl(Key::Character("v".into())), TYPING),
            Some(Command::Edit(EditCommand::Paste))
        );
        assert_eq!(
            command_for(&ctrl(Key::Backspace), TYPING),
            Some(Command::Edit(EditCommand::BackspaceWord))
        );
    }

    #[test]
    fn ctrl_o_opens_the_attachment_wherever_the_keyboard_is() {
        let typing = KeyContext::Typing { multiline: true };
        for context in [
            KeyContext::Browsing,
            KeyContext::ChoiceItem { custom: true },
            KeyContext::Confirmation,
            typing,
        ] {
            assert_eq!(
                command_for(&ctrl(Key::Character("o".into())), context),
                Some(Command::OpenAttachment),
                "{context:?}"
            );
        }
        assert_eq!(
            command_for(&ch("o"), typing),
            Some(Command::Edit(EditCommand::Insert("o".into())))
        );
    }

    #[test]
    fn enter_breaks_lines_only_in_multiline_fields() {
        let multi = KeyContext::Typing { multiline: true };
        assert_eq!(
            command_for(&press(Key::Enter), multi),
            Some(Command::Edit(EditCommand::Newline))
        );
        assert_eq!(
            command_for(&press(Key::Enter), TYPING),
            Some(Command::NextItem)
        );
    }

    #[test]
    fn confirmations_accept_with_ctrl_enter_and_decline_with_ctrl_d_never_ctrl_backspace() {
        let comment = KeyContext::Typing { multiline: false };
        assert_eq!(
            command_for(&ctrl(Key::Backspace), comment),
            Some(Command::Edit(EditCommand::BackspaceWord)),
            "Ctrl+Backspace in a comment deletes a word"
        );
        assert_eq!(
            command_for(&ctrl(ch("d").key), comment),
            Some(Command::Decline)
        );
        assert_eq!(
            command_for(&ctrl(ch("d").key), KeyContext::Confirmation),
            Some(Command::Decline)
        );
        assert_eq!(
            command_for(&ctrl(Key::Backspace), KeyContext::Confirmation),
            None
        );
        assert_eq!(
            command_for(&ctrl(Key::Enter), KeyContext::Confirmation),
            Some(Command::Submit)
        );
        let ctrl_shift_enter = KeyPress {
            key: Key::Enter,
            modifiers: Modifiers {
                ctrl: true,
                shift: true,
                alt: false,
            },
        };
        for context in [KeyContext::Confirmation, comment] {
            assert_eq!(
                command_for(&ctrl_shift_enter, context),
                Some(Command::AcceptAlways)
            );
        }
        assert_eq!(
            command_for(&ch("y"), KeyContext::Confirmation),
            None,
            "never a chat yes"
        );
    }
}
