//! The operator's working answer to one open question, and the events it becomes.
//!
//! While the operator answers a batch item by item, the answer lives here: which part has
//! focus, the options picked, the text typed (through a [`FieldEditor`]) and whether anything
//! changed since the last saved draft. Nothing reaches the log from here directly: the window
//! asks for a `draft_saved` event when its debounce timer fires, and for the one
//! `clarification_answer_submitted` or `confirmation_resolved` event when the operator submits.
//! The compositor draws the card from [`Answering::view`].

use super::editor::{Clipboard, EditCommand, FieldEditor};
use super::keymap::KeyContext;
use chatsurface_compositor::{AnswerField, AnswerView};
use chatsurface_model::{
    validate_response, AnswerKind, BatchSpec, ClarificationResponse, ConfirmationOutcome,
    EventBody, History, ItemAnswer, NodeRef, OptionId, Snapshot,
};
use cosmic_text::FontSystem;

/// The question being answered: a batch or a confirmation, by index into the snapshot whose
/// history it names. Every method must be handed that snapshot (the window checks
/// [`Answering::history`] first): an index means nothing in another.
#[derive(Debug)]
pub(super) struct Answering {
    history: History,
    node: NodeRef,
    focus: Option<AnswerField>,
    editor: Option<FieldEditor>,
    draft: ClarificationResponse,
    comment: String,
    revision: u64,
    unsaved: bool,
}

impl Answering {
    /// Starts answering an open question, from its saved draft if it has one. Focus goes to
    /// the first item without an answer (a confirmation's comment field, if it takes one).
    pub(super) fn open(
        snapshot: &Snapshot,
        node: NodeRef,
        fonts: &mut FontSystem,
    ) -> Option<Answering> {
        if !snapshot.is_open_question(node) {
            return None;
        }
        let mut answering = Answering {
            history: snapshot.history,
            node,
            focus: None,
            editor: None,
            draft: ClarificationResponse::default(),
            comment: String::new(),
            revision: 1,
            unsaved: false,
        };
        match node {
            NodeRef::Batch(index) => {
                let batch = &snapshot.batches[index];
                answering.draft = batch.draft.clone().unwrap_or_default();
                let first_open = batch
                    .spec
                    .items
                    .iter()
                    .position(|item| answering.draft.answer(&item.id).is_none())
                    .unwrap_or(0);
                answering.focus_part(snapshot, Some(AnswerField::Item(first_open)), fonts);
            }
            NodeRef::Confirmation(index) if snapshot.confirmations[index].spec.comment => {
                answering.focus_part(snapshot, Some(AnswerField::Comment), fonts);
            }
            _ => {}
        }
        Some(answering)
    }

    /// The question being answered.
    pub(super) fn node(&self) -> NodeRef {
        self.node
    }

    /// The part with the focus: an item, the general note or the comment.
    pub(super) fn focus(&self) -> Option<AnswerField> {
        self.focus
    }

    /// The snapshot the question's index points into.
    pub(super) fn history(&self) -> History {
        self.history
    }

    /// Whether a field is being typed into.
    pub(super) fn is_typing(&self) -> bool {
        self.editor.is_some()
    }

    /// What the compositor draws.
    pub(super) fn view(&self) -> AnswerView {
        AnswerView {
            history: self.history,
            node: self.node,
            focus: self.focus,
            editing: self.editor.as_ref().map(FieldEditor::caret),
            draft: self.draft.clone(),
            comment: self.comment.clone(),
            revision: self.revision,
        }
    }

    fn batch<'s>(&self, snapshot: &'s Snapshot) -> Option<&'s BatchSpec> {
        match self.node {
            NodeRef::Batch(index) => snapshot.batches.get(index).map(|batch| &batch.spec),
            _ => None,
        }
    }

    /// The keymap's context for what has focus now.
    pub(super) fn context(&self, snapshot: &Snapshot) -> KeyContext {
        if self.editor.is_some() {
            let multiline = match self.focus {
                Some(AnswerField::Item(item)) => self
                    .batch(snapshot)
                    .is_some_and(|batch| batch.items[item].kind == AnswerKind::Multiline),
                Some(AnswerField::General) => true,
                _ => false,
            };
            return KeyContext::Typing { multiline };
        }
        match (self.node, self.focus) {
            (NodeRef::Confirmation(_), _) => KeyContext::Confirmation,
            (_, Some(AnswerField::Item(item))) => match self.batch(snapshot) {
                Some(batch) => match batch.items[item].kind {
                    AnswerKind::Choice => KeyContext::ChoiceItem {
                        custom: batch.items[item].custom,
                    },
                    AnswerKind::YesNo => KeyContext::YesNoItem,
                    AnswerKind::Text | AnswerKind::Multiline => {
                        KeyContext::ChoiceItem { custom: false }
                    }
                },
                None => KeyContext::Browsing,
            },
            _ => KeyContext::ChoiceItem { custom: false },
        }
    }

    fn changed(&mut self) {
        self.revision += 1;
    }

    fn answered(&mut self) {
        self.revision += 1;
        self.unsaved = true;
    }

    /// Moves focus to a part; a text part gets the caret at once.
    pub(super) fn focus_part(
        &mut self,
        snapshot: &Snapshot,
        part: Option<AnswerField>,
        fonts: &mut FontSystem,
    ) {
        self.focus = part;
        self.editor = None;
        let (text, multiline) = match (part, self.batch(snapshot)) {
            (Some(AnswerField::Item(item)), Some(batch)) => {
                let spec = &batch.items[item];
                let text = self
                    .draft
                    .answer(&spec.id)
                    .and_then(|answer| answer.text.clone());
                match spec.kind {
                    AnswerKind::Text => (Some(text.unwrap_or_default()), false),
                    AnswerKind::Multiline => (Some(text.unwrap_or_default()), true),
                    _ => (None, false),
                }
            }
            (Some(AnswerField::General), _) => {
                (Some(self.draft.general.clone().unwrap_or_default()), true)
            }
            (Some(AnswerField::Comment), _) => (Some(self.comment.clone()), false),
            _ => (None, false),
        };
        if let Some(text) = text {
            self.editor = Some(FieldEditor::new(fonts, &text, multiline));
        }
        self.changed();
    }

    fn parts(&self, snapshot: &Snapshot) -> Vec<AnswerField> {
        match (self.node, self.batch(snapshot)) {
            (NodeRef::Batch(_), Some(batch)) => {
                let mut parts: Vec<_> = (0..batch.items.len()).map(AnswerField::Item).collect();
                if batch.general_field {
                    parts.push(AnswerField::General);
                }
                parts
            }
            (NodeRef::Confirmation(index), _) => {
                if snapshot.confirmations[index].spec.comment {
                    vec![AnswerField::Comment]
                } else {
                    Vec::new()
                }
            }
            _ => Vec::new(),
        }
    }

    /// Focuses the next (or, with `forward` false, previous) part, wrapping around.
    pub(super) fn step(&mut self, snapshot: &Snapshot, forward: bool, fonts: &mut FontSystem) {
        let parts = self.parts(snapshot);
        if parts.is_empty() {
            return;
        }
        let current = self
            .focus
            .and_then(|focus| parts.iter().position(|part| *part == focus));
        let next = match (current, forward) {
            (None, _) => 0,
            (Some(at), true) => (at + 1) % parts.len(),
            (Some(at), false) => (at + parts.len() - 1) % parts.len(),
        };
        self.focus_part(snapshot, Some(parts[next]), fonts);
    }

    fn answer_mut(&mut self, snapshot: &Snapshot, item: usize) -> Option<&mut ItemAnswer> {
        let batch = self.batch(snapshot)?;
        let id = batch.items.get(item)?.id.clone();
        let order = |answer: &ItemAnswer| {
            batch
                .items
                .iter()
                .position(|item| item.id == answer.item_id)
        };
        if self.draft.answer(&id).is_none() {
            self.draft.answers.push(ItemAnswer {
                item_id: id.clone(),
                ..ItemAnswer::default()
            });
            self.draft.answers.sort_by_key(order);
        }
        self.draft
            .answers
            .iter_mut()
            .find(|answer| answer.item_id == id)
    }

    fn focused_item(&self) -> Option<usize> {
        match self.focus {
            Some(AnswerField::Item(item)) => Some(item),
            _ => None,
        }
    }

    /// Picks option `number` (1-based) of the focused choice item; toggles when it allows
    /// several. Returns whether anything changed.
    pub(super) fn pick(&mut self, snapshot: &Snapshot, number: usize) -> bool {
        let Some(item) = self.focused_item() else {
            return false;
        };
        let Some(spec) = self.batch(snapshot).map(|batch| batch.items[item].clone()) else {
            return false;
        };
        let Some(option) = spec.options.get(number.wrapping_sub(1)) else {
            return false;
        };
        if spec.kind != AnswerKind::Choice {
            return false;
        }
        let Some(answer) = self.answer_mut(snapshot, item) else {
            return false;
        };
        answer.skipped = false;
        let chosen = answer.selected.iter().position(|id| *id == option.id);
        match (spec.multiple, chosen) {
            (true, Some(at)) => {
                answer.selected.remove(at);
            }
            (true, None) => answer.selected.push(option.id.clone()),
            (false, _) => answer.selected = vec![option.id.clone()],
        }
        if spec.multiple {
            let order = |id: &OptionId| spec.options.iter().position(|option| option.id == *id);
            answer.selected.sort_by_key(order);
        }
        self.prune();
        self.answered();
        true
    }

    /// Answers the focused yes/no item.
    pub(super) fn yes_no(&mut self, snapshot: &Snapshot, yes: bool) -> bool {
        let Some(item) = self.focused_item() else {
            return false;
        };
        if self
            .batch(snapshot)
            .is_none_or(|batch| batch.items[item].kind != AnswerKind::YesNo)
        {
            return false;
        }
        let Some(answer) = self.answer_mut(snapshot, item) else {
            return false;
        };
        answer.skipped = false;
        answer.selected = vec![OptionId::from(if yes { "yes" } else { "no" })];
        self.answered();
        true
    }

    /// Marks the focused item skipped, dropping whatever it held.
    pub(super) fn skip(&mut self, snapshot: &Snapshot, fonts: &mut FontSystem) -> bool {
        let Some(item) = self.focused_item() else {
            return false;
        };
        let Some(answer) = self.answer_mut(snapshot, item) else {
            return false;
        };
        *answer = ItemAnswer {
            item_id: answer.item_id.clone(),
            skipped: true,
            ..ItemAnswer::default()
        };
        self.answered();
        self.step(snapshot, true, fonts);
        true
    }

    /// Puts the caret into the focused choice item's custom field.
    pub(super) fn edit_custom(&mut self, snapshot: &Snapshot, fonts: &mut FontSystem) -> bool {
        let Some(item) = self.focused_item() else {
            return false;
        };
        let Some(spec) = self.batch(snapshot).map(|batch| &batch.items[item]) else {
            return false;
        };
        if !(spec.kind == AnswerKind::Choice && spec.custom) {
            return false;
        }
        let text = self
            .draft
            .answer(&spec.id)
            .and_then(|answer| answer.text.clone())
            .unwrap_or_default();
        self.editor = Some(FieldEditor::new(fonts, &text, false));
        self.changed();
        true
    }

    /// Leaves the field being typed into; returns false when there was none.
    pub(super) fn leave_field(&mut self) -> bool {
        if self.editor.take().is_some() {
            self.changed();
            true
        } else {
            false
        }
    }

    /// Shows input-method composition in the field being typed into.
    pub(super) fn set_preedit(&mut self, preedit: Option<String>) {
        if let Some(editor) = &mut self.editor {
            editor.set_preedit(preedit);
            self.changed();
        }
    }

    /// Edits the field being typed into and copies its text into the working answer.
    pub(super) fn edit(
        &mut self,
        snapshot: &Snapshot,
        command: EditCommand,
        fonts: &mut FontSystem,
        clipboard: &mut dyn Clipboard,
    ) -> bool {
        let Some(editor) = &mut self.editor else {
            return false;
        };
        let text_changed = editor.apply(fonts, command, clipboard);
        let text = editor.text();
        if text_changed {
            let value = Some(text).filter(|text| !text.is_empty());
            match self.focus {
                Some(AnswerField::Item(item)) => {
                    if let Some(answer) = self.answer_mut(snapshot, item) {
                        answer.skipped = false;
                        answer.text = value;
                    }
                    self.prune();
                }
                Some(AnswerField::General) => self.draft.general = value,
                Some(AnswerField::Comment) => self.comment = value.unwrap_or_default(),
                None => {}
            }
            self.answered();
        } else {
            self.changed();
        }
        true
    }

    /// Drops answers that hold nothing (an unpicked option, an emptied field).
    fn prune(&mut self) {
        self.draft.answers.retain(|answer| {
            answer.skipped || !answer.selected.is_empty() || answer.text.is_some()
        });
    }

    /// The `draft_saved` event for changes not yet saved, if any; marks them saved.
    pub(super) fn take_draft(&mut self, snapshot: &Snapshot) -> Option<EventBody> {
        if !self.unsaved {
            return None;
        }
        let batch = self.batch(snapshot)?;
        self.unsaved = false;
        Some(EventBody::DraftSaved {
            batch_id: batch.id.clone(),
            answers: self.draft.answers.clone(),
            general: self.draft.general.clone(),
        })
    }

    /// Whether there are changes a draft would save.
    pub(super) fn has_unsaved_draft(&self) -> bool {
        self.unsaved && matches!(self.node, NodeRef::Batch(_))
    }

    /// The event that submits a batch (every item left unanswered is sent as skipped) or
    /// accepts a confirmation, or why it cannot be sent.
    pub(super) fn submission(&self, snapshot: &Snapshot) -> Result<EventBody, String> {
        match self.node {
            NodeRef::Batch(index) => {
                let spec = &snapshot.batches[index].spec;
                let answers: Vec<ItemAnswer> = spec
                    .items
                    .iter()
                    .map(|item| {
                        self.draft.answer(&item.id).cloned().unwrap_or(ItemAnswer {
                            item_id: item.id.clone(),
                            skipped: true,
                            ..ItemAnswer::default()
                        })
                    })
                    .collect();
                let response = ClarificationResponse {
                    answers,
                    general: self.draft.general.clone().filter(|text| !text.is_empty()),
                };
                validate_response(spec, &response).map_err(|error| error.to_string())?;
                Ok(EventBody::ClarificationAnswerSubmitted {
                    batch_id: spec.id.clone(),
                    answers: response.answers,
                    general: response.general,
                })
            }
            NodeRef::Confirmation(index) => {
                Ok(self.resolution(snapshot, index, ConfirmationOutcome::Accepted, false))
            }
            _ => Err("nothing to submit".to_owned()),
        }
    }

    /// The event that answers a batch with every item skipped (and no note), whatever was
    /// drafted, or why it cannot be sent.
    pub(super) fn skip_all(&self, snapshot: &Snapshot) -> Result<EventBody, String> {
        let spec = self
            .batch(snapshot)
            .ok_or_else(|| "only a batch can be skipped".to_owned())?;
        let response = ClarificationResponse {
            answers: spec
                .items
                .iter()
                .map(|item| ItemAnswer {
                    item_id: item.id.clone(),
                    skipped: true,
                    ..ItemAnswer::default()
                })
                .collect(),
            general: None,
        };
        validate_response(spec, &response).map_err(|error| error.to_string())?;
        Ok(EventBody::ClarificationAnswerSubmitted {
            batch_id: spec.id.clone(),
            answers: response.answers,
            general: None,
        })
    }

    /// The event that declines a confirmation, with the comment typed so far.
    pub(super) fn decline(&self, snapshot: &Snapshot) -> Option<EventBody> {
        match self.node {
            NodeRef::Confirmation(index) => {
                Some(self.resolution(snapshot, index, ConfirmationOutcome::Declined, false))
            }
            _ => None,
        }
    }

    /// The event that accepts a confirmation for good (its `accept_always` answer), with the
    /// comment typed so far.
    pub(super) fn accept_always(&self, snapshot: &Snapshot) -> Result<EventBody, String> {
        match self.node {
            NodeRef::Confirmation(index)
                if snapshot.confirmations[index].spec.accept_always.is_some() =>
            {
                Ok(self.resolution(snapshot, index, ConfirmationOutcome::Accepted, true))
            }
            _ => Err("this question offers no \"always\" answer".to_owned()),
        }
    }

    fn resolution(
        &self,
        snapshot: &Snapshot,
        index: usize,
        outcome: ConfirmationOutcome,
        always: bool,
    ) -> EventBody {
        EventBody::ConfirmationResolved {
            confirmation_id: snapshot.confirmations[index].spec.id.clone(),
            outcome,
            comment: Some(self.comment.trim().to_owned()).filter(|comment| !comment.is_empty()),
            always,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::editor::MemoryClipboard;
    use chatsurface_compositor::{FontSet, TextSystem};
    use chatsurface_model::read_log;

    fn snapshot() -> Snapshot {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/window-answer.jsonl");
        read_log(&path).unwrap().snapshot
    }

    fn fonts() -> TextSystem {
        TextSystem::new(FontSet::BundledOnly)
    }

    fn type_text(
        answering: &mut Answering,
        snapshot: &Snapshot,
        text: &str,
        fonts: &mut TextSystem,
    ) {
        let mut clipboard = MemoryClipboard::default();
        answering.edit(
            snapshot,
            EditCommand::Insert(text.into()),
            fonts.font_system(),
            &mut clipboard,
        );
    }

    #[test]
    fn a_batch_answered_item_by_item_becomes_one_submission() {
        let snapshot = snapshot();
        let mut fonts = fonts();
        let mut answering =
            Answering::open(&snapshot, NodeRef::Batch(0), fonts.font_system()).unwrap();
        assert_eq!(
            answering.context(&snapshot),
            KeyContext::ChoiceItem { custom: false }
        );
        assert!(answering.pick(&snapshot, 3));
        assert!(answering.pick(&snapshot, 2), "a single choice is replaced");
        answering.step(&snapshot, true, fonts.font_system());
        assert!(answering.pick(&snapshot, 3));
        assert!(answering.pick(&snapshot, 1));
        assert!(answering.pick(&snapshot, 3), "a multiple choice toggles");
        assert!(!answering.pick(&snapshot, 9), "there is no option 9");
        answering.step(&snapshot, true, fonts.font_system());
        assert!(answering.is_typing(), "a text item takes typing at once");
        type_text(&mut answering, &snapshot, "Маяк", &mut fonts);
        answering.step(&snapshot, true, fonts.font_system());
        assert_eq!(answering.context(&snapshot), KeyContext::YesNoItem);
        assert!(answering.yes_no(&snapshot, false));
        let EventBody::ClarificationAnswerSubmitted {
            batch_id, answers, ..
        } = answering.submission(&snapshot).unwrap()
        else {
            panic!("a batch submits a clarification answer");
        };
        assert_eq!(batch_id.as_str(), "b-plan");
        let selected = |index: usize| -> Vec<&str> {
            answers[index]
                .selected
                .iter()
                .map(|id| id.as_str())
                .collect()
        };
        assert_eq!(selected(0), ["beta"]);
        assert_eq!(selected(1), ["linux"]);
        assert_eq!(answers[2].text.as_deref(), Some("Маяк"));
        assert_eq!(selected(3), ["no"]);
    }

    #[test]
    fn unanswered_items_are_submitted_as_skipped_and_skip_moves_on() {
        let snapshot = snapshot();
        let mut fonts = fonts();
        let mut answering =
            Answering::open(&snapshot, NodeRef::Batch(0), fonts.font_system()).unwrap();
        assert!(answering.skip(&snapshot, fonts.font_system()));
        assert_eq!(
            answering.context(&snapshot),
            KeyContext::ChoiceItem { custom: false }
        );
        let EventBody::ClarificationAnswerSubmitted { answers, .. } =
            answering.submission(&snapshot).unwrap()
        else {
            panic!("a batch submits a clarification answer");
        };
        assert_eq!(answers.len(), 4);
        assert!(answers.iter().all(|answer| answer.skipped));
    }

    #[test]
    fn drafts_are_offered_once_per_change_and_restored_on_open() {
        let mut snapshot = snapshot();
        let mut fonts = fonts();
        let mut answering =
            Answering::open(&snapshot, NodeRef::Batch(0), fonts.font_system()).unwrap();
        assert!(
            answering.take_draft(&snapshot).is_none(),
            "nothing typed yet"
        );
        answering.pick(&snapshot, 1);
        let Some(EventBody::DraftSaved { answers, .. }) = answering.take_draft(&snapshot) else {
            panic!("a change makes a draft");
        };
        assert!(answering.take_draft(&snapshot).is_none(), "saved once");
        snapshot.batches[0].draft = Some(ClarificationResponse {
            answers,
            general: None,
        });
        let reopened = Answering::open(&snapshot, NodeRef::Batch(0), fonts.font_system()).unwrap();
        assert_eq!(
            reopened.view().draft.answers[0].selected[0].as_str(),
            "stable"
        );
        assert_eq!(
            reopened.view().focus,
            Some(AnswerField::Item(1)),
            "focus goes to the first item without an answer"
        );
    }

    #[test]
    fn a_confirmation_types_its_comment_and_declines_with_it() {
        let snapshot = snapshot();
        let mut fonts = fonts();
        let mut answering =
            Answering::open(&snapshot, NodeRef::Confirmation(0), fonts.font_system()).unwrap();
        assert_eq!(
            answering.context(&snapshot),
            KeyContext::Typing { multiline: false }
        );
        type_text(&mut answering, &snapshot, "  not yet ", &mut fonts);
        let Some(EventBody::ConfirmationResolved {
            outcome, comment, ..
        }) = answering.decline(&snapshot)
        else {
            panic!("a confirmation can be declined");
        };
        assert_eq!(outcome, ConfirmationOutcome::Declined);
        assert_eq!(comment.as_deref(), Some("not yet"));
        assert!(
            answering.take_draft(&snapshot).is_none(),
            "confirmations have no drafts"
        );
    }

    #[test]
    fn only_open_questions_can_be_answered() {
        let snapshot = snapshot();
        let mut fonts = fonts();
        assert!(Answering::open(&snapshot, NodeRef::Message(0), fonts.font_system()).is_none());
        assert!(Answering::open(&snapshot, NodeRef::Batch(7), fonts.font_system()).is_none());
    }
}
