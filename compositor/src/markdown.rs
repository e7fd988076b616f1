//! The markdown subset that messages support, parsed into blocks of styled spans.
//!
//! This module owns the mapping from message text to [`MarkdownBlock`]s: paragraphs, emphasis,
//! strong, inline code, fenced and indented code blocks, ordered and unordered lists (nested),
//! links, headings, block quotes, line breaks, raw HTML (kept as literal text), images (their
//! alt text) and tables (one plain line per row); thematic breaks are skipped. Anything outside
//! the subset is kept as plain text, so parsing never fails.
//!
//! `indent` counts the lists and block quotes a block sits in, so a top-level list item has
//! indent 1 and marker "•", an item of a list nested in it has indent 2 and marker "◦", and a
//! paragraph in a block quote has indent 1 and marker "│". An item's marker goes on its first
//! block of prose; its later paragraphs carry the same indent and an empty marker, and an item
//! that opens with a code block or a block quote shows no bullet.
//!
//! It must not touch sanitising, shaping, layout or drawing: callers sanitise untrusted text
//! first, and decide how blocks look.

use pulldown_cmark::{CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd};

/// Inline style flags of a span.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct InlineStyle {
    /// Bold text, and all text of headings.
    pub strong: bool,
    /// Italic text.
    pub emphasis: bool,
    /// Inline code, shown in monospace.
    pub code: bool,
    /// Link text, and the URL appended after it.
    pub link: bool,
}

/// A run of text with one style.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct InlineSpan {
    /// The text of the run.
    pub text: String,
    /// How the run is styled.
    pub style: InlineStyle,
}

/// One block of a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum MarkdownBlock {
    /// A paragraph, heading (strong) or block quote line: wrapped prose. `indent` counts
    /// list/quote nesting levels; `marker` is the list bullet ("•", "◦", "1.", …) or "│" for
    /// quotes, empty for plain paragraphs.
    Prose {
        /// The styled runs of the block, adjacent runs always differing in style.
        spans: Vec<InlineSpan>,
        /// How many lists and block quotes the block sits in.
        indent: u8,
        /// The list marker or quote bar drawn before the block, or empty.
        marker: String,
    },
    /// A fenced or indented code block, shown in monospace, never wrapped into prose.
    Code {
        /// The first word of a fenced block's info string, if any.
        language: Option<String>,
        /// The code, without its final newline.
        text: String,
    },
}

/// The text without its markdown marks, blocks joined by " · ", for places that have one line
/// and one style (overview rows, summaries, button-sized labels).
pub(crate) fn plain_text(text: &str) -> String {
    parse_markdown(text)
        .into_iter()
        .map(|block| match block {
            MarkdownBlock::Prose { spans, marker, .. } => {
                let words: String = spans.into_iter().map(|span| span.text).collect();
                if marker.is_empty() || marker == "│" {
                    words
                } else {
                    format!("{marker} {words}")
                }
            }
            MarkdownBlock::Code { text, .. } => text,
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Parses message text into blocks. Never fails: anything outside the subset is kept as plain
/// text.
pub(crate) fn parse_markdown(text: &str) -> Vec<MarkdownBlock> {
    let mut builder = BlockBuilder::default();
    for event in Parser::new_ext(text, Options::ENABLE_TABLES) {
        builder.handle(event);
    }
    builder.flush_prose();
    builder.blocks
}

/// A list or block quote that blocks are nested in.
enum Container {
    /// A block quote.
    Quote,
    /// A list: ordered ones know the number of their next item.
    List {
        /// The number of the next item of an ordered list; `None` for a bullet list.
        next_number: Option<u64>,
    },
}

/// A link whose text is still being read.
struct OpenLink {
    /// Where the link points.
    url: String,
    /// The link text read so far.
    text: String,
}

/// A code block whose text is still being read.
struct OpenCode {
    /// The language named by the info string, if any.
    language: Option<String>,
    /// The code read so far.
    text: String,
}

/// Turns parser events into blocks, one event at a time.
#[derive(Default)]
struct BlockBuilder {
    /// The blocks finished so far.
    blocks: Vec<MarkdownBlock>,
    /// The lists and block quotes open around the current block, outermost first.
    containers: Vec<Container>,
    /// The spans of the prose block being read.
    spans: Vec<InlineSpan>,
    /// The marker of a list item whose first prose block has not been finished yet.
    pending_marker: Option<String>,
    /// How many strong spans are open.
    strong: usize,
    /// How many emphasis spans are open.
    emphasis: usize,
    /// Whether a heading is open.
    heading: bool,
    /// The link being read, if any.
    link: Option<OpenLink>,
    /// The code block being read, if any.
    code: Option<OpenCode>,
    /// How many cells of the current table row have started.
    table_cells: usize,
}

impl BlockBuilder {
    /// Takes in one parser event.
    fn handle(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) | Event::InlineMath(text) | Event::DisplayMath(text) => {
                match &mut self.code {
                    Some(code) => code.text.push_str(&text),
                    None => self.push_text(&text, self.style()),
                }
            }
            Event::Code(text) => self.push_text(
                &text,
                InlineStyle {
                    code: true,
                    ..self.style()
                },
            ),
            Event::Html(text) | Event::InlineHtml(text) => self.push_text(&text, self.style()),
            Event::SoftBreak => self.push_text(" ", self.style()),
            Event::HardBreak => self.push_text("\n", self.style()),
            Event::Rule => self.flush_prose(),
            Event::FootnoteReference(_) | Event::TaskListMarker(_) => {}
        }
    }

    /// Takes in the start of a block or inline element.
    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::HtmlBlock | Tag::Table(_) => self.flush_prose(),
            Tag::Heading { .. } => {
                self.flush_prose();
                self.heading = true;
            }
            Tag::BlockQuote(_) => {
                self.flush_prose();
                self.containers.push(Container::Quote);
            }
            Tag::CodeBlock(kind) => {
                self.flush_prose();
                let language = match kind {
                    CodeBlockKind::Fenced(info) => info.split_whitespace().next().map(String::from),
                    CodeBlockKind::Indented => None,
                };
                self.code = Some(OpenCode {
                    language,
                    text: String::new(),
                });
            }
            Tag::List(start) => {
                self.flush_prose();
                self.containers.push(Container::List { next_number: start });
            }
            Tag::Item => {
                self.flush_prose();
                self.pending_marker = Some(self.next_marker());
            }
            Tag::TableHead | Tag::TableRow => {
                self.flush_prose();
                self.table_cells = 0;
            }
            Tag::TableCell => {
                if self.table_cells > 0 {
                    self.push_text(" | ", InlineStyle::default());
                }
                self.table_cells += 1;
            }
            Tag::Emphasis => self.emphasis += 1,
            Tag::Strong => self.strong += 1,
            Tag::Link { dest_url, .. } => {
                self.link = Some(OpenLink {
                    url: CowStr::into_string(dest_url),
                    text: String::new(),
                });
            }
            _ => {}
        }
    }

    /// Takes in the end of a block or inline element.
    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph
            | TagEnd::HtmlBlock
            | TagEnd::Table
            | TagEnd::TableHead
            | TagEnd::TableRow => self.flush_prose(),
            TagEnd::Heading(_) => {
                self.flush_prose();
                self.heading = false;
            }
            TagEnd::BlockQuote(_) | TagEnd::List(_) => {
                self.flush_prose();
                self.containers.pop();
            }
            TagEnd::Item => {
                self.flush_prose();
                self.pending_marker = None;
            }
            TagEnd::CodeBlock => {
                if let Some(OpenCode { language, mut text }) = self.code.take() {
                    if text.ends_with('\n') {
                        text.pop();
                    }
                    self.pending_marker = None;
                    self.blocks.push(MarkdownBlock::Code { language, text });
                }
            }
            TagEnd::Emphasis => self.emphasis = self.emphasis.saturating_sub(1),
            TagEnd::Strong => self.strong = self.strong.saturating_sub(1),
            TagEnd::Link => {
                if let Some(OpenLink { url, text }) = self.link.take() {
                    let style = InlineStyle {
                        link: true,
                        ..self.style()
                    };
                    if text.is_empty() {
                        self.push_text(&url, style);
                    } else if text != url {
                        self.push_text(&format!(" ({url})"), style);
                    }
                }
            }
            _ => {}
        }
    }

    /// The style that text read now gets.
    fn style(&self) -> InlineStyle {
        InlineStyle {
            strong: self.strong > 0 || self.heading,
            emphasis: self.emphasis > 0,
            code: false,
            link: self.link.is_some(),
        }
    }

    /// The marker of a list item starting now in the innermost open list.
    fn next_marker(&mut self) -> String {
        let depth = self
            .containers
            .iter()
            .filter(|container| matches!(container, Container::List { .. }))
            .count();
        match self.containers.last_mut() {
            Some(Container::List {
                next_number: Some(number),
            }) => {
                let marker = format!("{number}.");
                *number = number.saturating_add(1);
                marker
            }
            _ if depth > 1 => "◦".to_owned(),
            _ => "•".to_owned(),
        }
    }

    /// Appends text to the prose block being read, merging it into the last span when the
    /// styles match.
    fn push_text(&mut self, text: &str, style: InlineStyle) {
        if text.is_empty() {
            return;
        }
        if let Some(link) = &mut self.link {
            link.text.push_str(text);
        }
        match self.spans.last_mut() {
            Some(last) if last.style == style => last.text.push_str(text),
            _ => self.spans.push(InlineSpan {
                text: text.to_owned(),
                style,
            }),
        }
    }

    /// Finishes the prose block being read, dropping it if it holds no visible text.
    fn flush_prose(&mut self) {
        while let Some(last) = self.spans.last_mut() {
            let trimmed = last.text.trim_end_matches('\n').len();
            last.text.truncate(trimmed);
            if !last.text.is_empty() {
                break;
            }
            self.spans.pop();
        }
        if self.spans.iter().all(|span| span.text.trim().is_empty()) {
            self.spans.clear();
            return;
        }
        let marker = match self.containers.last() {
            Some(Container::Quote) => "│".to_owned(),
            _ => self.pending_marker.take().unwrap_or_default(),
        };
        self.blocks.push(MarkdownBlock::Prose {
            spans: std::mem::take(&mut self.spans),
            indent: u8::try_from(self.containers.len()).unwrap_or(u8::MAX),
            marker,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A span with the given text and style.
    fn span(text: &str, style: InlineStyle) -> InlineSpan {
        InlineSpan {
            text: text.to_owned(),
            style,
        }
    }

    /// A span of unstyled text.
    fn plain(text: &str) -> InlineSpan {
        span(text, InlineStyle::default())
    }

    /// A prose block.
    fn prose(spans: Vec<InlineSpan>, indent: u8, marker: &str) -> MarkdownBlock {
        MarkdownBlock::Prose {
            spans,
            indent,
            marker: marker.to_owned(),
        }
    }

    const STRONG: InlineStyle = InlineStyle {
        strong: true,
        emphasis: false,
        code: false,
        link: false,
    };
    const EMPHASIS: InlineStyle = InlineStyle {
        strong: false,
        emphasis: true,
        code: false,
        link: false,
    };
    const CODE: InlineStyle = InlineStyle {
        strong: false,
        emphasis: false,
        code: true,
        link: false,
    };
    const LINK: InlineStyle = InlineStyle {
        strong: false,
        emphasis: false,
        code: false,
        link: true,
    };

    #[test]
    fn paragraphs_are_separate_blocks() {
        assert_eq!(
            parse_markdown("first\n\n\n\nsecond"),
            vec![
                prose(vec![plain("first")], 0, ""),
                prose(vec![plain("second")], 0, "")
            ]
        );
    }

    #[test]
    fn emphasis_strong_and_inline_code() {
        assert_eq!(
            parse_markdown("a *b* **c** `d` ***e***"),
            vec![prose(
                vec![
                    plain("a "),
                    span("b", EMPHASIS),
                    plain(" "),
                    span("c", STRONG),
                    plain(" "),
                    span("d", CODE),
                    plain(" "),
                    span(
                        "e",
                        InlineStyle {
                            strong: true,
                            emphasis: true,
                            ..InlineStyle::default()
                        }
                    ),
                ],
                0,
                ""
            )]
        );
    }

    #[test]
    fn adjacent_spans_with_equal_style_are_merged() {
        assert_eq!(
            parse_markdown("one\ntwo *x*\nthree"),
            vec![prose(
                vec![plain("one two "), span("x", EMPHASIS), plain(" three")],
                0,
                ""
            )]
        );
    }

    #[test]
    fn fenced_code_block_keeps_language_and_drops_final_newline() {
        assert_eq!(
            parse_markdown("```rust ignore\nfn main() {\n    *x = 1;\n}\n```\nafter"),
            vec![
                MarkdownBlock::Code {
                    language: Some("rust".to_owned()),
                    text: "fn main() {\n    *x = 1;\n}".to_owned(),
                },
                prose(vec![plain("after")], 0, "")
            ]
        );
    }

    #[test]
    fn indented_and_unlabelled_code_blocks_have_no_language() {
        let expected = MarkdownBlock::Code {
            language: None,
            text: "x = 1\ny = 2".to_owned(),
        };
        assert_eq!(
            parse_markdown("    x = 1\n    y = 2\n"),
            vec![expected.clone()]
        );
        assert_eq!(parse_markdown("```\nx = 1\ny = 2\n```"), vec![expected]);
    }

    #[test]
    fn unordered_list_uses_bullets() {
        assert_eq!(
            parse_markdown("- one\n- two"),
            vec![
                prose(vec![plain("one")], 1, "•"),
                prose(vec![plain("two")], 1, "•")
            ]
        );
    }

    #[test]
    fn ordered_list_counts_from_its_start() {
        assert_eq!(
            parse_markdown("3. three\n4. four\n5. five"),
            vec![
                prose(vec![plain("three")], 1, "3."),
                prose(vec![plain("four")], 1, "4."),
                prose(vec![plain("five")], 1, "5.")
            ]
        );
    }

    #[test]
    fn nested_lists_indent_and_change_bullets() {
        assert_eq!(
            parse_markdown("- a\n  - b\n    1. c\n    2. d\n- e"),
            vec![
                prose(vec![plain("a")], 1, "•"),
                prose(vec![plain("b")], 2, "◦"),
                prose(vec![plain("c")], 3, "1."),
                prose(vec![plain("d")], 3, "2."),
                prose(vec![plain("e")], 1, "•")
            ]
        );
    }

    #[test]
    fn loose_list_item_marks_only_its_first_paragraph() {
        assert_eq!(
            parse_markdown("- first\n\n  more\n- next"),
            vec![
                prose(vec![plain("first")], 1, "•"),
                prose(vec![plain("more")], 1, ""),
                prose(vec![plain("next")], 1, "•")
            ]
        );
    }

    #[test]
    fn link_appends_url_when_text_differs() {
        assert_eq!(
            parse_markdown("see [the docs](https://example.com/d) now"),
            vec![prose(
                vec![
                    plain("see "),
                    span("the docs (https://example.com/d)", LINK),
                    plain(" now")
                ],
                0,
                ""
            )]
        );
    }

    #[test]
    fn link_without_text_shows_its_url() {
        assert_eq!(
            parse_markdown("[](https://example.com)"),
            vec![prose(vec![span("https://example.com", LINK)], 0, "")]
        );
    }

    #[test]
    fn autolink_is_not_repeated() {
        assert_eq!(
            parse_markdown("<https://example.com>"),
            vec![prose(vec![span("https://example.com", LINK)], 0, "")]
        );
    }

    #[test]
    fn headings_are_strong_prose() {
        assert_eq!(
            parse_markdown("# Title *here*\n\nbody"),
            vec![
                prose(
                    vec![
                        span("Title ", STRONG),
                        span(
                            "here",
                            InlineStyle {
                                strong: true,
                                emphasis: true,
                                ..InlineStyle::default()
                            }
                        )
                    ],
                    0,
                    ""
                ),
                prose(vec![plain("body")], 0, "")
            ]
        );
    }

    #[test]
    fn block_quote_gets_a_bar() {
        assert_eq!(
            parse_markdown("> quoted\n> more\n\nafter"),
            vec![
                prose(vec![plain("quoted more")], 1, "│"),
                prose(vec![plain("after")], 0, "")
            ]
        );
    }

    #[test]
    fn hard_break_becomes_newline() {
        assert_eq!(
            parse_markdown("line one  \nline two\\\nline three"),
            vec![prose(vec![plain("line one\nline two\nline three")], 0, "")]
        );
    }

    #[test]
    fn raw_html_is_kept_as_text() {
        assert_eq!(
            parse_markdown("a <b>bold</b> c"),
            vec![prose(vec![plain("a <b>bold</b> c")], 0, "")]
        );
        assert_eq!(
            parse_markdown("<div>\n<script>x</script>\n</div>"),
            vec![prose(
                vec![plain("<div>\n<script>x</script>\n</div>")],
                0,
                ""
            )]
        );
    }

    #[test]
    fn image_becomes_its_alt_text() {
        assert_eq!(
            parse_markdown("look: ![a *cat*](cat.png)"),
            vec![prose(vec![plain("look: a "), span("cat", EMPHASIS)], 0, "")]
        );
    }

    #[test]
    fn table_rows_become_plain_lines_and_rules_are_skipped() {
        assert_eq!(
            parse_markdown("| a | b |\n|---|---|\n| 1 | **2** |\n\n---\n\nend"),
            vec![
                prose(vec![plain("a | b")], 0, ""),
                prose(vec![plain("1 | "), span("2", STRONG)], 0, ""),
                prose(vec![plain("end")], 0, "")
            ]
        );
    }

    #[test]
    fn empty_paragraphs_and_items_are_dropped() {
        assert_eq!(parse_markdown(""), Vec::new());
        assert_eq!(parse_markdown("\n\n   \n"), Vec::new());
        assert_eq!(
            parse_markdown("-\n- x"),
            vec![prose(vec![plain("x")], 1, "•")]
        );
    }

    #[test]
    fn cyrillic_text_is_kept() {
        assert_eq!(
            parse_markdown("Привет, **мир**! Ёжик"),
            vec![prose(
                vec![plain("Привет, "), span("мир", STRONG), plain("! Ёжик")],
                0,
                ""
            )]
        );
    }

    #[test]
    fn text_that_is_not_markdown_stays_plain() {
        let text = "ERROR 2 * 3 = 6 at a_b_c (x < y) [1] {json: true}";
        assert_eq!(parse_markdown(text), vec![prose(vec![plain(text)], 0, "")]);
    }

    #[test]
    fn a_200_kb_line_parses_into_one_block() {
        let piece = "word *em* **st** `c` [l](u) <i> _x ";
        let line = piece.repeat((200 * 1024_usize).div_ceil(piece.len()));
        let blocks = parse_markdown(&line);
        assert_eq!(blocks.len(), 1);
        let plain_line = "слово ".repeat(200 * 1024 / 11);
        let blocks = parse_markdown(&plain_line);
        assert_eq!(
            blocks,
            vec![prose(vec![plain(plain_line.trim_end())], 0, "")]
        );
    }

    #[test]
    fn plain_text_drops_the_marks_and_keeps_the_words() {
        assert_eq!(
            plain_text("Roll out **4.13** to `prod`?"),
            "Roll out 4.13 to prod?"
        );
        assert_eq!(plain_text("- one\n- two"), "• one · • two");
        assert_eq!(plain_text(""), "");
    }
}
