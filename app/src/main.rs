//! The `chatsurface` command.
//!
//! Parsing and dispatch only: each subcommand lives in `commands/`, and every failure is
//! reported as one line on stderr with a sysexits-style exit code, never a panic.

use chatsurface::cli::Cli;
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    chatsurface::logging::init();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return chatsurface::cli::report_usage_error(error),
    };
    if let Some(chatsurface::cli::Command::Ask(args)) = &cli.command {
        return ExitCode::from(chatsurface::client::ask::run(args));
    }
    match chatsurface::commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {}", chatsurface::logging::one_line(&error));
            ExitCode::from(error.exit_code())
        }
    }
}
