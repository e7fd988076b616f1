//! What the surface writes is its owner's alone: another local user can read no session, no
//! token, and cannot enter the socket's directory.

use super::common_surface::Surface;
use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn everything_serve_writes_is_private_whatever_the_umask() {
    let surface = Surface::new("cs-security", "permissions");
    let token = surface.integration("agent", false);
    let (status, body) = surface.http(
        "POST",
        "/v1/sessions/work/messages",
        Some(&token),
        Some(
            json!({"role": "agent", "text": "A secret plan."})
                .to_string()
                .as_bytes(),
        ),
    );
    assert_eq!(status, 200, "{body}");
    let data = surface.dir.join("data");
    let mut checked = Vec::new();
    for entry in walk(&data) {
        let expected = if entry.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode(&entry), expected, "{}", entry.display());
        checked.push(entry);
    }
    for wanted in [
        "sessions",
        "sessions/work.jsonl",
        "operator.token",
        "integrations.json",
    ] {
        assert!(
            checked.contains(&data.join(wanted)),
            "{wanted} was written and checked"
        );
    }
    assert_eq!(mode(&surface.dir.join("run")), 0o700);
    assert_eq!(mode(&surface.socket()) & 0o077, 0);
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = vec![dir.to_path_buf()];
    for entry in std::fs::read_dir(dir).unwrap().filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}

#[test]
fn serve_warns_about_a_data_dir_others_can_read() {
    let dir = super::scratch("loose-data-dir");
    let data = dir.join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut server = std::process::Command::new(env!("CARGO_BIN_EXE_chatsurface"))
        .arg("serve")
        .env("CHATSURFACE_DATA_DIR", &data)
        .env("CHATSURFACE_SOCKET", dir.join("run/api.sock"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(server.stderr.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut stderr, &mut line).unwrap();
    let _ = server.kill();
    let _ = server.wait();
    assert!(
        line.starts_with("warning: ")
            && line.contains(&format!(
                "{}: mode 0755 lets other users read",
                data.display()
            )),
        "{line}"
    );
    assert_eq!(mode(&data), 0o755, "the directory is the user's to change");
}
