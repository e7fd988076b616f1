//! What the operator is answering right now, as the layout must show it.
//!
//! The window keeps the operator's working answer (chosen options, text typed so far, where the
//! caret is) and hands it to the pipeline as an [`AnswerView`] inside the intent. Layout then
//! draws that card from the view instead of from the last saved draft, rings the focused item
//! and draws the caret. Cards report what each of their parts is as a [`CardHit`], so a click
//! can be turned into the same action as a key. This module only describes; it never edits an
//! answer and never writes to the log.

use chatsurface_model::{ClarificationResponse, History, NodeRef};

/// A text field inside an open question card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnswerField {
    /// The answer to a batch item (for a choice item: its custom text).
    Item(usize),
    /// The batch's general note.
    General,
    /// A confirmation's comment.
    Comment,
}

/// Where the caret and selection are in the field being typed into, as byte offsets into
/// its text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldCaret {
    /// The caret.
    pub caret: usize,
    /// The selected range, if any (start < end).
    pub selection: Option<(usize, usize)>,
    /// Text being composed by an input method, shown at the caret but not yet typed.
    pub preedit: Option<String>,
}

/// The open question the operator is working on.
#[derive(Clone, Debug, PartialEq)]
pub struct AnswerView {
    /// The snapshot the node points into.
    pub history: History,
    /// The batch or confirmation.
    pub node: NodeRef,
    /// The focused part: an item, the general note or the comment; `None` for the card as a
    /// whole.
    pub focus: Option<AnswerField>,
    /// The caret, while the focused part is a field being typed into.
    pub editing: Option<FieldCaret>,
    /// The working answer of a batch (empty for a confirmation).
    pub draft: ClarificationResponse,
    /// The working comment of a confirmation (empty for a batch).
    pub comment: String,
    /// Changes whenever anything above changes, so a cached card is laid out again.
    pub revision: u64,
}

/// What a part of a card is, for the pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardHit {
    /// A batch item as a whole.
    Item(usize),
    /// Option `option` of choice item `item`.
    Choice {
        /// The item.
        item: usize,
        /// The option's index.
        option: usize,
    },
    /// The yes or no pill of a yes/no item.
    YesNo {
        /// The item.
        item: usize,
        /// Whether it is the yes pill.
        yes: bool,
    },
    /// A text field.
    Field(AnswerField),
    /// A confirmation's accept button.
    Accept,
    /// A confirmation's "accept for good" button (its `accept_always` answer).
    AcceptAlways,
    /// A confirmation's decline button.
    Decline,
    /// A batch's submit button.
    Submit,
    /// A batch's "skip all" button: every item sent as skipped.
    SkipAll,
    /// The line naming the question's attachment.
    Attachment,
}
