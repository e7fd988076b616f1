//! `chatsurface gen`: a large synthetic session for benchmarks.

use crate::cli::GenArgs;
use crate::dev::generate::{generate, generate_breadth, GeneratorConfig};
use crate::error::AppError;
use chatsurface_model::LogWriter;

/// Writes a generated session to a new file.
pub(super) fn run(args: &GenArgs) -> Result<(), AppError> {
    if args.out.exists() {
        return Err(AppError::Usage(format!(
            "{}: already exists; gen writes new logs only",
            args.out.display()
        )));
    }
    if args.threads == 0 {
        return Err(AppError::Usage("--threads: must be at least 1".into()));
    }
    let config = GeneratorConfig {
        messages: args.messages,
        threads: args.threads,
        batches: args.batches,
        seed: args.seed,
    };
    let mut writer =
        LogWriter::open(&args.out).map_err(|error| AppError::CannotCreate(error.to_string()))?;
    let events = if args.breadth {
        generate_breadth(&config)
    } else {
        generate(&config)
    };
    let written = writer
        .append_all(events)
        .map_err(|error| AppError::CannotCreate(error.to_string()))?;
    tracing::info!("wrote {} events to {}", written.len(), args.out.display());
    Ok(())
}
