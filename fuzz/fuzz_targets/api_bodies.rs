//! The local API's request bodies, as their handlers parse and check them, over any bytes:
//! any process of the user's can send them, so a body must be refused with an error or
//! turned into events the session takes or refuses, never a panic. The first byte picks the
//! endpoint: a dialog (`POST /v1/integrations/{slug}/dialogs`), mirrored events (`POST
//! …/events`) or a clarification batch (`POST …/clarifications`).
#![no_main]

use chatsurface::api::dialog::parse_dialog;
use chatsurface::api::mirror::{self, MirrorBuild, Mirrored, MAIN_THREAD};
use chatsurface_model::{fold_log_bytes, BatchSpec, Event, EventBody, Snapshot, EVENT_LOG_VERSION};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};
use std::path::Path;

/// The session a body lands in: started, with its main thread.
const SESSION: &[u8] = br#"{"v":1,"seq":1,"at":"2026-12-05T10:00:00Z","type":"session_started","session":{"id":"s","title":"Fuzz"}}
{"v":1,"seq":2,"at":"2026-12-05T10:00:01Z","type":"thread_opened","thread":{"id":"main","parent":null,"title":"Main","kind":"topic"}}
"#;

/// Applies `events` after the session's own, as the store would, refused ones skipped.
fn apply(mut snapshot: Snapshot, events: Vec<EventBody>) {
    for (index, body) in events.into_iter().enumerate() {
        let event = Event {
            v: EVENT_LOG_VERSION,
            seq: index as u64 + 3,
            at: "2026-12-05T10:00:02Z".to_owned(),
            body,
        };
        if snapshot.apply(event).is_err() {
            return;
        }
    }
}

fn object(body: &[u8]) -> Option<Map<String, Value>> {
    match serde_json::from_slice(body) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

fuzz_target!(|bytes: &[u8]| {
    let Some((&endpoint, body)) = bytes.split_first() else {
        return;
    };
    let snapshot = fold_log_bytes(Path::new("fuzz-session.jsonl"), SESSION)
        .expect("the base session folds")
        .snapshot;
    match endpoint % 3 {
        0 => {
            let _ = parse_dialog("fuzz", body, "d-1", MAIN_THREAD);
        }
        1 => {
            let Some(map) = object(body) else { return };
            let Ok(entries) = Mirrored::list(map) else {
                return;
            };
            let mut build = MirrorBuild::new(&snapshot, "s");
            if build.add_entries(entries).is_ok() {
                let events = build.finish();
                apply(snapshot, events);
            }
        }
        _ => {
            let Some(mut map) = object(body) else { return };
            let thread = mirror::thread_of(&mut map);
            let Ok(batch) = mirror::typed::<BatchSpec>(map) else {
                return;
            };
            if chatsurface_model::validate_batch_size(&batch).is_err() {
                return;
            }
            let mut build = MirrorBuild::new(&snapshot, "s");
            build.add_in_thread(&thread, EventBody::ClarificationBatchOpened { batch });
            let events = build.finish();
            apply(snapshot, events);
        }
    }
});
