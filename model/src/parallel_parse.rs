//! Parsing a log's lines on all cores and handing them to the fold in the order of the file.
//!
//! Opening a log without a checkpoint spends most of its time parsing JSON, and each line
//! parses on its own ([`crate::log_line`]). So the bytes are cut at newlines into batches of a
//! few MiB; a batch is parsed by rayon's pool while the fold takes the batch before it, line by
//! line, in order. The fold sees exactly the lines, in exactly the order, that a fold parsing one
//! line at a time would see, so the snapshot, the warnings and the first error (its line number
//! included) are the same; parallelism only decides which core parsed a line. Memory holds two
//! batches of parsed events beside the snapshot, not the whole log's, and a log broken near its
//! start is not parsed to its end.
//!
//! This module owns the cutting and the scheduling; what a line means belongs to
//! [`crate::log_line`], and what an event does to the fold belongs to the fold.

use crate::log_line::{parse_line, LineOutcome};
use rayon::prelude::*;
use std::ops::ControlFlow;

/// How many bytes of lines one batch holds, at least (a batch ends at the newline after this).
/// Large enough that the pool's hand-off costs nothing beside the parsing, small enough that
/// two batches of parsed events are a small part of the snapshot's memory.
pub(crate) const BATCH_BYTES: usize = 2 << 20;

/// Batches of fewer lines are parsed on the calling thread: waking the pool costs more than
/// parsing a few lines.
const PARALLEL_MIN_LINES: usize = 64;

/// One line of the log, parsed.
pub(crate) struct LogLine<'a> {
    /// The 1-based line number in the file.
    pub(crate) number: usize,
    /// The line's bytes, without its newline.
    pub(crate) raw: &'a [u8],
    /// Whether a newline ends it (only the file's last line may lack one).
    pub(crate) terminated: bool,
    /// The byte offset just after the line and its newline.
    pub(crate) end: usize,
    /// What it holds.
    pub(crate) outcome: LineOutcome,
}

/// A line cut out of the log, not parsed yet.
struct Cut<'a> {
    number: usize,
    raw: &'a [u8],
    terminated: bool,
    end: usize,
}

/// Cuts the lines from `offset` on until they hold at least `batch_bytes`, or the bytes end.
fn cut_batch<'a>(
    bytes: &'a [u8],
    mut offset: usize,
    mut number: usize,
    batch_bytes: usize,
) -> Vec<Cut<'a>> {
    let start = offset;
    let mut cuts = Vec::new();
    while offset < bytes.len() && offset - start < batch_bytes {
        number += 1;
        let rest = &bytes[offset..];
        let (raw, terminated) = match memchr::memchr(b'\n', rest) {
            Some(end) => (&rest[..end], true),
            None => (rest, false),
        };
        offset += raw.len() + usize::from(terminated);
        cuts.push(Cut {
            number,
            raw,
            terminated,
            end: offset,
        });
    }
    cuts
}

fn parse_cut(cut: Cut<'_>) -> LogLine<'_> {
    LogLine {
        number: cut.number,
        raw: cut.raw,
        terminated: cut.terminated,
        end: cut.end,
        outcome: parse_line(cut.raw),
    }
}

fn parse_batch(cuts: Vec<Cut<'_>>) -> Vec<LogLine<'_>> {
    if cuts.len() < PARALLEL_MIN_LINES {
        cuts.into_iter().map(parse_cut).collect()
    } else {
        cuts.into_par_iter().map(parse_cut).collect()
    }
}

/// Hands every line of `bytes` from byte `offset` on to `fold`, parsed, in the order of the
/// file, stopping when `fold` breaks. The line at `offset` is numbered `lines_before + 1`
/// (the lines before `offset` were folded earlier, from a checkpoint). Batches of at
/// least `batch_bytes` are parsed ahead on the pool while `fold` takes the one before.
///
/// `fold` runs on the calling thread, never on the pool: the snapshot it builds then lives in
/// the caller's allocator arena, and only the parsed events cross from the pool.
pub(crate) fn fold_lines_in_order<B>(
    bytes: &[u8],
    offset: usize,
    lines_before: usize,
    batch_bytes: usize,
    mut fold: impl FnMut(LogLine<'_>) -> ControlFlow<B>,
) -> ControlFlow<B> {
    let batch_bytes = batch_bytes.max(1);
    let mut parsed = parse_batch(cut_batch(bytes, offset, lines_before, batch_bytes));
    while let Some(last) = parsed.last() {
        let cuts = cut_batch(bytes, last.end, last.number, batch_bytes);
        let mut next = Vec::new();
        let folded = rayon::in_place_scope(|scope| {
            scope.spawn(|_| next = parse_batch(cuts));
            parsed.into_iter().try_for_each(&mut fold)
        });
        folded?;
        parsed = next;
    }
    ControlFlow::Continue(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers_and_ends(bytes: &[u8], batch_bytes: usize) -> Vec<(usize, usize, bool)> {
        let mut seen = Vec::new();
        let flow: ControlFlow<()> = fold_lines_in_order(bytes, 0, 0, batch_bytes, |line| {
            seen.push((line.number, line.end, line.terminated));
            ControlFlow::Continue(())
        });
        assert!(flow.is_continue());
        seen
    }

    #[test]
    fn every_batch_size_sees_the_same_lines_in_order() {
        let text: String = (0..500).map(|n| format!("line {n}\n")).collect::<String>() + "tail";
        let one_at_a_time = numbers_and_ends(text.as_bytes(), 1);
        assert_eq!(one_at_a_time.len(), 501);
        assert_eq!(one_at_a_time[0], (1, 7, true));
        assert_eq!(one_at_a_time[500], (501, text.len(), false));
        for batch_bytes in [2, 7, 100, 4096, BATCH_BYTES] {
            assert_eq!(
                numbers_and_ends(text.as_bytes(), batch_bytes),
                one_at_a_time,
                "batch of {batch_bytes} bytes"
            );
        }
    }

    #[test]
    fn a_break_stops_before_the_next_line() {
        let text: String = (0..300).map(|n| format!("{n}\n")).collect();
        let mut seen = 0;
        let flow = fold_lines_in_order(text.as_bytes(), 0, 0, 16, |line| {
            seen += 1;
            if line.number == 120 {
                ControlFlow::Break(line.number)
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!(flow, ControlFlow::Break(120));
        assert_eq!(seen, 120);
    }

    #[test]
    fn lines_after_an_offset_are_numbered_after_the_lines_before_it() {
        let text = b"one\ntwo\nthree\n";
        let mut seen = Vec::new();
        let flow: ControlFlow<()> = fold_lines_in_order(text, 4, 1, 1, |line| {
            seen.push((line.number, line.raw.to_vec()));
            ControlFlow::Continue(())
        });
        assert!(flow.is_continue());
        assert_eq!(seen, [(2, b"two".to_vec()), (3, b"three".to_vec())]);
    }

    #[test]
    fn an_empty_log_has_no_lines() {
        assert!(numbers_and_ends(b"", BATCH_BYTES).is_empty());
        assert!(numbers_and_ends(b"abc", BATCH_BYTES)[0] == (1, 3, false));
    }
}
