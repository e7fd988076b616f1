//! The reader over rollouts the real Codex CLI 0.169.0 wrote against a scripted model
//! (`tests/agents/codex/regenerate.sh` makes them again).

use super::super::Format;
use chatsurface_model::{BatchStatus, Role, Snapshot};

fn snapshot(scenario: &str) -> Snapshot {
    super::super::load_fixture("codex-0.169.0", scenario, Format::Codex)
}

fn shown(snapshot: &Snapshot) -> Vec<(Role, String)> {
    snapshot
        .messages
        .iter()
        .map(|message| (message.spec.role, message.spec.text.clone()))
        .collect()
}

#[test]
fn each_message_shows_once_and_the_harness_messages_not_at_all() {
    let snapshot = snapshot("plain-ru");
    assert_eq!(
        shown(&snapshot),
        [
            (
                Role::User,
                "Привет! Коротко: что такое журнал событий?".to_owned()
            ),
            (
                Role::Agent,
                "Журнал событий — это **append-only** файл: каждая строка — одно событие."
                    .to_owned()
            ),
        ]
    );
    assert_eq!(
        snapshot.title(),
        "Привет! Коротко: что такое журнал событий?"
    );
    assert_eq!(
        snapshot.session.as_ref().unwrap().agent.as_deref(),
        Some("codex")
    );
}

#[test]
fn a_command_and_its_output_are_one_tool_message() {
    let snapshot = snapshot("exec-command");
    let roles: Vec<Role> = snapshot
        .messages
        .iter()
        .map(|message| message.spec.role)
        .collect();
    assert_eq!(roles, [Role::User, Role::Tool, Role::Agent]);
    let tool = &snapshot.messages[1].spec.text;
    assert!(
        tool.starts_with("**exec_command** `echo hello-from-codex`"),
        "{tool}"
    );
    assert!(tool.contains("hello-from-codex\n```"), "{tool}");
    assert!(
        !tool.contains("Chunk ID"),
        "Codex's header is not the output: {tool}"
    );
}

#[test]
fn a_question_codex_refused_to_ask_is_a_withdrawn_batch() {
    let snapshot = snapshot("request-user-input");
    assert_eq!(snapshot.batches.len(), 1);
    let batch = &snapshot.batches[0];
    assert_eq!(batch.status, BatchStatus::Withdrawn);
    let item = &batch.spec.items[0];
    assert_eq!(item.prompt, "Which database should we use?");
    assert_eq!(item.header.as_deref(), Some("Database"));
    assert_eq!(item.options[0].label, "SQLite (Recommended)");
    assert_eq!(
        item.options[1].detail.as_deref(),
        Some("A server, more features")
    );
}
