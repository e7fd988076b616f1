//! One module per subcommand; [`run`] dispatches.

mod bench;
mod gen;
mod integration;
mod mcp;
mod open;
mod render;
mod serve;
mod snapshot;

use crate::cli::{Cli, Command};
use crate::error::AppError;
use chatsurface_model::{read_log, LoadedLog};
use std::path::Path;

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<(), AppError> {
    let Some(command) = cli.command else {
        return open::run(&crate::cli::OpenArgs::default());
    };
    match command {
        Command::Open(args) => open::run(&args),
        Command::Render(args) => render::run(&args),
        Command::Snapshot { log } => snapshot::run(&log),
        Command::Gen(args) => gen::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Serve { listen } => serve::run(listen),
        Command::Integration { action } => integration::run(action),
        Command::Mcp { session } => mcp::run(session),
        Command::Ask(args) => Err(AppError::Usage(format!(
            "ask {}: handled by main, which owns its exit codes",
            args.slug
        ))),
    }
}

/// Reads and folds a log, printing its warnings (a torn last line) on stderr.
fn load(path: &Path) -> Result<LoadedLog, AppError> {
    let loaded = read_log(path)?;
    for warning in &loaded.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(loaded)
}

/// Writes a file so that it is either whole or absent: a temporary file beside it, fsynced,
/// then renamed over the target.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), AppError> {
    use std::io::Write;
    let fail = |what: &str, error: std::io::Error| {
        AppError::CannotCreate(format!("{}: cannot {what}: {error}", path.display()))
    };
    let name = path
        .file_name()
        .ok_or_else(|| AppError::Usage(format!("{}: not a file name", path.display())))?;
    let temporary = path.with_file_name(format!(
        ".{}.partial-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = std::fs::File::create(&temporary)
        .and_then(|mut file| file.write_all(bytes).and_then(|()| file.sync_all()))
        .and_then(|()| std::fs::rename(&temporary, path));
    if let Err(error) = result {
        let _ = std::fs::remove_file(&temporary);
        return Err(fail("write", error));
    }
    Ok(())
}
