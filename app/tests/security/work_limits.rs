//! Work per request is bounded: a request cannot make every later frame of its session lay
//! out thousands of items.

use super::common_surface::Surface;
use serde_json::json;

#[test]
fn a_batch_of_thousands_of_items_is_refused_and_leaves_nothing_behind() {
    let surface = Surface::new("cs-security", "huge-batch");
    let agent = surface.integration("agent", false);
    let items: Vec<_> = (0..24_000)
        .map(|i| json!({"id": format!("q{i}"), "prompt": "?", "kind": "text"}))
        .collect();
    let body = json!({"id": "b", "items": items, "wait": 0}).to_string();
    assert!(
        body.len() < 1024 * 1024,
        "under the body limit: {}",
        body.len()
    );
    let (status, reply) = surface.http(
        "POST",
        "/v1/sessions/flood/clarifications",
        Some(&agent),
        Some(body.as_bytes()),
    );
    assert_eq!(status, 400, "{reply}");
    assert_eq!(reply["field"], "batch.items");
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .contains("at most 50 items (got 24000)"),
        "{reply}"
    );
    assert!(
        !surface.dir.join("data/sessions/flood.jsonl").exists(),
        "no session was made"
    );
    let fifty: Vec<_> = (0..50)
        .map(|i| json!({"id": format!("q{i}"), "prompt": "?", "kind": "text"}))
        .collect();
    let (status, reply) = surface.http(
        "POST",
        "/v1/sessions/flood/clarifications",
        Some(&agent),
        Some(
            json!({"id": "b", "items": fifty, "wait": 0})
                .to_string()
                .as_bytes(),
        ),
    );
    assert_eq!(status, 200, "{reply}");
}
