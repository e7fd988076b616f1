//! `chatsurface open [LOG]` and `chatsurface` alone: the native window (alone, with the local
//! API served in-process).

use crate::cli::OpenArgs;
use crate::error::AppError;
use crate::paths::{data_dir, socket_path};
use crate::window::{default_session, WindowOptions};
use chatsurface_compositor::{Density, Theme};

/// Opens the window on a log, or on the store's most recent session (or the demo).
pub(super) fn run(args: &OpenArgs) -> Result<(), AppError> {
    // With no log named, the window is the surface for the store: it serves the same API
    // in-process (unless `chatsurface serve` already does) and opens the newest session.
    let (log, follow_store, server) = match &args.log {
        Some(log) => (log.clone(), None, None),
        None => (
            default_session(&data_dir())?,
            Some(data_dir()),
            super::serve::start_in_process()?,
        ),
    };
    let theme = args.theme.map(Theme::from).unwrap_or(if args.mfd {
        Theme::Cockpit
    } else {
        Theme::Dark
    });
    let density = args.density.map(Density::from).unwrap_or(if args.mfd {
        Density::Compact
    } else {
        Density::Comfortable
    });
    let size = args
        .size
        .unwrap_or(if args.mfd { (600, 1000) } else { (1280, 800) });
    let options = WindowOptions {
        log,
        format: args.format,
        theme,
        density,
        size,
        bench_frames: args.bench_frames,
        stats: args.stats.clone(),
        follow_store,
        notify: !args.no_notify,
    };
    outlive_a_window_panic(
        || crate::window::run(options),
        || {
            if let Some(server) = server {
                tracing::info!(
                    "the local API goes on serving agents' questions on {} (answer them with \
                     `chatsurface open` again, or curl /v1/pending); Ctrl+C stops it",
                    socket_path().display()
                );
                server.serve_until_signal();
            }
        },
    )
}

/// Runs the window; if it panics, says so in one line and runs `keep_serving` (the in-process
/// API waits for a signal) before returning an internal error. Agents asking questions must
/// not lose them to a bug in drawing.
fn outlive_a_window_panic(
    window: impl FnOnce() -> Result<(), AppError>,
    keep_serving: impl FnOnce(),
) -> Result<(), AppError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(window)) {
        Ok(outcome) => outcome,
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("no message");
            tracing::error!("the window failed: {what}");
            keep_serving();
            Err(AppError::Internal(format!(
                "the window failed ({what}); please report it with the log"
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_panic_leaves_the_server_serving_and_exits_with_an_internal_error() {
        let mut served = false;
        let outcome = outlive_a_window_panic(|| panic!("index out of bounds"), || served = true);
        assert!(served, "the server went on serving");
        let error = outcome.unwrap_err();
        assert_eq!(error.exit_code(), 70);
        assert!(error.to_string().contains("index out of bounds"), "{error}");
    }

    #[test]
    fn a_window_that_closes_normally_does_not_keep_serving() {
        let mut served = false;
        let outcome = outlive_a_window_panic(|| Ok(()), || served = true);
        assert!(outcome.is_ok());
        assert!(!served);
    }
}
