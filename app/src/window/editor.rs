//! The text field being typed into: a cosmic-text [`Editor`] and the system clipboard.
//!
//! cosmic-text's editor owns the hard parts of text editing (grapheme-aware caret motion, word
//! jumps, selection, line breaks), so this module only translates our [`EditCommand`]s into its
//! actions and reads back the text and the caret as byte offsets, which is what the compositor
//! draws. Input-method composition is held here as preedit text until it is committed. The
//! editor never writes anywhere: the answer state copies its text into the working answer.

use chatsurface_compositor::FieldCaret;
use cosmic_text::{Action, Buffer, Cursor, Edit, Editor, FontSystem, Metrics, Motion, Selection};

/// An editing command, after the keymap has decided that a key press edits text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum EditCommand {
    /// Insert text at the caret, replacing the selection.
    Insert(String),
    /// A line break (multi-line fields only; elsewhere ignored).
    Newline,
    /// Delete the character before the caret, or the selection.
    Backspace,
    /// Delete the character after the caret, or the selection.
    Delete,
    /// Delete the word before the caret.
    BackspaceWord,
    /// Move the caret; `select` extends the selection.
    Move {
        /// Where to.
        motion: CaretMotion,
        /// Whether the selection follows.
        select: bool,
    },
    /// Select everything.
    SelectAll,
    /// Copy the selection to the clipboard.
    Copy,
    /// Copy the selection to the clipboard and delete it.
    Cut,
    /// Insert the clipboard's text.
    Paste,
}

/// Caret motions the keymap can ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CaretMotion {
    /// One character left.
    Left,
    /// One character right.
    Right,
    /// One word left.
    WordLeft,
    /// One word right.
    WordRight,
    /// One line up.
    Up,
    /// One line down.
    Down,
    /// Start of the line.
    Home,
    /// End of the line.
    End,
}

/// Where copied text goes and pasted text comes from.
pub(super) trait Clipboard {
    /// The clipboard's text, if it holds any.
    fn text(&mut self) -> Option<String>;
    /// Puts text on the clipboard.
    fn set_text(&mut self, text: String);
}

/// One field's editor.
pub(super) struct FieldEditor {
    editor: Editor<'static>,
    multiline: bool,
    preedit: Option<String>,
}

impl std::fmt::Debug for FieldEditor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FieldEditor")
            .field("text", &self.text())
            .field("multiline", &self.multiline)
            .finish()
    }
}

impl FieldEditor {
    /// An editor holding `text`, with the caret at its end.
    pub(super) fn new(fonts: &mut FontSystem, text: &str, multiline: bool) -> FieldEditor {
        let mut buffer = Buffer::new(fonts, Metrics::new(14.0, 20.0));
        buffer.set_size(Some(100_000.0), None);
        let mut editor = Editor::new(buffer);
        editor.insert_string(&single_line_if(text, multiline), None);
        editor.action(fonts, Action::Motion(Motion::BufferEnd));
        FieldEditor {
            editor,
            multiline,
            preedit: None,
        }
    }

    /// The field's text.
    pub(super) fn text(&self) -> String {
        self.editor.with_buffer(|buffer| {
            buffer
                .lines
                .iter()
                .map(|line| line.text())
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    fn offset(&self, cursor: Cursor) -> usize {
        self.editor.with_buffer(|buffer| {
            buffer
                .lines
                .iter()
                .take(cursor.line)
                .map(|line| line.text().len() + 1)
                .sum::<usize>()
                + cursor.index
        })
    }

    /// The caret, the selection and the preedit, for drawing.
    pub(super) fn caret(&self) -> FieldCaret {
        let selection = self
            .editor
            .selection_bounds()
            .map(|(start, end)| (self.offset(start), self.offset(end)))
            .filter(|(start, end)| start < end);
        FieldCaret {
            caret: self.offset(self.editor.cursor()),
            selection,
            preedit: self.preedit.clone(),
        }
    }

    /// Shows input-method composition at the caret (`None` or empty ends it).
    pub(super) fn set_preedit(&mut self, preedit: Option<String>) {
        self.preedit = preedit.filter(|text| !text.is_empty());
    }

    /// Applies a command; returns whether the text changed.
    pub(super) fn apply(
        &mut self,
        fonts: &mut FontSystem,
        command: EditCommand,
        clipboard: &mut dyn Clipboard,
    ) -> bool {
        let before = self.text();
        match command {
            EditCommand::Insert(text) => {
                self.preedit = None;
                self.editor
                    .insert_string(&single_line_if(&text, self.multiline), None);
            }
            EditCommand::Newline => {
                if self.multiline {
                    self.editor.action(fonts, Action::Enter);
                }
            }
            EditCommand::Backspace => self.editor.action(fonts, Action::Backspace),
            EditCommand::Delete => self.editor.action(fonts, Action::Delete),
            EditCommand::BackspaceWord => {
                if !self.editor.delete_selection() {
                    let end = self.editor.cursor();
                    self.editor
                        .action(fonts, Action::Motion(Motion::PreviousWord));
                    let start = self.editor.cursor();
                    self.editor.delete_range(start, end);
                    self.editor.set_cursor(start);
                }
            }
            EditCommand::Move { motion, select } => {
                let cursor = self.editor.cursor();
                match (select, self.editor.selection()) {
                    (true, Selection::None) => self.editor.set_selection(Selection::Normal(cursor)),
                    (false, Selection::Normal(_)) => self.editor.set_selection(Selection::None),
                    _ => {}
                }
                let motion = match motion {
                    CaretMotion::Left => Motion::Previous,
                    CaretMotion::Right => Motion::Next,
                    CaretMotion::WordLeft => Motion::PreviousWord,
                    CaretMotion::WordRight => Motion::NextWord,
                    CaretMotion::Up => Motion::Up,
                    CaretMotion::Down => Motion::Down,
                    CaretMotion::Home => Motion::Home,
                    CaretMotion::End => Motion::End,
                };
                self.editor.action(fonts, Action::Motion(motion));
            }
            EditCommand::SelectAll => {
                self.editor
                    .action(fonts, Action::Motion(Motion::BufferStart));
                let start = self.editor.cursor();
                self.editor.set_selection(Selection::Normal(start));
                self.editor.action(fonts, Action::Motion(Motion::BufferEnd));
            }
            EditCommand::Copy => {
                if let Some(text) = self.editor.copy_selection() {
                    clipboard.set_text(text);
                }
            }
            EditCommand::Cut => {
                if let Some(text) = self.editor.copy_selection() {
                    clipboard.set_text(text);
                    self.editor.delete_selection();
                }
            }
            EditCommand::Paste => {
                if let Some(text) = clipboard.text() {
                    self.editor
                        .insert_string(&single_line_if(&text, self.multiline), None);
                }
            }
        }
        self.text() != before
    }
}

/// A single-line field keeps pasted line breaks as spaces.
fn single_line_if(text: &str, multiline: bool) -> String {
    if multiline {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text.replace("\r\n", " ").replace(['\r', '\n'], " ")
    }
}

/// A clipboard held in memory: for tests, and where no system clipboard can be reached.
#[derive(Debug, Default)]
pub(super) struct MemoryClipboard(pub Option<String>);

impl Clipboard for MemoryClipboard {
    fn text(&mut self) -> Option<String> {
        self.0.clone()
    }

    fn set_text(&mut self, text: String) {
        self.0 = Some(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chatsurface_compositor::{FontSet, TextSystem};

    fn run(editor: &mut FieldEditor, commands: Vec<EditCommand>) -> MemoryClipboard {
        let mut text = TextSystem::new(FontSet::BundledOnly);
        let mut clipboard = MemoryClipboard::default();
        for command in commands {
            editor.apply(text.font_system(), command, &mut clipboard);
        }
        clipboard
    }

    fn editor(text: &str, multiline: bool) -> FieldEditor {
        let mut fonts = TextSystem::new(FontSet::BundledOnly);
        FieldEditor::new(fonts.font_system(), text, multiline)
    }

    fn go(motion: CaretMotion, select: bool) -> EditCommand {
        EditCommand::Move { motion, select }
    }

    #[test]
    fn typing_inserts_at_the_caret_and_backspace_deletes_graphemes() {
        let mut field = editor("Привет", false);
        run(
            &mut field,
            vec![
                go(CaretMotion::Left, false),
                EditCommand::Insert("-".into()),
                EditCommand::Backspace,
                EditCommand::Backspace,
            ],
        );
        assert_eq!(field.text(), "Привт");
        assert_eq!(field.caret().caret, "Прив".len());
    }

    #[test]
    fn a_selection_is_reported_in_bytes_and_replaced_by_typing() {
        let mut field = editor("alpha beta", false);
        run(
            &mut field,
            vec![go(CaretMotion::WordLeft, true), go(CaretMotion::Left, true)],
        );
        assert_eq!(field.caret().selection, Some((5, 10)));
        run(&mut field, vec![EditCommand::Insert("!".into())]);
        assert_eq!(field.text(), "alpha!");
    }

    #[test]
    fn copy_cut_and_paste_go_through_the_clipboard() {
        let mut field = editor("one two", false);
        let clipboard = run(
            &mut field,
            vec![
                go(CaretMotion::WordLeft, true),
                EditCommand::Cut,
                go(CaretMotion::Home, false),
            ],
        );
        assert_eq!(clipboard.0.as_deref(), Some("two"));
        assert_eq!(field.text(), "one ");
        let mut fonts = TextSystem::new(FontSet::BundledOnly);
        let mut clipboard = MemoryClipboard(Some("line1\nline2".into()));
        field.apply(fonts.font_system(), EditCommand::Paste, &mut clipboard);
        assert_eq!(
            field.text(),
            "line1 line2one ",
            "single-line paste loses its breaks"
        );
    }

    #[test]
    fn newline_only_in_multiline_fields() {
        let mut single = editor("a", false);
        run(&mut single, vec![EditCommand::Newline]);
        assert_eq!(single.text(), "a");
        let mut multi = editor("a", true);
        run(
            &mut multi,
            vec![EditCommand::Newline, EditCommand::Insert("b".into())],
        );
        assert_eq!(multi.text(), "a\nb");
        assert_eq!(multi.caret().caret, 3);
    }

    #[test]
    fn select_all_then_delete_empties_the_field_and_word_backspace_eats_a_word() {
        let mut field = editor("keep these words", false);
        run(&mut field, vec![EditCommand::BackspaceWord]);
        assert_eq!(field.text(), "keep these ");
        run(
            &mut field,
            vec![EditCommand::SelectAll, EditCommand::Delete],
        );
        assert_eq!(field.text(), "");
    }

    #[test]
    fn preedit_is_shown_until_committed() {
        let mut field = editor("", false);
        field.set_preedit(Some("にほ".into()));
        assert_eq!(field.caret().preedit.as_deref(), Some("にほ"));
        run(&mut field, vec![EditCommand::Insert("日本".into())]);
        assert_eq!(field.caret().preedit, None);
        assert_eq!(field.text(), "日本");
    }
}
