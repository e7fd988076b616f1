//! The reader over transcripts the real Claude Code 2.1.328 wrote against a scripted model
//! (`tests/agents/claude-code/regenerate.sh` makes them again).

use super::super::{detect, load, Format};
use chatsurface_model::{
    BatchStatus, ConfirmationStatus, NodeRef, Role, Snapshot, ThreadKind, ThreadStatus,
};
use std::path::PathBuf;

fn fixture(scenario: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/agents/claude-code-2.1.328")
        .join(scenario);
    std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| {
            path.extension()
                .is_some_and(|extension| extension == "jsonl")
        })
        .unwrap()
}

fn snapshot(scenario: &str) -> Snapshot {
    let path = fixture(scenario);
    assert_eq!(
        detect(&std::fs::read(&path).unwrap()),
        Some(Format::ClaudeCode),
        "detected from the content"
    );
    let loaded = load(&path, None).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    loaded.snapshot
}

fn texts(snapshot: &Snapshot, role: Role) -> Vec<String> {
    snapshot
        .messages
        .iter()
        .filter(|message| message.spec.role == role)
        .map(|message| message.spec.text.clone())
        .collect()
}

#[test]
fn a_plain_exchange_is_one_prompt_and_one_reply_titled_by_the_prompt() {
    let snapshot = snapshot("plain-ru");
    assert_eq!(
        snapshot.title(),
        "Привет! Коротко: что такое журнал событий?"
    );
    assert_eq!(
        texts(&snapshot, Role::User),
        ["Привет! Коротко: что такое журнал событий?"]
    );
    let replies = texts(&snapshot, Role::Agent);
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert!(replies[0].starts_with("Журнал событий — это **append-only** файл"));
    assert_eq!(snapshot.threads.len(), 1, "no branches without a rewind");
    // The harness's records (system prompts, attachments, request blobs) are not shown.
    assert!(snapshot
        .messages
        .iter()
        .all(|message| !message.spec.text.contains("system-reminder")));
    assert_eq!(snapshot.messages.len(), 2);
}

#[test]
fn a_tool_call_and_its_result_are_one_tool_message_between_the_agents_words() {
    let snapshot = snapshot("bash-tool");
    let roles: Vec<Role> = snapshot
        .messages
        .iter()
        .map(|message| message.spec.role)
        .collect();
    assert_eq!(roles, [Role::User, Role::Agent, Role::Tool, Role::Agent]);
    let tool = &snapshot.messages[2].spec.text;
    assert!(
        tool.starts_with("**Bash** `echo hello-from-bash`"),
        "{tool}"
    );
    assert!(
        tool.contains("```\nhello-from-bash\n```"),
        "the result is in it: {tool}"
    );
    assert!(
        snapshot.confirmations.is_empty(),
        "an allowed call is no confirmation"
    );
}

#[test]
fn a_refused_tool_call_is_a_declined_confirmation_naming_the_tool_and_command() {
    let snapshot = snapshot("rejected-tool");
    assert_eq!(snapshot.confirmations.len(), 1);
    let refused = &snapshot.confirmations[0];
    assert_eq!(refused.status, ConfirmationStatus::Declined);
    assert!(
        refused.spec.message.contains("Bash: rm -rf ./build"),
        "{}",
        refused.spec.message
    );
    let reason = refused.outcome_comment.as_deref().unwrap();
    assert!(reason.contains("needs approval"), "{reason}");
    assert!(snapshot.contains(NodeRef::Confirmation(0)));
}

#[test]
fn a_sub_agent_is_an_exploration_thread_titled_by_its_description() {
    let snapshot = snapshot("subagent");
    let explorer = snapshot
        .threads
        .iter()
        .find(|thread| thread.spec.kind == ThreadKind::Exploration)
        .expect("the sub-agent's thread");
    assert_eq!(explorer.spec.title, "Find config reader");
    assert_eq!(
        explorer.spec.parent.as_ref().map(|id| id.as_str()),
        Some("main")
    );
    assert_eq!(explorer.status, ThreadStatus::Resolved);
    let in_explorer: Vec<_> = snapshot
        .messages
        .iter()
        .filter(|message| message.spec.thread_id == explorer.spec.id)
        .map(|message| (message.spec.role, message.spec.text.as_str()))
        .collect();
    assert_eq!(
        in_explorer,
        [
            (
                Role::User,
                "Find the file that reads the config and report its path."
            ),
            (Role::Agent, "The config is read in `src/config.rs`."),
        ]
    );
    assert!(snapshot
        .batches
        .iter()
        .all(|batch| batch.status != BatchStatus::Open));
}
