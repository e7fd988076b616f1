//! `chatsurface install claude-code [--project DIR | --user] [--uninstall] [--dry-run]`: puts
//! the bridge's hook into Claude Code's settings file, or takes it out.
//!
//! The file is read and parsed first (a file that is not JSON is named with its line and left
//! alone), changed in memory by [`crate::bridges::claude_code::settings`], backed up beside
//! itself as it was, and replaced whole (never half-written). Installing also makes sure the
//! hook can authenticate: a `claude-code` integration with its token in a file only this user
//! can read, so that no settings file (often committed with a project) holds a secret.

use crate::bridges::claude_code::settings::{self, Change};
use crate::bridges::claude_code::SLUG;
use crate::cli::InstallArgs;
use crate::error::AppError;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Installs or uninstalls as the arguments say, and prints what changed.
pub(super) fn run(args: &InstallArgs) -> Result<(), AppError> {
    let path = settings_path(args)?;
    let mut settings = read_settings(&path)?;
    let fail =
        |error: settings::SettingsError| AppError::BadInput(format!("{}: {error}", path.display()));
    let change = if args.uninstall {
        settings::uninstall(&mut settings).map_err(fail)?
    } else {
        let binary = std::env::current_exe()
            .map_err(|error| AppError::Internal(format!("cannot find this binary: {error}")))?;
        settings::install(&mut settings, &settings::hook_command(&binary)).map_err(fail)?
    };
    let mut report = match change {
        Change::Added => format!("{}: added the PermissionRequest hook", path.display()),
        Change::Replaced => format!("{}: updated the PermissionRequest hook", path.display()),
        Change::Unchanged => format!("{}: the hook is already installed", path.display()),
        Change::Removed => format!("{}: removed the PermissionRequest hook", path.display()),
        Change::Absent => format!("{}: no hook to remove", path.display()),
    };
    let changes_file = matches!(change, Change::Added | Change::Replaced | Change::Removed);
    if args.dry_run {
        if changes_file {
            report.push_str(" (dry run: nothing written)");
        }
        return super::print(&format!("{report}\n"));
    }
    if changes_file {
        write_settings(&path, &settings)?;
    }
    if !args.uninstall {
        if let Some(token_line) = super::bridge_token::ensure(SLUG)? {
            report.push('\n');
            report.push_str(&token_line);
        }
    }
    super::print(&format!("{report}\n"))
}

/// The settings file the arguments name.
fn settings_path(args: &InstallArgs) -> Result<PathBuf, AppError> {
    if let Some(project) = &args.project {
        if !project.is_dir() {
            return Err(AppError::NoInput(format!(
                "--project {}: not a folder",
                project.display()
            )));
        }
        return Ok(project.join(".claude").join("settings.json"));
    }
    let config = std::env::var_os("CLAUDE_CONFIG_DIR")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| dirs::home_dir().map(|home| home.join(".claude")))
        .ok_or_else(|| {
            AppError::NoInput("no home folder: set CLAUDE_CONFIG_DIR or pass --project".into())
        })?;
    Ok(config.join("settings.json"))
}

/// The settings as parsed JSON: an empty object for a missing or empty file.
fn read_settings(path: &Path) -> Result<Value, AppError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(AppError::NoInput(format!("{}: {error}", path.display()))),
    };
    if text.trim().is_empty() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    serde_json::from_str(&text).map_err(|error| {
        AppError::BadInput(format!(
            "{}: not JSON: {error}; nothing was changed",
            path.display()
        ))
    })
}

/// Backs the file up as it was (`settings.json.chatsurface-backup`) and replaces it whole,
/// keeping its permissions.
fn write_settings(path: &Path, settings: &Value) -> Result<(), AppError> {
    let cannot = |error: &dyn std::fmt::Display| AppError::CannotCreate(error.to_string());
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|error| cannot(&format!("{}: {error}", dir.display())))?;
    let mode = match std::fs::metadata(path) {
        Ok(metadata) => {
            let backup = backup_path(path);
            let original = std::fs::read(path)
                .map_err(|error| cannot(&format!("{}: {error}", path.display())))?;
            let mode = metadata.permissions().mode() & 0o777;
            crate::fsutil::write_atomically(&backup, &original, mode).map_err(|e| cannot(&e))?;
            mode
        }
        Err(_) => 0o644,
    };
    let mut text = serde_json::to_string_pretty(settings)
        .map_err(|error| AppError::Internal(format!("cannot write the settings: {error}")))?;
    text.push('\n');
    crate::fsutil::write_atomically(path, text.as_bytes(), mode).map_err(|e| cannot(&e))
}

/// Where the file's previous contents are kept.
fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".chatsurface-backup");
    path.with_file_name(name)
}
