//! The agents' transcript readers (Claude Code, Codex, Gemini CLI, and the format detection
//! in front of them) over any bytes: an agent's file is untrusted and changes with every
//! release, so reading it must give a session or an error, never a panic.
#![no_main]

use chatsurface::agents::{load_bytes, Format};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|bytes: &[u8]| {
    let path = Path::new("fuzz-transcript.jsonl");
    for format in [
        None,
        Some(Format::ClaudeCode),
        Some(Format::Codex),
        Some(Format::Gemini),
    ] {
        if let Ok(loaded) = load_bytes(path, bytes, format) {
            let _ = loaded.snapshot.open_questions();
        }
    }
});
