//! What each kind of transcript block looks like: messages, batch cards, confirmation cards,
//! decisions, thread markers and one-line summaries.
//!
//! Each function turns one decluttered block into a card tree for [`CardBuilder`]. All text
//! from the snapshot is untrusted, so it passes through `sanitize` before it is shaped, and
//! long text is cut to a bound here so that shaping work stays bounded whatever an agent sends.
//! This module chooses words, colours and structure; it does not place cards on screen.

use super::card::{column_style, CardBuilder, CardLayout, Decoration, TextLook};
use crate::answering::{AnswerField, AnswerView, CardHit, FieldCaret};
use crate::color::Color;
use crate::declutter::{kind_label, Presentation, TranscriptBlock};
use crate::markdown::{parse_markdown, plain_text, InlineSpan, MarkdownBlock};
use crate::sanitize::{sanitize_single_line, sanitize_untrusted};
use crate::search::Highlighter;
use crate::text::{SpanStyle, TextSystem};
use crate::theme::{Palette, Style};
use crate::units::Pixels;
use crate::words::{duration_words, Lang, Noun, Word};
use chatsurface_model::{
    AnswerKind, BatchStatus, ClarificationBatch, ClarificationItem, ClarificationResponse,
    Confirmation, ConfirmationStatus, MessageNode, NodeRef, Role, Snapshot, ThreadStatus,
};
use taffy::prelude::{length, NodeId};

/// Characters of a folded message that are shaped.
pub(super) const FOLDED_CHARS: usize = 700;
/// Lines of a folded message that are shown.
pub(super) const FOLDED_LINES: usize = 10;
/// Characters of an expanded message that are shaped; the rest is counted, not drawn.
pub(super) const EXPANDED_CHARS: usize = 24_000;
/// Characters of a title or label.
pub(super) const LABEL_CHARS: usize = 160;
/// Height bound of any one text leaf in a card.
pub(super) const MAX_TEXT_HEIGHT: Pixels = Pixels(6_000.0);

type Spans = Vec<(String, SpanStyle)>;

fn plain(text: impl Into<String>) -> Spans {
    vec![(text.into(), SpanStyle::default())]
}

fn strong(text: impl Into<String>) -> Spans {
    vec![(
        text.into(),
        SpanStyle {
            strong: true,
            ..SpanStyle::default()
        },
    )]
}

fn colored(text: impl Into<String>, color: Color, bold: bool) -> Spans {
    vec![(
        text.into(),
        SpanStyle {
            strong: bold,
            color: Some(color),
            ..SpanStyle::default()
        },
    )]
}

fn one_line(text: &str) -> String {
    sanitize_single_line(text, LABEL_CHARS).text
}

/// Agent text for one line: its markdown marks dropped, then made a safe single line.
fn md_line(text: &str) -> String {
    one_line(&plain_text(text))
}

/// The context every block builder needs.
struct Painter<'a> {
    style: &'a Style,
    builder: CardBuilder,
    /// The operator's working answer, when this block is the question being answered.
    answering: Option<&'a AnswerView>,
    /// The wall clock, for countdowns.
    now: Option<std::time::SystemTime>,
    /// The language of the surface's words.
    lang: Lang,
}

/// What a card is drawn with besides its node: the working answer when it is the question
/// being answered, the clock, the language.
#[derive(Clone, Copy, Debug)]
pub(super) struct CardContext<'a> {
    /// The operator's working answer (any question's; the card takes it only if it is its).
    pub answering: Option<&'a AnswerView>,
    /// The wall clock, for countdowns.
    pub now: Option<std::time::SystemTime>,
    /// The language of the surface's words.
    pub lang: Lang,
    /// The search's words to mark, when this card matches.
    pub highlight: Option<&'a Highlighter>,
}

/// A field's text with the caret, the selection and any input-method composition drawn in.
///
/// The caret is a thin bar glyph at the caret's place in the text and the selection is drawn
/// in the accent colour, so both follow the text's own shaping and wrapping.
fn field_spans(value: &str, caret: &FieldCaret, style: &Style) -> Spans {
    let palette = style.palette;
    let at = |offset: usize| {
        let mut offset = offset.min(value.len());
        while !value.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    };
    let clean = |text: &str| sanitize_untrusted(text, EXPANDED_CHARS).text;
    let caret_at = at(caret.caret);
    let (start, end) = caret
        .selection
        .map_or((caret_at, caret_at), |(start, end)| (at(start), at(end)));
    let mut spans: Spans = Vec::new();
    let selected = SpanStyle {
        color: Some(palette.background),
        strong: true,
        ..SpanStyle::default()
    };
    let mark = (
        "▏".to_owned(),
        SpanStyle {
            color: Some(palette.accent),
            strong: true,
            ..SpanStyle::default()
        },
    );
    if start < end {
        spans.push((clean(&value[..start]), SpanStyle::default()));
        if caret_at <= start {
            spans.push(mark.clone());
        }
        spans.push((
            format!("[{}]", clean(&value[start..end])),
            SpanStyle {
                color: Some(palette.accent),
                ..selected
            },
        ));
        if caret_at > start {
            spans.push(mark);
        }
        spans.push((clean(&value[end..]), SpanStyle::default()));
    } else {
        spans.push((clean(&value[..caret_at]), SpanStyle::default()));
        if let Some(preedit) = caret.preedit.as_deref().filter(|text| !text.is_empty()) {
            spans.push((
                clean(preedit),
                SpanStyle {
                    emphasis: true,
                    color: Some(palette.question),
                    ..SpanStyle::default()
                },
            ));
        }
        spans.push(mark);
        spans.push((clean(&value[caret_at..]), SpanStyle::default()));
    }
    spans.retain(|(text, _)| !text.is_empty());
    spans
}

impl<'a> Painter<'a> {
    fn body(&self) -> TextLook {
        let metrics = self.style.metrics;
        TextLook {
            font_size: metrics.font_size,
            line_height: metrics.line_height,
            color: self.style.palette.text,
            wrap: true,
            max_height: MAX_TEXT_HEIGHT,
        }
    }

    fn small(&self, color: Color) -> TextLook {
        let metrics = self.style.metrics;
        TextLook {
            font_size: metrics.small_font_size,
            line_height: Pixels((metrics.small_font_size.0 * 1.4).round()),
            color,
            wrap: true,
            max_height: MAX_TEXT_HEIGHT,
        }
    }

    fn single(&self, look: TextLook) -> TextLook {
        TextLook {
            wrap: false,
            ..look
        }
    }

    fn text(&mut self, spans: Spans, look: TextLook) -> NodeId {
        self.builder.text(spans, look)
    }

    fn label(&mut self, spans: Spans, look: TextLook) -> NodeId {
        self.builder.label(spans, look)
    }

    /// A card frame around children.
    fn card(
        &mut self,
        fill: Color,
        border: Option<(Color, Pixels)>,
        children: &[NodeId],
    ) -> NodeId {
        let metrics = self.style.metrics;
        self.builder.boxed(
            column_style(Pixels(6.0), metrics.card_padding),
            Decoration {
                fill: Some(fill),
                border,
                radius: metrics.corner_radius,
            },
            children,
        )
    }

    /// An input field: a box with the answer so far, or a placeholder; with a caret while it
    /// is being typed into.
    fn field(
        &mut self,
        value: Option<&str>,
        placeholder: &str,
        lines: usize,
        caret: Option<&FieldCaret>,
    ) -> NodeId {
        let palette = self.style.palette;
        let content = match (caret, value.filter(|value| !value.is_empty())) {
            (Some(caret), value) => {
                let spans = field_spans(value.unwrap_or(""), caret, self.style);
                self.text(spans, self.body())
            }
            (None, Some(value)) => self.text(
                plain(sanitize_untrusted(value, EXPANDED_CHARS).text),
                self.body(),
            ),
            (None, None) => self.text(
                vec![(
                    placeholder.to_owned(),
                    SpanStyle {
                        emphasis: true,
                        ..SpanStyle::default()
                    },
                )],
                TextLook {
                    color: palette.muted,
                    ..self.body()
                },
            ),
        };
        let mut style = column_style(Pixels::ZERO, Pixels(6.0));
        style.min_size.height = length(self.style.metrics.line_height.0 * lines as f32 + 12.0);
        let border = if caret.is_some() {
            (palette.accent, Pixels(2.0))
        } else {
            (palette.border, Pixels(1.0))
        };
        self.builder.boxed(
            style,
            Decoration {
                fill: Some(palette.field),
                border: Some(border),
                radius: Pixels(4.0),
            },
            &[content],
        )
    }

    /// The caret for `field`, when it is the field being typed into.
    fn caret_for(&self, field: AnswerField) -> Option<&'a FieldCaret> {
        let view = self.answering?;
        if view.focus != Some(field) {
            return None;
        }
        view.editing.as_ref()
    }

    fn thread_label(&mut self, snapshot: &Snapshot, block: &TranscriptBlock) -> Option<NodeId> {
        block.show_thread.then(|| {
            let title = md_line(&snapshot.threads[block.thread].spec.title);
            let look = self.single(self.small(self.style.palette.muted));
            self.label(plain(format!("in {title}")), look)
        })
    }
}

/// Builds the card for one transcript block at `width`.
pub(super) fn build_block(
    snapshot: &Snapshot,
    block: &TranscriptBlock,
    style: &Style,
    context: CardContext,
    width: Pixels,
    text: &mut TextSystem,
) -> CardLayout {
    let mut painter = Painter {
        style,
        builder: match context.highlight {
            Some(highlighter) => {
                CardBuilder::highlighting(highlighter.clone(), style.palette.accent)
            }
            None => CardBuilder::new(),
        },
        answering: context.answering.filter(|view| view.node == block.node),
        now: context.now,
        lang: context.lang,
    };
    let root = match block.node {
        NodeRef::Message(index) => {
            message_card(&mut painter, snapshot, block, &snapshot.messages[index])
        }
        NodeRef::Batch(index) => match block.presentation {
            Presentation::Summary => {
                batch_summary(&mut painter, snapshot, block, &snapshot.batches[index])
            }
            _ => batch_card(&mut painter, snapshot, block, &snapshot.batches[index]),
        },
        NodeRef::Confirmation(index) => match block.presentation {
            Presentation::Summary => {
                confirmation_summary(&mut painter, &snapshot.confirmations[index])
            }
            _ => confirmation_card(
                &mut painter,
                snapshot,
                block,
                &snapshot.confirmations[index],
            ),
        },
        NodeRef::Decision(index) => {
            let palette = style.palette;
            let badge = painter.label(
                colored(painter.lang.word(Word::Decision), palette.decision, true),
                painter.single(painter.small(palette.decision)),
            );
            let text =
                sanitize_untrusted(&snapshot.decisions[index].spec.text, FOLDED_CHARS * 2).text;
            let words = markdown_nodes(&mut painter, &text, usize::MAX, true);
            let words = painter.builder.shrinking_column(Pixels(4.0), &words);
            let row = painter.builder.row(Pixels(10.0), &[badge, words]);
            painter.card(palette.card, Some((palette.decision, Pixels(1.0))), &[row])
        }
        NodeRef::Thread(index) => thread_marker(&mut painter, snapshot, index, block.presentation),
    };
    painter.builder.finish(root, width, text)
}

fn role_label(role: Role, lang: Lang) -> &'static str {
    lang.word(match role {
        Role::User => Word::RoleUser,
        Role::Agent => Word::RoleAgent,
        Role::System => Word::RoleSystem,
        Role::Tool => Word::RoleTool,
    })
}

fn inline_spans(spans: &[InlineSpan], style: &Style) -> Spans {
    spans
        .iter()
        .map(|span| {
            let color = if span.style.link {
                Some(style.palette.accent)
            } else if span.style.code {
                Some(style.palette.question)
            } else {
                None
            };
            (
                span.text.clone(),
                SpanStyle {
                    strong: span.style.strong,
                    emphasis: span.style.emphasis,
                    mono: span.style.code,
                    color,
                },
            )
        })
        .collect()
}

/// Cards for sanitised markdown text, at most `lines` lines of it: prose wraps, code keeps its
/// lines in monospace (`count_hidden` says how many code lines were left out).
fn markdown_nodes(
    painter: &mut Painter,
    text: &str,
    lines: usize,
    count_hidden: bool,
) -> Vec<NodeId> {
    let style = *painter.style;
    let palette = style.palette;
    let mut children = Vec::new();
    let mut lines_left = lines;
    for markdown in parse_markdown(text) {
        if lines_left == 0 {
            break;
        }
        match markdown {
            MarkdownBlock::Prose {
                spans,
                indent,
                marker,
            } => {
                lines_left = lines_left.saturating_sub(1);
                let words = painter.text(inline_spans(&spans, &style), painter.body());
                if marker.is_empty() && indent == 0 {
                    children.push(words);
                } else {
                    let marker = painter.label(
                        plain(marker),
                        TextLook {
                            color: palette.muted,
                            ..painter.single(painter.body())
                        },
                    );
                    let row = painter.builder.row(Pixels(6.0), &[marker, words]);
                    let mut style = column_style(Pixels::ZERO, Pixels::ZERO);
                    style.padding.left = length(14.0 * f32::from(indent.min(8)));
                    children.push(painter.builder.boxed(style, Decoration::default(), &[row]));
                }
            }
            MarkdownBlock::Code { language, text } => {
                let lines: Vec<&str> = text.lines().collect();
                let shown = lines.len().min(lines_left);
                lines_left = lines_left.saturating_sub(shown);
                let mut code_children = Vec::new();
                if let Some(language) = language.as_deref().filter(|language| !language.is_empty())
                {
                    code_children.push(painter.label(
                        plain(one_line(language)),
                        painter.single(painter.small(palette.muted)),
                    ));
                }
                let code = lines[..shown].join("\n");
                code_children.push(painter.text(
                    vec![(
                        code,
                        SpanStyle {
                            mono: true,
                            ..SpanStyle::default()
                        },
                    )],
                    TextLook {
                        font_size: style.metrics.small_font_size,
                        ..painter.body()
                    },
                ));
                if shown < lines.len() && count_hidden {
                    code_children.push(painter.label(
                        plain(format!("… {} more lines", lines.len() - shown)),
                        painter.single(painter.small(palette.muted)),
                    ));
                }
                children.push(painter.builder.boxed(
                    column_style(Pixels(4.0), Pixels(8.0)),
                    Decoration {
                        fill: Some(palette.code_fill),
                        border: Some((palette.border, Pixels(1.0))),
                        radius: Pixels(4.0),
                    },
                    &code_children,
                ));
            }
        }
    }
    children
}

fn message_card(
    painter: &mut Painter,
    snapshot: &Snapshot,
    block: &TranscriptBlock,
    message: &MessageNode,
) -> NodeId {
    let style = *painter.style;
    let palette = style.palette;
    let folded = block.presentation == Presentation::Folded;
    let limit = if folded { FOLDED_CHARS } else { EXPANDED_CHARS };
    let clean = sanitize_untrusted(&message.spec.text, limit);
    let role = message.spec.role;
    let role_color = match role {
        Role::User => palette.accent,
        Role::Agent => palette.text,
        Role::System | Role::Tool => palette.muted,
    };
    let mut meta = vec![painter.label(
        colored(role_label(role, painter.lang), role_color, true),
        painter.single(painter.small(role_color)),
    )];
    meta.extend(painter.thread_label(snapshot, block));
    let meta = painter.builder.row(Pixels(8.0), &meta);
    let mut children = vec![meta];

    let lines = if folded { FOLDED_LINES } else { usize::MAX };
    children.extend(markdown_nodes(painter, &clean.text, lines, !folded));
    let total_chars = message.spec.text.chars().count();
    if folded || clean.truncated_chars > 0 {
        let hidden = total_chars.saturating_sub(clean.text.chars().count().min(total_chars));
        let words = if folded {
            painter.lang.show_more(&group_thousands(total_chars))
        } else {
            format!("… {} more characters not shown", group_thousands(hidden))
        };
        children.push(painter.label(
            colored(words, palette.accent, false),
            painter.single(painter.small(palette.accent)),
        ));
    }
    let fill = if role == Role::User {
        palette.card_user
    } else {
        palette.card
    };
    painter.card(fill, Some((palette.border, Pixels(1.0))), &children)
}

fn count(value: usize, one: &str, many: &str) -> String {
    format!("{value} {}", if value == 1 { one } else { many })
}

fn group_thousands(value: usize) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

fn kind_badge(item: &ClarificationItem, lang: Lang) -> &'static str {
    lang.word(match (item.kind, item.multiple, item.custom) {
        (AnswerKind::Choice, true, _) => Word::KindChoiceSeveral,
        (AnswerKind::Choice, false, true) => Word::KindChoiceOrOwn,
        (AnswerKind::Choice, false, false) => Word::KindChoice,
        (AnswerKind::Text, _, _) => Word::KindText,
        (AnswerKind::Multiline, _, _) => Word::KindMultiline,
        (AnswerKind::YesNo, _, _) => Word::KindYesNo,
    })
}

fn batch_card(
    painter: &mut Painter,
    snapshot: &Snapshot,
    block: &TranscriptBlock,
    batch: &ClarificationBatch,
) -> NodeId {
    let style = *painter.style;
    let palette = style.palette;
    let open = batch.status == BatchStatus::Open;
    let answering = painter.answering;
    let shown = if let Some(view) = answering {
        Some(&view.draft)
    } else if open {
        batch.draft.as_ref()
    } else {
        batch.response.as_ref()
    };
    let answered = shown.map_or(0, |response| response.answers.len());
    let state = if open {
        if answered > 0 {
            format!(
                "{} · {}: {answered}",
                painter.lang.count(batch.spec.items.len(), Noun::Question),
                painter.lang.word(Word::ItemDrafted)
            )
        } else {
            painter.lang.count(batch.spec.items.len(), Noun::Question)
        }
    } else {
        match batch.status {
            BatchStatus::Expired | BatchStatus::Withdrawn => {
                painter.lang.count(batch.spec.items.len(), Noun::Question)
            }
            _ => format!(
                "{}: {answered}/{}",
                painter.lang.word(Word::ItemAnswered),
                batch.spec.items.len()
            ),
        }
    };
    let badge_color = if open {
        palette.question
    } else {
        palette.decision
    };
    let badge = painter.label(
        colored(
            painter.lang.word(match batch.status {
                BatchStatus::Open => Word::Questions,
                BatchStatus::Answered => Word::Answered,
                BatchStatus::Expired => Word::Expired,
                BatchStatus::Withdrawn => Word::Withdrawn,
            }),
            badge_color,
            true,
        ),
        painter.single(painter.small(badge_color)),
    );
    let title = painter.text(
        strong(md_line(batch.display_title())),
        painter.single(painter.body()),
    );
    let count = painter.label(plain(state), painter.single(painter.small(palette.muted)));
    let mut top = vec![badge, title, count];
    if open {
        let left = painter.now.and_then(|now| batch.time_left(now));
        top.extend(deadline_label(painter, batch.spec.timeout_s, left));
    }
    top.extend(painter.thread_label(snapshot, block));
    let top = painter.builder.row(Pixels(10.0), &top);
    let mut children = vec![top];
    children.extend(attachment_line(painter, batch.spec.attachment.as_deref()));
    for (number, item) in batch.spec.items.iter().enumerate() {
        let answer = shown.and_then(|response| response.answer(&item.id));
        let item_box = item_block(painter, number, item, answer, !open);
        painter.builder.tag(item_box, CardHit::Item(number));
        children.push(item_box);
    }
    if batch.spec.general_field {
        let label = painter.label(
            strong(painter.lang.word(Word::GeneralNote)),
            painter.single(painter.small(palette.muted)),
        );
        let general =
            shown.and_then(|response: &ClarificationResponse| response.general.as_deref());
        let caret = painter.caret_for(AnswerField::General);
        let hint = painter.lang.word(Word::GeneralNoteHint);
        let field = painter.field(general, hint, 2, caret);
        painter
            .builder
            .tag(field, CardHit::Field(AnswerField::General));
        children.push(painter.builder.column(Pixels(4.0), &[label, field]));
    }
    if open {
        let buttons = [
            action_button(
                painter,
                painter.lang.word(Word::Submit),
                "Ctrl+Enter",
                (palette.question, true),
                CardHit::Submit,
            ),
            action_button(
                painter,
                painter.lang.word(Word::SkipAll),
                painter.lang.word(Word::SkipAllMeans),
                (palette.question, false),
                CardHit::SkipAll,
            ),
        ];
        children.push(painter.builder.wrapping_row(Pixels(12.0), &buttons));
        let hint = painter.lang.word(Word::BatchKeys);
        children.push(painter.label(plain(hint), painter.single(painter.small(palette.muted))));
    }
    let border = if answering.is_some() {
        (palette.accent, style.metrics.attention_border)
    } else if open {
        (palette.question, style.metrics.attention_border)
    } else {
        (palette.border, Pixels(1.0))
    };
    painter.card(palette.card, Some(border), &children)
}

/// The line naming a question's attachment, which a click (or Ctrl+O) opens; none without one.
fn attachment_line(painter: &mut Painter, path: Option<&str>) -> Option<NodeId> {
    let path = path?;
    let words = vec![
        (
            format!("{}  ", painter.lang.word(Word::Attachment)),
            SpanStyle {
                strong: true,
                ..SpanStyle::default()
            },
        ),
        (
            one_line(path),
            SpanStyle {
                mono: true,
                ..SpanStyle::default()
            },
        ),
        (
            format!("   {}", painter.lang.word(Word::OpenAttachment)),
            SpanStyle {
                color: Some(painter.style.palette.muted),
                ..SpanStyle::default()
            },
        ),
    ];
    let line = painter.text(words, painter.small(painter.style.palette.text));
    painter.builder.tag(line, CardHit::Attachment);
    Some(line)
}

/// One item of a batch card: its head (number, header, kind, state), its prompt, and the
/// controls its kind answers with.
fn item_block(
    painter: &mut Painter,
    index: usize,
    item: &ClarificationItem,
    answer: Option<&chatsurface_model::ItemAnswer>,
    sent: bool,
) -> NodeId {
    let palette = painter.style.palette;
    let focused = painter
        .answering
        .is_some_and(|view| view.focus == Some(AnswerField::Item(index)));
    let prompt = sanitize_untrusted(&item.prompt, FOLDED_CHARS).text;
    let mut children = vec![item_head(painter, index, item, answer, sent)];
    children.extend(markdown_nodes(painter, &prompt, usize::MAX, true));
    match item.kind {
        AnswerKind::Choice => {
            for option_index in 0..item.options.len() {
                children.push(option_row(painter, index, item, option_index, answer));
            }
            if item.custom {
                let hint = painter.lang.word(Word::OtherHint);
                children.push(item_field(painter, index, answer, hint, 1));
            }
        }
        AnswerKind::YesNo => children.push(yes_no_pills(painter, index, answer)),
        AnswerKind::Text | AnswerKind::Multiline => {
            let lines = if item.kind == AnswerKind::Multiline {
                3
            } else {
                1
            };
            let hint = painter.lang.word(Word::AnswerHint);
            children.push(item_field(painter, index, answer, hint, lines));
        }
    }
    let border = if focused {
        (palette.accent, Pixels(2.0))
    } else {
        (palette.border, Pixels(1.0))
    };
    painter.builder.boxed(
        column_style(Pixels(6.0), Pixels(10.0)),
        Decoration {
            fill: Some(palette.panel),
            border: Some(border),
            radius: Pixels(4.0),
        },
        &children,
    )
}

/// Whether option `id` is among an answer's choices.
fn is_selected(answer: Option<&chatsurface_model::ItemAnswer>, id: &str) -> bool {
    answer.is_some_and(|answer| answer.selected.iter().any(|chosen| chosen.as_str() == id))
}

/// An item's head: "Q2 · header", its kind, and whether it is skipped, drafted or answered.
fn item_head(
    painter: &mut Painter,
    index: usize,
    item: &ClarificationItem,
    answer: Option<&chatsurface_model::ItemAnswer>,
    sent: bool,
) -> NodeId {
    let palette = painter.style.palette;
    let number = index + 1;
    let header = item.header.as_deref().map_or_else(
        || format!("Q{number}"),
        |header| format!("Q{number} · {}", one_line(header)),
    );
    let mut head = vec![
        painter.label(
            colored(header, palette.accent, true),
            painter.single(painter.small(palette.accent)),
        ),
        painter.label(
            plain(format!("[{}]", kind_badge(item, painter.lang))),
            painter.single(painter.small(palette.muted)),
        ),
    ];
    let state = match answer {
        Some(answer) if answer.skipped => Some((Word::ItemSkipped, palette.muted)),
        // Until the batch is sent, an answer is only a draft, and says so.
        Some(_) if sent => Some((Word::ItemAnswered, palette.decision)),
        Some(_) => Some((Word::ItemDrafted, palette.question)),
        None => None,
    };
    if let Some((word, color)) = state {
        head.push(painter.label(
            colored(painter.lang.word(word), color, true),
            painter.single(painter.small(color)),
        ));
    }
    painter.builder.row(Pixels(8.0), &head)
}

/// One option of a choice item: its key and mark, its label (★ when recommended) and detail;
/// a click on it chooses it.
fn option_row(
    painter: &mut Painter,
    index: usize,
    item: &ClarificationItem,
    option_index: usize,
    answer: Option<&chatsurface_model::ItemAnswer>,
) -> NodeId {
    let palette = painter.style.palette;
    let option = &item.options[option_index];
    let chosen = is_selected(answer, option.id.as_str());
    let mark = match (item.multiple, chosen) {
        (true, true) => "☑",
        (true, false) => "☐",
        (false, true) => "●",
        (false, false) => "○",
    };
    let key = painter.label(
        plain(format!("{} {mark}", option_index + 1)),
        TextLook {
            color: if chosen {
                palette.accent
            } else {
                palette.muted
            },
            ..painter.single(painter.body())
        },
    );
    let mut words = vec![(
        one_line(&option.label),
        SpanStyle {
            strong: chosen,
            ..SpanStyle::default()
        },
    )];
    if item.recommended.as_ref() == Some(&option.id) {
        words.push((
            "  ★ recommended".to_owned(),
            SpanStyle {
                color: Some(palette.question),
                ..SpanStyle::default()
            },
        ));
    }
    let mut text_children = vec![painter.text(words, painter.body())];
    if let Some(detail) = &option.detail {
        text_children.push(painter.text(
            plain(sanitize_untrusted(detail, FOLDED_CHARS).text),
            painter.small(palette.muted),
        ));
    }
    let text_column = painter
        .builder
        .shrinking_column(Pixels(2.0), &text_children);
    let mut row_style = taffy::Style {
        flex_direction: taffy::FlexDirection::Row,
        align_items: taffy::AlignItems::START,
        gap: taffy::Size {
            width: length(8.0),
            height: length(0.0),
        },
        padding: taffy::Rect {
            left: length(6.0),
            right: length(6.0),
            top: length(3.0),
            bottom: length(3.0),
        },
        ..taffy::Style::default()
    };
    row_style.min_size.width = length(0.0);
    let row = painter.builder.boxed(
        row_style,
        Decoration {
            fill: chosen.then_some(palette.focus_fill),
            border: None,
            radius: Pixels(4.0),
        },
        &[key, text_column],
    );
    painter.builder.tag(
        row,
        CardHit::Choice {
            item: index,
            option: option_index,
        },
    );
    row
}

/// The yes and no pills of a yes/no item; a click on one answers with it.
fn yes_no_pills(
    painter: &mut Painter,
    index: usize,
    answer: Option<&chatsurface_model::ItemAnswer>,
) -> NodeId {
    let palette = painter.style.palette;
    let mut pills = Vec::new();
    let (yes, no) = (painter.lang.word(Word::Yes), painter.lang.word(Word::No));
    for (key, id, words) in [("y", "yes", yes), ("n", "no", no)] {
        let chosen = is_selected(answer, id);
        let (text, fill) = if chosen {
            (palette.background, palette.accent)
        } else {
            (palette.text, palette.field)
        };
        let label = painter.label(
            colored(format!("{key} · {words}"), text, true),
            painter.single(painter.body()),
        );
        let mut pill = column_style(Pixels::ZERO, Pixels(6.0));
        pill.padding.left = length(14.0);
        pill.padding.right = length(14.0);
        let pill = painter.builder.boxed(
            pill,
            Decoration {
                fill: Some(fill),
                border: Some((palette.border, Pixels(1.0))),
                radius: Pixels(12.0),
            },
            &[label],
        );
        painter.builder.tag(
            pill,
            CardHit::YesNo {
                item: index,
                yes: id == "yes",
            },
        );
        pills.push(pill);
    }
    painter.builder.wrapping_row(Pixels(10.0), &pills)
}

/// The text field of item `index` (`lines` tall), with the caret when it has the focus.
fn item_field(
    painter: &mut Painter,
    index: usize,
    answer: Option<&chatsurface_model::ItemAnswer>,
    hint: &str,
    lines: usize,
) -> NodeId {
    let caret = painter.caret_for(AnswerField::Item(index));
    let text = answer.and_then(|answer| answer.text.as_deref());
    let field = painter.field(text, hint, lines, caret);
    painter
        .builder
        .tag(field, CardHit::Field(AnswerField::Item(index)));
    field
}

fn summary_row(
    painter: &mut Painter,
    badge: &str,
    badge_color: Color,
    words: String,
    border: Color,
) -> NodeId {
    let palette = painter.style.palette;
    let badge = painter.label(
        colored(badge, badge_color, true),
        painter.single(painter.small(badge_color)),
    );
    let words = painter.text(
        plain(words),
        TextLook {
            color: palette.muted,
            ..painter.single(painter.body())
        },
    );
    let row = painter.builder.row(Pixels(10.0), &[badge, words]);
    let metrics = painter.style.metrics;
    let mut style = column_style(Pixels::ZERO, Pixels(metrics.card_padding.0 * 0.6));
    style.padding.left = length(metrics.card_padding.0);
    painter.builder.boxed(
        style,
        Decoration {
            fill: Some(palette.panel),
            border: Some((border, Pixels(1.0))),
            radius: metrics.corner_radius,
        },
        &[row],
    )
}

fn answer_words(item: &ClarificationItem, answer: &chatsurface_model::ItemAnswer) -> String {
    if answer.skipped {
        return "skipped".to_owned();
    }
    let mut parts: Vec<String> = answer
        .selected
        .iter()
        .map(|id| one_line(item.option_label(id)))
        .collect();
    if let Some(text) = &answer.text {
        parts.push(format!("“{}”", one_line(text)));
    }
    parts.join(", ")
}

fn batch_summary(
    painter: &mut Painter,
    _snapshot: &Snapshot,
    _block: &TranscriptBlock,
    batch: &ClarificationBatch,
) -> NodeId {
    let palette = painter.style.palette;
    let title = md_line(batch.display_title());
    let (badge, color, words) = match (&batch.status, &batch.response) {
        (BatchStatus::Answered, Some(response)) => {
            let answers: Vec<String> = batch
                .spec
                .items
                .iter()
                .filter_map(|item| {
                    let answer = response.answer(&item.id)?;
                    let name = item
                        .header
                        .as_deref()
                        .map_or_else(|| md_line(&item.prompt), md_line);
                    Some(format!("{name}: {}", answer_words(item, answer)))
                })
                .collect();
            let note = response
                .general
                .as_deref()
                .map(|note| {
                    format!(
                        " · {}: “{}”",
                        painter.lang.word(Word::GeneralNote),
                        md_line(note)
                    )
                })
                .unwrap_or_default();
            (
                painter.lang.word(Word::Answered),
                palette.decision,
                format!("{title} — {}{note}", answers.join(" · ")),
            )
        }
        (BatchStatus::Expired, _) => (
            painter.lang.word(Word::Expired),
            palette.muted,
            format!(
                "{title} — {}",
                painter.lang.count(batch.spec.items.len(), Noun::Question)
            ),
        ),
        (BatchStatus::Withdrawn, _) => (
            painter.lang.word(Word::Withdrawn),
            palette.muted,
            format!(
                "{title} — {}",
                painter.lang.count(batch.spec.items.len(), Noun::Question)
            ),
        ),
        _ => ("?", palette.question, title),
    };
    summary_row(painter, badge, color, words, palette.border)
}

fn confirmation_card(
    painter: &mut Painter,
    snapshot: &Snapshot,
    block: &TranscriptBlock,
    confirmation: &Confirmation,
) -> NodeId {
    let style = *painter.style;
    let palette = style.palette;
    let spec = &confirmation.spec;
    let badge = painter.label(
        colored(painter.lang.word(Word::Confirm), palette.danger, true),
        painter.single(painter.body()),
    );
    let title = painter.text(
        strong(md_line(
            spec.title
                .as_deref()
                .unwrap_or(painter.lang.word(Word::ConfirmDangerous)),
        )),
        painter.single(painter.body()),
    );
    let mut top = vec![badge, title];
    let left = painter.now.and_then(|now| confirmation.time_left(now));
    top.extend(deadline_label(painter, spec.timeout_s, left));
    top.extend(painter.thread_label(snapshot, block));
    let top = painter.builder.row(Pixels(10.0), &top);
    let message = sanitize_untrusted(&spec.message, FOLDED_CHARS).text;
    let mut children = vec![top];
    children.extend(markdown_nodes(painter, &message, usize::MAX, true));
    children.extend(attachment_line(painter, spec.attachment.as_deref()));
    if confirmation.status != ConfirmationStatus::Pending {
        // Settled, shown in full on request: the question and how it ended, nothing to press.
        let (badge, color) = outcome_badge(confirmation.status, &palette, painter.lang);
        let mut words = vec![(
            format!("{badge}{}", for_good(confirmation)),
            SpanStyle {
                strong: true,
                color: Some(color),
                ..SpanStyle::default()
            },
        )];
        if let Some(comment) = &confirmation.outcome_comment {
            words.push((
                format!("  “{}”", sanitize_untrusted(comment, FOLDED_CHARS).text),
                SpanStyle::default(),
            ));
        }
        children.push(painter.text(words, painter.body()));
        return painter.card(palette.card, Some((color, Pixels(1.0))), &children);
    }
    if spec.comment {
        let comment = painter
            .answering
            .map(|view| view.comment.as_str())
            .filter(|comment| !comment.is_empty());
        let caret = painter.caret_for(AnswerField::Comment);
        let hint = painter.lang.word(Word::CommentHint);
        let field = painter.field(comment, hint, 1, caret);
        painter
            .builder
            .tag(field, CardHit::Field(AnswerField::Comment));
        children.push(field);
    }
    let mut buttons = vec![action_button(
        painter,
        spec.accept_label(),
        "Ctrl+Enter",
        (palette.danger, true),
        CardHit::Accept,
    )];
    if let Some(always) = &spec.accept_always {
        buttons.push(action_button(
            painter,
            always,
            "Ctrl+Shift+Enter",
            (palette.danger, false),
            CardHit::AcceptAlways,
        ));
    }
    buttons.push(action_button(
        painter,
        spec.decline_label(),
        "Ctrl+D",
        (palette.danger, false),
        CardHit::Decline,
    ));
    children.push(painter.builder.wrapping_row(Pixels(12.0), &buttons));
    let emphasis = if painter.answering.is_some() {
        2.5
    } else {
        1.5
    };
    painter.card(
        palette.danger_fill,
        Some((
            palette.danger,
            Pixels(style.metrics.attention_border.0 * emphasis),
        )),
        &children,
    )
}

/// A button: its words in bold and the keys that do the same; `primary` fills it with `color`
/// (else only its border has the colour). A click on it is `hit`.
fn action_button(
    painter: &mut Painter,
    words: &str,
    keys: &str,
    (color, primary): (Color, bool),
    hit: CardHit,
) -> NodeId {
    let palette = painter.style.palette;
    let text_color = if primary {
        palette.background
    } else {
        palette.text
    };
    let label = painter.label(
        vec![
            (
                format!("{} ", one_line(words)),
                SpanStyle {
                    strong: true,
                    color: Some(text_color),
                    ..SpanStyle::default()
                },
            ),
            (
                format!(" {keys}"),
                SpanStyle {
                    color: Some(if primary { text_color } else { palette.muted }),
                    ..SpanStyle::default()
                },
            ),
        ],
        painter.single(painter.body()),
    );
    let mut button = column_style(Pixels::ZERO, Pixels(7.0));
    button.padding.left = length(16.0);
    button.padding.right = length(16.0);
    let button = painter.builder.boxed(
        button,
        Decoration {
            fill: Some(if primary { color } else { palette.field }),
            border: Some((color, Pixels(1.5))),
            radius: Pixels(5.0),
        },
        &[label],
    );
    painter.builder.tag(button, hit);
    button
}

/// When an open question expires: a live countdown ("expires in 42 s") when the clock is
/// known, in the danger colour for its last 30 seconds, or how long its timeout is.
fn deadline_label(
    painter: &mut Painter,
    timeout_s: Option<f64>,
    left: Option<std::time::Duration>,
) -> Option<NodeId> {
    let palette = painter.style.palette;
    let timeout = timeout_s?;
    let (words, color) = match left {
        Some(left) if left.is_zero() => (
            painter.lang.word(Word::ExpiredNow).to_owned(),
            palette.danger,
        ),
        Some(left) => (
            painter
                .lang
                .expires(true, &duration_words(left.as_secs_f64().ceil())),
            if left.as_secs() < 30 {
                palette.danger
            } else {
                palette.muted
            },
        ),
        None => (
            painter.lang.expires(false, &duration_words(timeout)),
            palette.muted,
        ),
    };
    Some(painter.label(
        colored(words, color, left.is_some_and(|left| left.as_secs() < 30)),
        painter.single(painter.small(color)),
    ))
}

/// The badge and colour of how a confirmation stands.
fn outcome_badge(
    status: ConfirmationStatus,
    palette: &Palette,
    lang: Lang,
) -> (&'static str, Color) {
    let (word, color) = match status {
        ConfirmationStatus::Accepted => (Word::Accepted, palette.decision),
        ConfirmationStatus::Declined => (Word::Declined, palette.danger),
        ConfirmationStatus::Expired => (Word::Expired, palette.muted),
        ConfirmationStatus::Withdrawn => (Word::Withdrawn, palette.muted),
        ConfirmationStatus::Pending => (Word::Pending, palette.danger),
    };
    (lang.word(word), color)
}

/// The answer a confirmation accepted for good was given (" · Always allow …"), else nothing.
fn for_good(confirmation: &Confirmation) -> String {
    match &confirmation.spec.accept_always {
        Some(label) if confirmation.accepted_always => format!(" · {}", one_line(label)),
        _ => String::new(),
    }
}

fn confirmation_summary(painter: &mut Painter, confirmation: &Confirmation) -> NodeId {
    let palette = painter.style.palette;
    let spec = &confirmation.spec;
    // The question itself, after a title that may only name who asked.
    let question = match spec.title.as_deref() {
        Some(title) if title != spec.message => {
            format!("{} — {}", md_line(title), md_line(&spec.message))
        }
        _ => md_line(&spec.message),
    };
    let comment = confirmation
        .outcome_comment
        .as_deref()
        .map(|comment| format!(" — “{}”", one_line(comment)))
        .unwrap_or_default();
    let (badge, color) = outcome_badge(confirmation.status, &palette, painter.lang);
    summary_row(
        painter,
        badge,
        color,
        format!("{question}{}{comment}", for_good(confirmation)),
        palette.border,
    )
}

fn thread_marker(
    painter: &mut Painter,
    snapshot: &Snapshot,
    index: usize,
    presentation: Presentation,
) -> NodeId {
    let palette = painter.style.palette;
    let thread = &snapshot.threads[index];
    let title = md_line(&thread.spec.title);
    let kind = kind_label(thread.spec.kind).to_uppercase();
    if presentation == Presentation::Summary {
        let last_decision = snapshot
            .decisions
            .iter()
            .rev()
            .find(|decision| decision.spec.thread_id == thread.spec.id)
            .map(|decision| format!(" — decided: {}", md_line(&decision.spec.text)))
            .unwrap_or_default();
        let words = format!(
            "{title} · {} · {}{last_decision}",
            count(thread.messages, "message", "messages"),
            count(thread.decisions, "decision", "decisions")
        );
        return summary_row(
            painter,
            &format!("▸ RESOLVED {kind}"),
            palette.decision,
            words,
            palette.border,
        );
    }
    let parent = snapshot
        .parent_of(index)
        .map(|parent| format!("  off {}", md_line(&snapshot.threads[parent].spec.title)))
        .unwrap_or_default();
    let status = match thread.status {
        ThreadStatus::Active => "",
        ThreadStatus::Parked => "  · parked",
        ThreadStatus::Resolved => "  · resolved",
    };
    let arrow = if snapshot.parent_of(index).is_some() {
        "↳ "
    } else {
        ""
    };
    let words = vec![
        (
            format!("{arrow}{kind}  "),
            SpanStyle {
                strong: true,
                color: Some(palette.accent),
                ..SpanStyle::default()
            },
        ),
        (
            title,
            SpanStyle {
                strong: true,
                ..SpanStyle::default()
            },
        ),
        (
            format!("{parent}{status}"),
            SpanStyle {
                color: Some(palette.muted),
                ..SpanStyle::default()
            },
        ),
    ];
    let text = painter.text(words, painter.single(painter.body()));
    let metrics = painter.style.metrics;
    let mut style = column_style(Pixels::ZERO, Pixels(4.0));
    style.padding.top = length(metrics.card_gap.0);
    painter.builder.boxed(
        style,
        Decoration {
            fill: None,
            border: None,
            radius: Pixels::ZERO,
        },
        &[text],
    )
}
