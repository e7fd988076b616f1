//! The local API under attack: what another user on the machine, or a misbehaving agent, must
//! not be able to do. Each test plays the attacker for real where the machine allows it (a
//! second uid through `setpriv` when the tests run as root, as in CI) and checks the defence
//! from outside, through the binary.

#![allow(clippy::unwrap_used, reason = "a test fails by panicking")]

mod common_surface;
mod connections;
mod error_text;
mod hostile_logs;
mod out_target;
mod permissions;
mod privilege;
mod squatting;
mod work_limits;

use std::path::PathBuf;

/// A scratch directory for one test, removed first if a previous run left it.
pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cs-security-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Whether these tests may act as a second user: they run as root and `setpriv` is there.
pub(crate) fn can_be_another_user() -> bool {
    let root = std::fs::metadata("/proc/self")
        .map(|meta| std::os::unix::fs::MetadataExt::uid(&meta) == 0)
        .unwrap_or(false);
    let setpriv = std::process::Command::new("setpriv")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if !(root && setpriv) {
        eprintln!("skipping the second-user part: it needs root and setpriv (CI has both)");
    }
    root && setpriv
}

/// The uid the attacker runs as.
pub(crate) const ATTACKER: u32 = 65534;
