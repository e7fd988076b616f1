//! Neutralising untrusted agent text before it is shaped and drawn.
//!
//! This module owns the rules that make arbitrary text from an agent safe to hand to the
//! shaper: line breaks are normalised to `\n`, tabs become spaces, C0 controls and DEL are
//! shown in caret notation, as `cat -v` does (so an escape sequence reads `^[[31m` instead of
//! acting; caret notation is ASCII, which every font has, while the Control Pictures block is
//! missing from the embedded fonts), C1 controls become U+FFFD, bidi embedding, override and isolate controls are
//! removed (so text always shows in logical order and cannot spoof), every extended grapheme
//! cluster is capped at eight chars (so a combining-mark flood cannot grow a glyph without
//! bound), and the text is truncated to a caller-chosen number of input chars, never inside a
//! grapheme cluster. Other invisible formatting marks, such as U+200B and ZWJ, are kept.
//!
//! The cluster cap is applied to the text as it is emitted, so sanitising already sanitised
//! text returns it unchanged whenever the char limit is not reached. All work is a constant
//! amount per char, so even a 200 KB line is handled in a few milliseconds.
//!
//! It must not touch markdown, layout, fonts or drawing: it works on plain strings only, and it
//! never panics, whatever the input.

use unicode_segmentation::GraphemeCursor;

/// The most chars one extended grapheme cluster may keep; the rest of the cluster is dropped.
const MAX_CLUSTER_CHARS: usize = 8;

/// What a tab becomes in multi-line text.
const TAB_SPACES: &str = "    ";

/// Text made safe to shape and draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SanitizedText {
    /// The sanitised text.
    pub text: String,
    /// Characters cut off by the limit.
    pub truncated_chars: usize,
}

/// Makes untrusted text safe: see module docs. `max_chars` caps the output length (in chars,
/// counted on the input).
pub(crate) fn sanitize_untrusted(text: &str, max_chars: usize) -> SanitizedText {
    sanitize(text, max_chars, Context::MultiLine)
}

/// Same, for a single-line context (titles, labels, overview rows): newlines and tabs become
/// spaces too.
pub(crate) fn sanitize_single_line(text: &str, max_chars: usize) -> SanitizedText {
    sanitize(text, max_chars, Context::SingleLine)
}

/// Untrusted text made safe for one line of a terminal or a title bar, by the same rules:
/// controls in caret notation (an escape sequence cannot act), line breaks as spaces (the
/// line cannot split), bidi controls removed, and at most `max_chars` chars kept, the cut
/// marked with "…". For the app's error and warning lines, which quote what agents wrote.
pub fn one_line(text: &str, max_chars: usize) -> String {
    let clean = sanitize_single_line(text, max_chars);
    if clean.truncated_chars > 0 {
        format!("{}… ({} more chars)", clean.text, clean.truncated_chars)
    } else {
        clean.text
    }
}

/// Where the sanitised text will be drawn, which decides what line breaks and tabs become.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Context {
    /// Message bodies: line breaks are kept and a tab becomes four spaces.
    MultiLine,
    /// Titles, labels and overview rows: line breaks and tabs each become one space.
    SingleLine,
}

/// Applies every rule in one pass over the part of `text` that fits in `max_chars`.
fn sanitize(text: &str, max_chars: usize, context: Context) -> SanitizedText {
    let (kept, truncated_chars) = split_at_char_limit(text, max_chars);
    let mut out = ClusterCappedString::with_capacity(kept.len());
    let mut rest = kept;
    while let Some(c) = rest.chars().next() {
        let plain = rest.find(|c: char| !is_run_char(c)).unwrap_or(rest.len());
        if plain > 0 {
            let (run, after) = rest.split_at(plain);
            out.push_run(run);
            rest = after;
            continue;
        }
        rest = &rest[c.len_utf8()..];
        match c {
            '\r' if rest.starts_with('\n') => {}
            '\r' | '\n' => out.push(match context {
                Context::MultiLine => '\n',
                Context::SingleLine => ' ',
            }),
            '\t' => out.push_run(match context {
                Context::MultiLine => TAB_SPACES,
                Context::SingleLine => " ",
            }),
            '\u{0}'..='\u{1f}' => {
                out.push('^');
                out.push(char::from(c as u8 + 0x40));
            }
            '\u{7f}' => out.push_run("^?"),
            '\u{80}'..='\u{9f}' => out.push('\u{fffd}'),
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {}
            _ => out.push(c),
        }
    }
    SanitizedText {
        text: out.text,
        truncated_chars,
    }
}

/// Splits off the longest prefix of whole grapheme clusters holding at most `max_chars` chars,
/// returning it with the number of chars left out.
fn split_at_char_limit(text: &str, max_chars: usize) -> (&str, usize) {
    let total = text.chars().count();
    let Some((limit, _)) = text.char_indices().nth(max_chars) else {
        return (text, 0);
    };
    let mut cursor = GraphemeCursor::new(limit, text.len(), true);
    let cut = match cursor.is_boundary(text, 0) {
        Ok(true) => limit,
        _ => cursor.prev_boundary(text, 0).ok().flatten().unwrap_or(0),
    };
    let (kept, _) = text.split_at(cut);
    (kept, total - kept.chars().count())
}

/// Whether `c` is a common char that never joins the char before it into one grapheme
/// cluster, and never has the char after it joined onto it: printable ASCII, Latin, Greek,
/// Cyrillic, general punctuation, Control Pictures, kana, CJK ideographs, fullwidth forms and
/// U+FFFD.
///
/// This only speeds things up; chars outside the list take the exact, slower path.
fn stands_alone(c: char) -> bool {
    matches!(c,
        ' '..='~'
            | '\u{a0}'..='\u{a8}'
            | '\u{aa}'..='\u{ac}'
            | '\u{af}'..='\u{2ff}'
            | '\u{370}'..='\u{482}'
            | '\u{48a}'..='\u{52f}'
            | '\u{2010}'..='\u{2027}'
            | '\u{2400}'..='\u{2426}'
            | '\u{3041}'..='\u{3096}'
            | '\u{30a1}'..='\u{30fa}'
            | '\u{4e00}'..='\u{9fff}'
            | '\u{ff01}'..='\u{ff60}'
            | '\u{fffd}')
}

/// Whether `c` never joins into one grapheme cluster with a neighbour of the same kind: it
/// [stands alone](stands_alone) or is a precomposed Hangul syllable, which only joins the
/// conjoining jamo that may follow it.
///
/// Runs of such chars need no mapping and are copied in bulk.
fn is_run_char(c: char) -> bool {
    stands_alone(c) || ('\u{ac00}'..='\u{d7a3}').contains(&c)
}

/// Whether `c` is a combining mark from the blocks a diacritic flood is usually built from;
/// such a mark joins the cluster before it unless that cluster is a control.
///
/// This only speeds things up; marks outside the list take the exact, slower path.
fn is_common_combining_mark(c: char) -> bool {
    matches!(c,
        '\u{300}'..='\u{36f}'
            | '\u{483}'..='\u{489}'
            | '\u{1ab0}'..='\u{1ace}'
            | '\u{1dc0}'..='\u{1dff}'
            | '\u{20d0}'..='\u{20f0}'
            | '\u{fe20}'..='\u{fe2f}')
}

/// Decides cheaply, where it can, whether a grapheme cluster boundary lies between `last` and
/// `new`; `None` means the exact check is needed.
fn quick_boundary(last: char, new: char) -> Option<bool> {
    if new == '\n' || last == '\n' || (stands_alone(last) && stands_alone(new)) {
        Some(true)
    } else if is_common_combining_mark(new)
        && (stands_alone(last) || is_common_combining_mark(last))
    {
        Some(false)
    } else {
        None
    }
}

/// Whether a grapheme cluster boundary lies between `first` and `second` when the two stand
/// side by side with nothing before them.
fn pair_breaks(first: char, second: char) -> bool {
    quick_boundary(first, second).unwrap_or_else(|| {
        let mut buffer = [0; 8];
        let first_len = first.encode_utf8(&mut buffer).len();
        let second_len = second.encode_utf8(&mut buffer[first_len..]).len();
        let pair = std::str::from_utf8(&buffer[..first_len + second_len]).unwrap_or_default();
        GraphemeCursor::new(first_len, pair.len(), true)
            .is_boundary(pair, 0)
            .unwrap_or(true)
    })
}

/// A string whose grapheme clusters never grow past [`MAX_CLUSTER_CHARS`] chars.
///
/// Clusters are decided on the text as kept, so the result segments exactly as it was built.
/// A char that continues a full cluster is dropped. A char that would have started a new
/// cluster, but joins a full one because the chars that separated them were dropped, takes
/// the place of that cluster's last char instead, so a flood costs only its own excess and
/// never swallows the text after it.
struct ClusterCappedString {
    /// The text kept so far.
    text: String,
    /// Byte offset in `text` where its last grapheme cluster starts.
    cluster_start: usize,
    /// How many chars the last grapheme cluster holds.
    cluster_chars: usize,
    /// The last char kept, if any.
    last: Option<char>,
    /// The last char offered, kept or not, if any.
    offered: Option<char>,
    /// The char offered before the last one and the last one, if the last one was dropped as
    /// part of a flood and nothing has been kept since: the same pair is dropped again at once.
    dropped: Option<(char, char)>,
}

impl ClusterCappedString {
    /// An empty string with room for `bytes` bytes.
    fn with_capacity(bytes: usize) -> Self {
        Self {
            text: String::with_capacity(bytes),
            cluster_start: 0,
            cluster_chars: 0,
            last: None,
            offered: None,
            dropped: None,
        }
    }

    /// Appends a run of [run chars](is_run_char), in bulk once the last char kept is one too:
    /// from then on each char of the run starts a cluster of its own.
    fn push_run(&mut self, run: &str) {
        for (at, c) in run.char_indices() {
            if self.last.is_some_and(is_run_char) {
                let rest = &run[at..];
                self.text.push_str(rest);
                self.last = rest.chars().next_back();
                self.offered = self.last;
                self.dropped = None;
                self.cluster_start = self.text.len() - self.last.map_or(0, char::len_utf8);
                self.cluster_chars = 1;
                return;
            }
            self.push(c);
        }
    }

    /// Appends `c`, unless it continues a cluster that is already full.
    fn push(&mut self, c: char) {
        let Some(offered) = self.offered.replace(c) else {
            self.try_push(c);
            return;
        };
        if self.dropped == Some((offered, c)) || self.try_push(c) {
            return;
        }
        if !pair_breaks(offered, c) {
            self.dropped = Some((offered, c));
            return;
        }
        self.text.pop();
        self.cluster_chars = self.cluster_chars.saturating_sub(1);
        self.last = self.text[self.cluster_start..].chars().next_back();
        self.try_push(c);
    }

    /// Appends `c` if it starts a new cluster or its cluster has room, and says whether it did.
    fn try_push(&mut self, c: char) -> bool {
        let at = self.text.len();
        self.text.push(c);
        if self.starts_cluster(at, c) {
            self.cluster_start = at;
            self.cluster_chars = 1;
        } else if self.cluster_chars < MAX_CLUSTER_CHARS {
            self.cluster_chars += 1;
        } else {
            self.text.truncate(at);
            return false;
        }
        self.last = Some(c);
        self.dropped = None;
        true
    }

    /// Whether `new`, just pushed at byte offset `at`, begins a new grapheme cluster.
    ///
    /// Every rule that joins chars looks back no further than the start of the last cluster,
    /// so the exact check only needs that cluster (at most eight chars) plus the new char,
    /// which keeps each push cheap; common chars are decided without it.
    fn starts_cluster(&self, at: usize, new: char) -> bool {
        let Some(last) = self.last else {
            return true;
        };
        quick_boundary(last, new).unwrap_or_else(|| {
            let tail = &self.text[self.cluster_start..];
            GraphemeCursor::new(at - self.cluster_start, tail.len(), true)
                .is_boundary(tail, 0)
                .unwrap_or(true)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use unicode_segmentation::UnicodeSegmentation;

    /// Sanitises with a limit that is never reached.
    fn clean(text: &str) -> String {
        sanitize_untrusted(text, usize::MAX).text
    }

    /// Sanitises for a single line with a limit that is never reached.
    fn clean_line(text: &str) -> String {
        sanitize_single_line(text, usize::MAX).text
    }

    /// The length in chars of the longest grapheme cluster of `text`.
    fn longest_cluster(text: &str) -> usize {
        text.graphemes(true)
            .map(|g| g.chars().count())
            .max()
            .unwrap_or(0)
    }

    /// The number of extended grapheme clusters in `text`.
    fn clusters(text: &str) -> usize {
        text.graphemes(true).count()
    }

    /// Where the clusters of `text` start, as [`ClusterCappedString`] decides them.
    fn capped_cluster_starts(text: &str) -> Vec<usize> {
        let mut capped = ClusterCappedString::with_capacity(text.len());
        let mut starts = Vec::new();
        for c in text.chars() {
            let at = capped.text.len();
            capped.push(c);
            if capped.cluster_start == at && capped.cluster_chars == 1 {
                starts.push(at);
            }
        }
        starts
    }

    #[test]
    fn fast_path_chars_really_stand_alone() {
        for c in ('\0'..=char::MAX).filter(|&c| stands_alone(c)) {
            for context in [
                format!("x{c}"),
                format!("{c}x"),
                format!("{c}{c}"),
                format!("{c}\u{1161}"),
                format!("\u{1100}{c}"),
                format!("\u{ac00}{c}"),
                format!("\u{d7a3}{c}"),
                format!("\u{1f1fa}{c}"),
                format!("\u{915}\u{94d}{c}"),
                format!("\u{1f44d}\u{200d}{c}"),
            ] {
                assert_eq!(clusters(&context), 2, "{c:?} in {context:?}");
            }
            assert_eq!(clusters(&format!("{c}\u{301}")), 1, "{c:?} takes marks");
        }
    }

    #[test]
    fn run_chars_never_join_each_other() {
        for c in ('\0'..=char::MAX).filter(|&c| is_run_char(c) && !stands_alone(c)) {
            for context in [
                format!("x{c}"),
                format!("{c}x"),
                format!("{c}{c}"),
                format!("\u{ac00}{c}"),
            ] {
                assert_eq!(clusters(&context), 2, "{c:?} in {context:?}");
            }
        }
    }

    #[test]
    fn fast_path_marks_really_join() {
        for m in ('\0'..=char::MAX).filter(|&c| is_common_combining_mark(c)) {
            assert_eq!(clusters(&format!("a{m}{m}")), 1, "{m:?}");
            assert_eq!(clusters(&format!("\n{m}")), 2, "{m:?}");
        }
    }

    #[test]
    fn hostile_mixtures_are_capped_idempotent_and_clean() {
        let alphabet = [
            "a",
            "\r",
            "\n",
            "\t",
            "\u{1b}",
            "\u{85}",
            "\u{202e}",
            "\u{2067}",
            "\u{301}",
            "\u{489}",
            "\u{200d}",
            "\u{200b}",
            "\u{1f468}",
            "\u{1f3fd}",
            "\u{1f1fa}",
            "\u{1100}",
            "\u{1161}",
            "\u{11a8}",
            "\u{ac00}",
            "\u{600}",
            "\u{915}",
            "\u{94d}",
            "\u{93f}",
            "Ж",
            "\u{fe0f}",
            "\u{e0067}",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..300 {
            let mut text = String::new();
            for _ in 0..60 {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let pick = usize::try_from(seed >> 59).unwrap_or(0) % alphabet.len();
                let times = usize::try_from((seed >> 40) % 12).unwrap_or(0) + 1;
                text.push_str(&alphabet[pick].repeat(times));
            }
            let once = clean(&text);
            assert_eq!(clean(&once), once, "from {text:?}");
            assert!(longest_cluster(&once) <= MAX_CLUSTER_CHARS, "{once:?}");
            let library_starts: Vec<usize> = once.grapheme_indices(true).map(|(i, _)| i).collect();
            assert_eq!(capped_cluster_starts(&once), library_starts, "{once:?}");
            assert!(!once.chars().any(|c| c == '\r'
                || c == '\t'
                || ('\u{80}'..='\u{9f}').contains(&c)
                || ('\u{202a}'..='\u{202e}').contains(&c)
                || ('\u{2066}'..='\u{2069}').contains(&c)
                || (c.is_ascii_control() && c != '\n')));
        }
    }

    #[test]
    fn plain_text_and_newlines_are_kept() {
        assert_eq!(clean("hello\nworld\n"), "hello\nworld\n");
    }

    #[test]
    fn crlf_and_lone_cr_become_newline() {
        assert_eq!(clean("a\r\nb\rc\r\r\nd"), "a\nb\nc\n\nd");
    }

    #[test]
    fn tabs_become_four_spaces() {
        assert_eq!(clean("a\tb"), "a    b");
    }

    #[test]
    fn single_line_turns_breaks_and_tabs_into_single_spaces() {
        assert_eq!(clean_line("a\tb\nc\r\nd\re"), "a b c d e");
    }

    #[test]
    fn escape_sequence_shows_in_caret_notation() {
        assert_eq!(clean("\u{1b}[31mred\u{1b}[0m"), "^[[31mred^[[0m");
    }

    #[test]
    fn c0_controls_and_del_become_caret_notation() {
        assert_eq!(clean("\u{0}\u{7}\u{8}\u{1f}\u{7f}"), "^@^G^H^_^?");
        assert_eq!(clean_line("\u{0}\u{7f}"), "^@^?");
    }

    #[test]
    fn c1_controls_become_replacement_characters() {
        assert_eq!(
            clean("a\u{80}b\u{9b}c\u{9f}"),
            "a\u{fffd}b\u{fffd}c\u{fffd}"
        );
    }

    #[test]
    fn bidi_controls_are_removed() {
        let spoof =
            "abc\u{202a}\u{202b}\u{202c}\u{202d}\u{202e}def\u{2066}\u{2067}\u{2068}\u{2069}g";
        assert_eq!(clean(spoof), "abcdefg");
    }

    #[test]
    fn other_invisible_marks_are_kept() {
        assert_eq!(clean("a\u{200b}b\u{200d}c"), "a\u{200b}b\u{200d}c");
    }

    #[test]
    fn combining_flood_is_capped_at_eight_chars_per_cluster() {
        let flood = format!("e{}x", "\u{301}".repeat(2000));
        let expected = format!("e{}x", "\u{301}".repeat(7));
        assert_eq!(clean(&flood), expected);
    }

    #[test]
    fn flood_after_a_control_is_capped_on_the_output() {
        let flood = format!("\u{1}{}", "\u{301}".repeat(50));
        let once = clean(&flood);
        assert_eq!(once, format!("^A{}", "\u{301}".repeat(7)));
        assert_eq!(clean(&once), once);
    }

    #[test]
    fn emoji_family_survives_intact() {
        let family = "👨\u{200d}👩\u{200d}👧\u{200d}👦";
        let text = format!("{family} and 👍🏽 and 🇺🇦");
        assert_eq!(clean(&text), text);
    }

    #[test]
    fn prepend_flood_does_not_swallow_the_text_after_it() {
        let flood = format!("x{}abc", "\u{600}".repeat(20));
        let out = clean(&flood);
        assert_eq!(out, format!("x{}bc", "\u{600}".repeat(7)));
        assert_eq!(clean(&out), out);
    }

    #[test]
    fn long_zwj_chain_cannot_merge_with_the_next_cluster() {
        let chain = format!("{}👦👦", "👨\u{200d}".repeat(10));
        let once = clean(&chain);
        assert!(longest_cluster(&once) <= MAX_CLUSTER_CHARS);
        assert_eq!(clean(&once), once);
    }

    #[test]
    fn cyrillic_is_untouched() {
        let text = "Привет, мир! Ёжик в тумане.\nВторая строка.";
        assert_eq!(clean(text), text);
    }

    #[test]
    fn truncation_counts_cut_chars_and_keeps_clusters_whole() {
        let out = sanitize_untrusted("abe\u{301}cd", 3);
        assert_eq!(
            out,
            SanitizedText {
                text: "ab".to_owned(),
                truncated_chars: 4,
            }
        );
        let out = sanitize_untrusted("abcdef", 4);
        assert_eq!(out.text, "abcd");
        assert_eq!(out.truncated_chars, 2);
    }

    #[test]
    fn truncation_to_zero_and_exact_fit() {
        assert_eq!(sanitize_untrusted("héllo", 0).truncated_chars, 5);
        assert_eq!(sanitize_untrusted("héllo", 0).text, "");
        let exact = sanitize_untrusted("héllo", 5);
        assert_eq!(exact.text, "héllo");
        assert_eq!(exact.truncated_chars, 0);
    }

    #[test]
    fn crlf_is_never_split_by_truncation() {
        let out = sanitize_untrusted("ab\r\ncd", 3);
        assert_eq!(out.text, "ab");
        assert_eq!(out.truncated_chars, 4);
    }

    #[test]
    fn a_200_kb_line_is_sanitised_whole() {
        let piece = "abc déf\u{1b}[0m Жж\t";
        let line = piece.repeat((200 * 1024_usize).div_ceil(piece.len()));
        assert!(line.len() >= 200 * 1024);
        let out = sanitize_untrusted(&line, usize::MAX);
        assert_eq!(out.truncated_chars, 0);
        assert!(out.text.starts_with("abc déf^[[0m Жж    abc"));
        let cut = sanitize_untrusted(&line, 100);
        let first_100: String = line.chars().take(100).collect();
        assert_eq!(cut.text, clean(&first_100));
        assert_eq!(cut.truncated_chars, line.chars().count() - 100);
    }

    #[test]
    fn sanitising_twice_changes_nothing() {
        let hostile = format!(
            "x\r\ny\t\u{1b}[2J\u{7f}\u{85}\u{202e}evil\u{2069}\u{1}{}z\u{200d}\u{301}👨\u{200d}👩\u{200d}👧 Мир",
            "\u{300}".repeat(40)
        );
        let once = clean(&hostile);
        assert_eq!(clean(&once), once);
        let line = clean_line(&hostile);
        assert_eq!(clean_line(&line), line);
        assert!(!line.contains('\n'));
    }

    #[test]
    fn one_line_cannot_act_on_a_terminal_nor_split_nor_flood_it() {
        let hostile = format!(
            "bad \x1b]0;pwned\x07 title\nsecond line\r\u{202E}{}",
            "x".repeat(5_000)
        );
        let line = one_line(&hostile, 200);
        assert!(!line.chars().any(|c| c.is_control()), "{line:?}");
        assert!(
            line.starts_with("bad ^[]0;pwned^G title second line"),
            "{line:?}"
        );
        assert!(!line.contains('\u{202E}'));
        assert!(line.ends_with(" more chars)"), "{line:?}");
        assert!(line.chars().count() < 240, "cut near 200 chars: {line:?}");
        assert_eq!(one_line("plain", 200), "plain");
    }
}
