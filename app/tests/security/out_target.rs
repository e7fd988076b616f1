//! `render --out` (and every file written whole) writes a new or regular file only: a device
//! node, a FIFO or a symlink at the path stays what it was.

use std::path::Path;
use std::process::Command;

fn render_to(out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_chatsurface"))
        .arg("render")
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../examples/sessions/deploy-review-en.jsonl"),
        )
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn render_out_onto_a_device_a_fifo_or_a_symlink_changes_nothing() {
    use std::os::unix::fs::FileTypeExt;
    let dir = super::scratch("out-target");
    let fifo = dir.join("pipe.png");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let elsewhere = dir.join("precious.txt");
    std::fs::write(&elsewhere, "keep me").unwrap();
    let link = dir.join("link.png");
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    for (target, kind) in [
        (Path::new("/dev/full"), "a device"),
        (fifo.as_path(), "a FIFO"),
        (link.as_path(), "a symbolic link"),
    ] {
        let output = render_to(target);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{}: {stderr}", target.display());
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        assert!(
            stderr.contains(kind) && stderr.contains(&target.display().to_string()),
            "{stderr}"
        );
    }
    assert!(std::fs::symlink_metadata("/dev/full")
        .unwrap()
        .file_type()
        .is_char_device());
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "keep me");

    let fine = dir.join("frame.png");
    let output = render_to(&fine);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(std::fs::metadata(&fine).unwrap().is_file());
}
