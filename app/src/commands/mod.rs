//! One module per subcommand; [`run`] dispatches.

mod bench;
mod bridge_token;
mod codex;
mod gen;
mod hook;
mod install;
mod integration;
mod map;
mod mcp;
mod open;
mod render;
mod search;
mod serve;
mod sessions;
mod snapshot;

use crate::agents::Format;
use crate::cli::{Cli, Command};
use crate::error::AppError;
use chatsurface_model::LoadedLog;
use std::path::Path;

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<(), AppError> {
    let Some(command) = cli.command else {
        return open::run(&crate::cli::OpenArgs::default());
    };
    match command {
        Command::Open(args) => open::run(&args),
        Command::Render(args) => render::run(&args),
        Command::Snapshot { log, format, tree } => snapshot::run(&log, format, tree),
        Command::Map(args) => map::run(&args),
        Command::Search(args) => search::run(&args),
        Command::Sessions { json } => sessions::run(json),
        Command::Gen(args) => gen::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Serve { listen } => serve::run(listen),
        Command::Integration { action } => integration::run(action),
        Command::Mcp { session } => mcp::run(session),
        Command::Hook {
            agent: crate::cli::BridgedAgent::ClaudeCode,
            give_up_after,
        } => hook::run(std::time::Duration::from_secs(give_up_after)),
        Command::Install(args) => install::run(&args),
        Command::Codex(args) => codex::run(&args),
        Command::Ask(args) => Err(AppError::Usage(format!(
            "ask {}: handled by main, which owns its exit codes",
            args.slug
        ))),
    }
}

/// Reads and folds a session file (a v1 log or an agent's transcript, in `format` or as its
/// content says), printing its warnings (a torn last line, a skipped record) on stderr.
fn load(path: &Path, format: Option<Format>) -> Result<LoadedLog, AppError> {
    let loaded = crate::agents::load(path, format)?;
    for warning in &loaded.warnings {
        tracing::warn!("{warning}");
    }
    Ok(loaded)
}

/// Prints a command's output on stdout. A reader that closed the pipe (`| head`) has all it
/// wanted, so a broken pipe is not an error; any other failure is one line.
pub(crate) fn print(text: &str) -> Result<(), AppError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(AppError::CannotCreate(format!("stdout: {error}")))
        }
        _ => Ok(()),
    }
}

/// Writes an output file whole or not at all (see [`crate::fsutil`]).
pub(crate) fn write_output(path: &Path, bytes: &[u8]) -> Result<(), AppError> {
    crate::fsutil::write_atomically(path, bytes, 0o644)
        .map_err(|error| AppError::CannotCreate(error.to_string()))
}
