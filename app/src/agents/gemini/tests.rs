//! The reader over sessions the real Gemini CLI 0.61.0 wrote against a scripted model
//! (`tests/agents/gemini/regenerate.sh` makes them again).

use super::super::Format;
use chatsurface_model::{Role, Snapshot};

fn snapshot(scenario: &str) -> Snapshot {
    super::super::load_fixture("gemini-0.61.0", scenario, Format::Gemini)
}

#[test]
fn a_plain_exchange_shows_the_prompt_and_the_reply_not_the_context() {
    let snapshot = snapshot("plain-ru");
    let shown: Vec<(Role, &str)> = snapshot
        .messages
        .iter()
        .map(|message| (message.spec.role, message.spec.text.as_str()))
        .collect();
    assert_eq!(
        shown,
        [
            (Role::User, "Привет! Коротко: что такое журнал событий?"),
            (
                Role::Agent,
                "Журнал событий — это **append-only** файл: каждая строка — одно событие."
            ),
        ]
    );
    assert_eq!(
        snapshot.session.as_ref().unwrap().agent.as_deref(),
        Some("gemini")
    );
}

#[test]
fn a_message_written_again_replaces_its_first_copy_and_its_tool_call_shows_once() {
    let snapshot = snapshot("shell-command");
    let roles: Vec<Role> = snapshot
        .messages
        .iter()
        .map(|message| message.spec.role)
        .collect();
    assert_eq!(roles, [Role::User, Role::Tool, Role::Agent]);
    let tool = &snapshot.messages[1].spec.text;
    assert_eq!(
        tool,
        "**run_shell_command** `echo hello-from-gemini`\n\n```\nhello-from-gemini\n```"
    );
    assert_eq!(
        snapshot.messages[2].spec.text,
        "The command printed `hello-from-gemini`."
    );
}
