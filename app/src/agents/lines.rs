//! The lines of an agent's transcript (JSON Lines), read from a stream: a byte-order mark
//! first is skipped, blank lines are passed over, a line longer than a v1 log's line may be
//! is skipped with a warning (without ever being held whole), and a last line without its
//! newline (still being written) is left for the next read.
//!
//! This module owns only the cutting into lines and the warnings about it; what a line
//! means is its reader's.

use chatsurface_model::MAX_LINE_BYTES;
use std::io::{BufRead, Read};
use std::path::Path;

/// One whole line of a transcript.
pub(crate) struct Line<'a> {
    /// Its number in the file, from 1, for warnings.
    pub(crate) number: usize,
    /// The byte of the file it starts at.
    pub(crate) start: u64,
    /// Its bytes, without the newline.
    pub(crate) bytes: &'a [u8],
}

/// Hands each whole, non-blank line of `reader` to `take`, in order, holding one line at a
/// time; `take` answers the warning for a line it cannot use. Warnings name `path:line` and
/// say what is wrong in terms of `what` (a "Claude Code record"); a read error ends the
/// lines with a warning naming the byte it stopped at.
pub(crate) fn for_each_line(
    path: &Path,
    mut reader: impl BufRead,
    what: &str,
    warnings: &mut Vec<String>,
    mut take: impl FnMut(Line<'_>) -> Option<String>,
) {
    let mut line = Vec::new();
    let mut start = 0u64;
    for number in 1.. {
        line.clear();
        // One byte over the cap tells a line at the cap from one beyond it.
        let limit = MAX_LINE_BYTES as u64 + 2;
        let read = match reader.by_ref().take(limit).read_until(b'\n', &mut line) {
            Ok(read) => read,
            Err(error) => return stopped(path, start, &error, warnings),
        };
        if read == 0 {
            return;
        }
        let line_start = start;
        start += read as u64;
        let whole = line.last() == Some(&b'\n');
        if !whole && line.len() as u64 == limit {
            match skip_rest_of_line(&mut reader) {
                Ok((skipped, true)) => {
                    start += skipped;
                    warnings.push(too_long(path, number, start - line_start, what));
                    continue;
                }
                // The endless line is the last one, still being written.
                Ok((_, false)) => return,
                Err(error) => return stopped(path, start, &error, warnings),
            }
        }
        if !whole {
            return;
        }
        line.pop();
        let mut bytes = line.as_slice();
        if line_start == 0 {
            bytes = without_bom(bytes);
        }
        if bytes.len() > MAX_LINE_BYTES {
            warnings.push(too_long(path, number, bytes.len() as u64 + 1, what));
            continue;
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let warning = take(Line {
            number,
            start: line_start,
            bytes,
        });
        warnings.extend(warning);
    }
}

/// Reads past the rest of a line; returns the bytes read and whether a newline ended them.
fn skip_rest_of_line(reader: &mut impl BufRead) -> std::io::Result<(u64, bool)> {
    let mut skipped = 0u64;
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            return Ok((skipped, false));
        }
        match buffer.iter().position(|&byte| byte == b'\n') {
            Some(end) => {
                reader.consume(end + 1);
                return Ok((skipped + end as u64 + 1, true));
            }
            None => {
                let len = buffer.len();
                reader.consume(len);
                skipped += len as u64;
            }
        }
    }
}

fn too_long(path: &Path, number: usize, len: u64, what: &str) -> String {
    format!(
        "{}:{number}: a line of {:.1} MiB, over the {} MiB a {what} may take; skipped",
        path.display(),
        len as f64 / f64::from(1 << 20),
        MAX_LINE_BYTES >> 20
    )
}

fn stopped(path: &Path, at: u64, error: &std::io::Error, warnings: &mut Vec<String>) {
    warnings.push(format!(
        "{}: cannot read past byte {at}: {}; the rest is not shown",
        path.display(),
        chatsurface_model::io_reason(error)
    ));
}

/// `bytes` without the UTF-8 byte-order mark some editors and tools put first.
pub(crate) fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// A line that is not a JSON object: the warning naming it.
pub(crate) fn not_an_object(path: &Path, line: &Line<'_>, what: &str, why: &str) -> String {
    format!(
        "{}:{}: not a {what} ({why}); skipped",
        path.display(),
        line.number
    )
}

/// The JSON objects of the whole lines of `reader`, each handed to `take` with its line as it
/// is parsed; a line that is not one is skipped with a warning.
pub(crate) fn for_each_json_object(
    path: &Path,
    reader: impl BufRead,
    what: &str,
    warnings: &mut Vec<String>,
    mut take: impl FnMut(&Line<'_>, serde_json::Value),
) {
    for_each_line(
        path,
        reader,
        what,
        warnings,
        |line| match serde_json::from_slice::<serde_json::Value>(line.bytes) {
            Ok(value @ serde_json::Value::Object(_)) => {
                take(&line, value);
                None
            }
            Ok(_) => Some(not_an_object(path, &line, what, "not a JSON object")),
            Err(error) => Some(not_an_object(path, &line, what, &error.to_string())),
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(bytes: &[u8]) -> (Vec<(usize, u64, String)>, Vec<String>) {
        let mut warnings = Vec::new();
        let mut lines = Vec::new();
        for_each_line(
            Path::new("t.jsonl"),
            bytes,
            "record",
            &mut warnings,
            |line| {
                lines.push((
                    line.number,
                    line.start,
                    String::from_utf8_lossy(line.bytes).into_owned(),
                ));
                None
            },
        );
        (lines, warnings)
    }

    #[test]
    fn a_bom_blank_lines_and_the_unfinished_tail_are_passed_over() {
        let (lines, warnings) = lines_of(b"\xEF\xBB\xBF{\"n\":1}\n\n  \n{\"n\":2}\n{\"n\":3");
        assert_eq!(
            lines,
            [
                (1, 0, "{\"n\":1}".to_owned()),
                (4, 15, "{\"n\":2}".to_owned())
            ]
        );
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn a_line_over_the_cap_is_skipped_with_its_size_and_the_next_one_read() {
        let long = format!("{{\"text\":\"{}\"}}", "x".repeat(MAX_LINE_BYTES));
        let bytes = format!("{{\"n\":1}}\n{long}\n{{\"n\":3}}\n");
        let (lines, warnings) = lines_of(bytes.as_bytes());
        let numbers: Vec<usize> = lines.iter().map(|line| line.0).collect();
        assert_eq!(numbers, [1, 3]);
        assert_eq!(
            lines[1].1,
            8 + long.len() as u64 + 1,
            "the offset counts it"
        );
        assert_eq!(
            warnings,
            ["t.jsonl:2: a line of 16.0 MiB, over the 16 MiB a record may take; skipped"]
        );
    }

    #[test]
    fn an_endless_last_line_is_left_unread_without_a_warning() {
        let bytes = format!("{{\"n\":1}}\n{}", "x".repeat(MAX_LINE_BYTES + 10));
        let (lines, warnings) = lines_of(bytes.as_bytes());
        assert_eq!(lines.len(), 1);
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn a_line_exactly_at_the_cap_is_read() {
        let at_cap = format!("\"{}\"", "x".repeat(MAX_LINE_BYTES - 2));
        let (lines, warnings) = lines_of(format!("{at_cap}\n").as_bytes());
        assert_eq!(lines.len(), 1);
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn json_objects_skip_what_is_not_one_with_warnings_in_line_order() {
        let long = format!("{{\"text\":\"{}\"}}", "x".repeat(MAX_LINE_BYTES));
        let bytes = format!("{{\"n\":1}}\n[1]\n{long}\n{{\"n\":4}}\nnot json\n{{\"n\":5");
        let mut warnings = Vec::new();
        let mut numbers = Vec::new();
        for_each_json_object(
            Path::new("t.jsonl"),
            bytes.as_bytes(),
            "record",
            &mut warnings,
            |_, value| numbers.push(value["n"].clone()),
        );
        assert_eq!(numbers, [serde_json::json!(1), serde_json::json!(4)]);
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(warnings[0].starts_with("t.jsonl:2: not a record (not a JSON object)"));
        assert!(warnings[1].starts_with("t.jsonl:3: a line of 16.0 MiB"));
        assert!(warnings[2].starts_with("t.jsonl:5: not a record ("));
    }
}
