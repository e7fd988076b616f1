//! Where chatsurface keeps its files: the data directory and the API socket.
//!
//! `$CHATSURFACE_DATA_DIR` (default: the XDG data dir, `~/.local/share/chatsurface`) holds the
//! session logs and tokens; `$CHATSURFACE_SOCKET` (default:
//! `$XDG_RUNTIME_DIR/chatsurface/api.sock`, else `<data dir>/run/api.sock`) is where the API
//! listens. Both the server and its
//! clients resolve them here, so they always agree. The agents' own session folders are
//! resolved here too (each overridable for tests and unusual set-ups).

use std::path::PathBuf;

/// Where Claude Code keeps its transcripts: `$CHATSURFACE_CLAUDE_DIR`, else
/// `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`.
pub fn claude_projects_dir() -> Option<PathBuf> {
    let set = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(dir) = set("CHATSURFACE_CLAUDE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(config) = set("CLAUDE_CONFIG_DIR") {
        return Some(PathBuf::from(config).join("projects"));
    }
    dirs::home_dir().map(|home| home.join(".claude").join("projects"))
}

/// Where Codex CLI keeps its rollouts: `$CHATSURFACE_CODEX_DIR`, else `$CODEX_HOME/sessions`,
/// else `~/.codex/sessions`.
pub fn codex_sessions_dir() -> Option<PathBuf> {
    let set = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(dir) = set("CHATSURFACE_CODEX_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(home) = set("CODEX_HOME") {
        return Some(PathBuf::from(home).join("sessions"));
    }
    dirs::home_dir().map(|home| home.join(".codex").join("sessions"))
}

/// Where Gemini CLI keeps its sessions (`<project>/chats/session-*.jsonl` below it):
/// `$CHATSURFACE_GEMINI_DIR`, else `~/.gemini/tmp`.
pub fn gemini_tmp_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CHATSURFACE_GEMINI_DIR").filter(|dir| !dir.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    dirs::home_dir().map(|home| home.join(".gemini").join("tmp"))
}

/// The data directory.
pub fn data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CHATSURFACE_DATA_DIR").filter(|dir| !dir.is_empty()) {
        return PathBuf::from(dir);
    }
    default_data_dir()
}

/// The data directory when `$CHATSURFACE_DATA_DIR` is unset: `chatsurface` in the XDG data
/// directory (`~/.local/share`); in the working directory when there is no home at all,
/// never in a folder other users share.
pub fn default_data_dir() -> PathBuf {
    dirs::data_dir()
        .unwrap_or_else(|| PathBuf::from("."))
        .join("chatsurface")
}

/// The API socket.
pub fn socket_path() -> PathBuf {
    crate::client::ask::socket_path(|name| std::env::var(name).ok())
}
