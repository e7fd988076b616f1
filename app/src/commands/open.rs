//! `chatsurface open [LOG]` and `chatsurface` alone: the native window (alone, with the local
//! API served in-process).

use crate::cli::OpenArgs;
use crate::error::AppError;
use crate::paths::data_dir;
use crate::window::{default_session, WindowOptions};
use chatsurface_compositor::theme::{Density, Theme};

/// Opens the window on a log, or on the store's most recent session (or the demo).
pub fn run(args: &OpenArgs) -> Result<(), AppError> {
    // With no log named, the window is the surface for the store: it serves the same API
    // in-process (unless `chatsurface serve` already does) and opens the newest session.
    let (log, follow_store, _server) = match &args.log {
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
    crate::window::run(WindowOptions {
        log,
        theme,
        density,
        size,
        bench_frames: args.bench_frames,
        stats: args.stats.clone(),
        follow_store,
    })
}
