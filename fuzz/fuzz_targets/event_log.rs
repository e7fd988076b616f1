//! The event log reader over any bytes: folding must return a snapshot or an error naming
//! the line, never panic, whatever a crash, an editor or another writer left in the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(loaded) = chatsurface_model::fold_log_bytes(Path::new("fuzz.jsonl"), bytes) {
        // What folded is within the bytes read, and its questions can be counted.
        assert!(loaded.intact_len <= bytes.len() as u64);
        let _ = loaded.snapshot.open_questions();
    }
});
