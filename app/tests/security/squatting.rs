//! Socket squatting: another user makes the socket's directory first and listens in it,
//! hoping to be handed a token and to answer in the human's place.

use super::{can_be_another_user, scratch, ATTACKER};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The squatter: listens at `socket`, writes whatever a client sends into `loot`, and
/// answers every request with a forged "accepted".
const SQUATTER: &str = r#"
import os, socket, sys
path, loot = sys.argv[1], sys.argv[2]
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
os.chmod(path, 0o777)
server.listen(4)
open(loot + ".ready", "w").close()
while True:
    connection, _ = server.accept()
    data = connection.recv(65536)
    with open(loot, "ab") as out:
        out.write(data)
    body = b'{"answer":"accepted"}'
    connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
                       + str(len(body)).encode() + b"\r\n\r\n" + body)
    connection.close()
"#;

/// A process killed when the test ends, however it ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn chatsurface(dir: &Path, socket: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_chatsurface"));
    command
        .env("CHATSURFACE_DATA_DIR", dir.join("data"))
        .env("CHATSURFACE_SOCKET", socket)
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("CHATSURFACE_OPERATOR_TOKEN")
        .env_remove("CHATSURFACE_SESSION");
    command
}

#[test]
fn a_squatter_in_the_sockets_directory_gets_no_token_and_cannot_answer() {
    if !can_be_another_user() {
        return;
    }
    let dir = scratch("squat");
    // A folder everyone may write to, as /tmp is.
    let shared = dir.join("tmp");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let script = shared.join("squatter.py");
    std::fs::write(&script, SQUATTER).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).unwrap();
    let loot = shared.join("loot");
    let squatted = shared.join("chatsurface-0");
    let socket = squatted.join("api.sock");
    // The attacker makes the directory first, private to themselves, and listens.
    let status = Command::new("setpriv")
        .args([
            "--reuid",
            &ATTACKER.to_string(),
            "--regid",
            &ATTACKER.to_string(),
        ])
        .args(["--clear-groups", "mkdir", "-m", "0700"])
        .arg(&squatted)
        .status()
        .unwrap();
    assert!(status.success());
    let mut squatter = Killed(
        Command::new("setpriv")
            .args([
                "--reuid",
                &ATTACKER.to_string(),
                "--regid",
                &ATTACKER.to_string(),
            ])
            // The system's Python: one under root's home (pyenv) is out of the attacker's reach.
            .args(["--clear-groups", "/usr/bin/python3"])
            .args([&script, &socket, &loot])
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    );
    let started = Instant::now();
    while !shared.join("loot.ready").exists() {
        assert!(
            started.elapsed() < Duration::from_secs(20) && squatter.0.try_wait().unwrap().is_none(),
            "the squatter never listened"
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    let asked = chatsurface(&dir, &socket)
        .args([
            "ask",
            "deploy",
            "Deploy to prod?",
            "--accept",
            "Deploy",
            "--decline",
            "Stop",
        ])
        .env("CHATSURFACE_TOKEN", "the-agents-secret-token")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&asked.stderr);
    assert_eq!(asked.status.code(), Some(77), "{stderr}");
    assert!(asked.stdout.is_empty(), "no forged answer is printed");
    assert!(
        stderr.contains(&format!("belongs to uid {ATTACKER}")) && stderr.contains("chatsurface-0"),
        "{stderr}"
    );

    // The real server refuses the squatted directory, naming it, rather than serving there.
    let served = chatsurface(&dir, &socket).arg("serve").output().unwrap();
    let stderr = String::from_utf8_lossy(&served.stderr);
    assert!(!served.status.success());
    assert!(
        stderr.contains("chatsurface-0: belongs to uid 65534"),
        "{stderr}"
    );

    drop(squatter);
    let stolen = std::fs::read(&loot).unwrap_or_default();
    assert!(
        stolen.is_empty(),
        "the squatter got: {}",
        String::from_utf8_lossy(&stolen)
    );
}

#[test]
fn without_a_runtime_dir_the_socket_is_in_the_data_dir_whatever_squats_in_tmp() {
    let dir = scratch("default-socket");
    let data = dir.join("data");
    let mut server = Command::new(env!("CARGO_BIN_EXE_chatsurface"))
        .arg("serve")
        .env("CHATSURFACE_DATA_DIR", &data)
        .env_remove("CHATSURFACE_SOCKET")
        .env_remove("XDG_RUNTIME_DIR")
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let socket = data.join("run/api.sock");
    let started = Instant::now();
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20) && server.try_wait().unwrap().is_none(),
            "serve did not listen at {}",
            socket.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let mode = std::fs::metadata(data.join("run"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(mode, 0o700);
}

#[test]
fn a_client_refuses_a_socket_in_a_directory_others_can_enter() {
    let dir = scratch("open-dir");
    let open = dir.join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let socket = open.join("api.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let asked = chatsurface(&dir, &socket)
        .args(["ask", "deploy", "Go?"])
        .env("CHATSURFACE_TOKEN", "secret")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&asked.stderr);
    assert_eq!(asked.status.code(), Some(77), "{stderr}");
    assert!(stderr.contains("mode 0777 lets other users in"), "{stderr}");
}
