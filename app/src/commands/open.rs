//! `chatsurface open [LOG]` and `chatsurface` alone: the native window.

use crate::cli::OpenArgs;
use crate::error::AppError;
use crate::paths::data_dir;
use crate::window::{default_session, WindowOptions};
use chatsurface_compositor::theme::{Density, Theme};

/// Opens the window on a log, or on the store's most recent session (or the demo).
pub fn run(args: &OpenArgs) -> Result<(), AppError> {
    let log = match &args.log {
        Some(log) => log.clone(),
        None => default_session(&data_dir())?,
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
    })
}
