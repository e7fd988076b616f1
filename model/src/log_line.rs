//! One line of a v1 log: how long it may be and what it parses to.
//!
//! This module owns the per-line rules (a length cap, UTF-8, a blank line is nothing, the
//! envelope's version and timestamp, an event type this build does not know). It knows nothing
//! of files, of line numbers or of the fold: a line is parsed on its own, so the lines of a log
//! can be parsed on any core in any order and folded afterwards in the order of the file.

use crate::event::{Event, EventBody, EVENT_LOG_VERSION};
use serde::Deserialize;
use std::borrow::Cow;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

#[derive(Deserialize)]
struct Envelope<'a> {
    v: u32,
    seq: u64,
    #[serde(borrow)]
    at: Cow<'a, str>,
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
}

/// A line that parsed: a known event, or one of a type this build skips.
pub(crate) enum ParsedLine {
    Known(Box<Event>),
    Unknown { seq: u64 },
}

/// What one line of a log holds, or why it holds nothing that can be folded.
pub(crate) enum LineOutcome {
    /// Nothing but white space.
    Blank,
    /// An event (or one of a type this build skips).
    Parsed(ParsedLine),
    /// Longer than [`MAX_LINE_BYTES`]: refused before it was parsed.
    Overlong(String),
    /// Not an event: broken UTF-8 or JSON, a wrong envelope or body.
    Broken(String),
}

fn json_reason(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let reason = text.split(" at line ").next().unwrap_or(&text);
    format!("{reason} (column {})", error.column())
}

fn parse_event(line: &str) -> Result<ParsedLine, String> {
    let envelope: Envelope = serde_json::from_str(line)
        .map_err(|error| format!("not a v1 event: {}", json_reason(&error)))?;
    if envelope.v != EVENT_LOG_VERSION {
        return Err(format!(
            "event version v={} is not supported (this build reads v{EVENT_LOG_VERSION})",
            envelope.v
        ));
    }
    OffsetDateTime::parse(&envelope.at, &Rfc3339)
        .map_err(|_| format!("at: \"{}\" is not an RFC 3339 timestamp", envelope.at))?;
    let Some(body) = EventBody::from_json(&envelope.kind, line) else {
        return Ok(ParsedLine::Unknown { seq: envelope.seq });
    };
    let body = body.map_err(|error| format!("{}: {}", envelope.kind, json_reason(&error)))?;
    Ok(ParsedLine::Known(Box::new(Event {
        v: envelope.v,
        seq: envelope.seq,
        at: envelope.at.into_owned(),
        body,
    })))
}

/// Parses one line's bytes, without its newline.
pub(crate) fn parse_line(raw: &[u8]) -> LineOutcome {
    if let Some(message) = overlong(raw.len()) {
        return LineOutcome::Overlong(message);
    }
    let Ok(line) = std::str::from_utf8(raw) else {
        return LineOutcome::Broken("not valid UTF-8".to_owned());
    };
    if line.trim().is_empty() {
        return LineOutcome::Blank;
    }
    match parse_event(line) {
        Ok(parsed) => LineOutcome::Parsed(parsed),
        Err(message) => LineOutcome::Broken(message),
    }
}

/// The most bytes one line of a log may hold. Our writers' lines are far shorter (a request
/// body is capped well below this), so a longer line is not an event but something else
/// written into the file: it is refused before it is parsed, and a line that never ends
/// cannot make a follower read without bound.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// Why a line of `len` bytes is refused, or none when it may be parsed.
pub(crate) fn overlong(len: usize) -> Option<String> {
    (len > MAX_LINE_BYTES).then(|| {
        format!(
            "a line of {:.1} MiB; a log line holds one event, at most {} MiB",
            len as f64 / f64::from(1 << 20),
            MAX_LINE_BYTES >> 20
        )
    })
}
