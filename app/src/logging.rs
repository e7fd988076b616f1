//! Diagnostics through `tracing`, set up once by `main` ([`init`]).
//!
//! What a command reports as it works (a torn last line, a server starting, a log that cannot
//! be followed) is a `tracing` event with a level, not an `eprintln!`, so `CHATSURFACE_LOG`
//! chooses what is shown: an `EnvFilter` such as `debug` or `chatsurface=trace,warn`, this app's
//! info and other crates' warnings when unset. Lines go to stderr and read as the command line has always written them:
//! `error: …`, `warning: …`, an info line bare, `debug: …` / `trace: …` below. A command's
//! own output (stdout) and the one-line error `main` prints on failure are not diagnostics
//! and do not come here, but they are made safe the same way ([`one_line`]): an error or a
//! warning often quotes what an agent wrote (a log line, a title), and that text must not
//! drive the terminal, split the line or flood the screen.

use std::fmt;
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::EnvFilter;

/// The environment variable that sets the filter.
pub const LOG_VAR: &str = "CHATSURFACE_LOG";

/// What is shown when the variable is unset: this app's info and above, other crates' (the
/// MCP and HTTP libraries') warnings only.
const DEFAULT_FILTER: &str = "warn,chatsurface=info";

/// Installs the stderr subscriber with the filter of [`LOG_VAR`]; a filter that cannot be
/// read is named in a warning and the default is used. Calling it twice does nothing.
pub fn init() {
    let (filter, bad) = match std::env::var(LOG_VAR) {
        Ok(text) if !text.trim().is_empty() => match EnvFilter::try_new(&text) {
            Ok(filter) => (filter, None),
            Err(error) => (
                EnvFilter::new(DEFAULT_FILTER),
                Some(format!("{text:?}: {error}")),
            ),
        },
        _ => (EnvFilter::new(DEFAULT_FILTER), None),
    };
    let installed = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .event_format(Plain)
        .try_init()
        .is_ok();
    if let (true, Some(bad)) = (installed, bad) {
        tracing::warn!("{LOG_VAR}={bad}; using the default");
    }
}

/// The most chars of one error or warning line; a 50 MB value in a log is not echoed whole.
pub const LINE_CHARS: usize = 2_000;

/// A message as one safe line of stderr: controls in caret notation, line breaks as spaces,
/// bidi controls removed, cut at [`LINE_CHARS`].
pub fn one_line(message: &dyn fmt::Display) -> String {
    chatsurface_compositor::one_line(&message.to_string(), LINE_CHARS)
}

/// The words that start a line of this level (none for info).
fn prefix(level: Level) -> &'static str {
    match level {
        Level::ERROR => "error: ",
        Level::WARN => "warning: ",
        Level::INFO => "",
        Level::DEBUG => "debug: ",
        Level::TRACE => "trace: ",
    }
}

/// The line format: the level's prefix, the message and its fields, nothing else (no time,
/// no target), since a person reads these in a terminal beside the command.
struct Plain;

impl<S, N> FormatEvent<S, N> for Plain
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        context: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let mut message = String::new();
        context
            .field_format()
            .format_fields(Writer::new(&mut message), event)?;
        writer.write_str(prefix(*event.metadata().level()))?;
        writeln!(writer, "{}", one_line(&message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_read_as_the_command_line_writes_them() {
        assert_eq!(prefix(Level::WARN), "warning: ");
        assert_eq!(prefix(Level::ERROR), "error: ");
        assert_eq!(prefix(Level::INFO), "");
    }

    #[test]
    fn a_quoted_escape_sequence_or_newline_stays_inert_on_one_line() {
        let line = one_line(&"log.jsonl:3: bad title \x1b[2J\ncleared?");
        assert_eq!(line, "log.jsonl:3: bad title ^[[2J cleared?");
        let huge = one_line(&"y".repeat(50_000));
        assert!(huge.chars().count() < LINE_CHARS + 40, "{}", huge.len());
    }
}
