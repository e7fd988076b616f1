//! The reader over rollouts the real Codex CLI 0.169.0 wrote against a scripted model
//! (`tests/agents/codex/regenerate.sh` makes them again).

use super::super::{branch_threads, in_thread, AgentTranscript, Format};
use crate::agents::catalog::Folders;
use chatsurface_model::{BatchStatus, Role, Snapshot, ThreadStatus};
use std::path::PathBuf;

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

#[test]
fn a_sub_agent_is_an_exploration_thread_read_from_its_own_rollout() {
    let snapshot = snapshot("subagent");
    let explorer = super::super::exploration_thread(&snapshot);
    assert!(
        explorer
            .spec
            .title
            .contains(": Count the files in the project"),
        "titled by its nickname and task: {}",
        explorer.spec.title
    );
    assert_eq!(
        explorer.spec.parent.as_ref().map(|id| id.as_str()),
        Some("main")
    );
    assert_eq!(explorer.status, ThreadStatus::Resolved);
    assert_eq!(
        in_thread(&snapshot, explorer.spec.id.as_str()),
        [
            (
                Role::User,
                "Count the files in the project and report the number.".to_owned()
            ),
            (Role::Agent, "The project has no files yet: 0.".to_owned()),
        ]
    );
    let main = in_thread(&snapshot, "main");
    let roles: Vec<Role> = main.iter().map(|(role, _)| *role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Tool, Role::Tool, Role::Agent],
        "the prompt, spawn_agent, wait_agent and the answer; Codex's notification to the \
         model is no message of the human's: {main:?}"
    );
    assert!(main[1].1.starts_with("**spawn_agent**"), "{main:?}");
    assert_eq!(main[3].1, "The helper counted 0 files.");
}

/// The subagent fixture in a sessions folder of its own (`YYYY/MM/DD`), the sub-agent's
/// rollout cut to its first `child_lines` lines; returns the folder, the parent's rollout
/// and the sub-agent's, and the sub-agent's whole text.
fn subagent_store(child_lines: usize) -> (tempfile::TempDir, PathBuf, PathBuf, String) {
    let parent = super::super::fixture_file("codex-0.169.0", "subagent");
    let child = std::fs::read_dir(parent.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| *path != parent)
        .expect("the sub-agent's rollout");
    let root = tempfile::tempdir().unwrap();
    let day = root.path().join("2026/12/05");
    std::fs::create_dir_all(&day).unwrap();
    let (parent_copy, child_copy) = (
        day.join(parent.file_name().unwrap()),
        day.join(child.file_name().unwrap()),
    );
    std::fs::copy(&parent, &parent_copy).unwrap();
    let whole = std::fs::read_to_string(&child).unwrap();
    let cut: String = whole.split_inclusive('\n').take(child_lines).collect();
    std::fs::write(&child_copy, cut).unwrap();
    (root, parent_copy, child_copy, whole)
}

#[test]
fn the_catalog_lists_the_parent_and_not_its_sub_agent() {
    let (root, parent, _, _) = subagent_store(usize::MAX);
    let folders = Folders {
        codex: Some(root.path().to_owned()),
        ..Folders::default()
    };
    let entries = crate::agents::catalog::list(&folders);
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0].path, parent);
    assert_eq!(entries[0].messages, 6, "the sub-agent's two messages count");
}

#[test]
fn a_followed_session_shows_its_sub_agent_growing() {
    let (_root, parent, child, whole) = subagent_store(8);
    let mut transcript = AgentTranscript::open(&parent, Format::Codex).unwrap();
    let answer = "The project has no files yet: 0.";
    let shows_answer = |transcript: &AgentTranscript| {
        transcript
            .snapshot()
            .messages
            .iter()
            .any(|message| message.spec.text == answer)
    };
    assert!(!shows_answer(&transcript), "cut before its answer");
    // The first look after the sub-agent was found stamps its file and reads once more.
    transcript.follow().unwrap();
    std::fs::write(&child, &whole).unwrap();
    assert!(
        transcript.follow().unwrap(),
        "the sub-agent grew, the parent did not"
    );
    assert!(shows_answer(&transcript));
}

/// The revert fixture's rollouts, oldest first.
fn revert_rollouts() -> Vec<PathBuf> {
    let first = super::super::fixture_file("codex-0.169.0", "revert");
    let mut rollouts: Vec<PathBuf> = std::fs::read_dir(first.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    rollouts.sort();
    assert_eq!(rollouts.len(), 3, "the first rollout and one per revert");
    rollouts
}

fn assert_reverts_shown(snapshot: &Snapshot) {
    let said = |role, text: &str| (role, text.to_owned());
    assert_eq!(
        in_thread(snapshot, "main"),
        [
            said(Role::User, "Which log format should we use?"),
            said(Role::Agent, "JSONL: one event per line."),
            said(Role::User, "Skip the index for now"),
            said(Role::Agent, "Then no index for now."),
        ],
        "what Codex kept, in order, across its three rollouts"
    );
    assert_eq!(
        branch_threads(snapshot),
        [
            ("reverted-1", "↩ And the index?", ThreadStatus::Parked),
            ("reverted-2", "↩ А индекс?", ThreadStatus::Parked),
        ]
    );
    assert_eq!(
        in_thread(snapshot, "reverted-2"),
        [
            said(Role::User, "А индекс?"),
            said(Role::Agent, "Индекс — по смещениям строк."),
        ]
    );
    assert_eq!(in_thread(snapshot, "reverted-1").len(), 2);
    assert_eq!(snapshot.title(), "Which log format should we use?");
}

#[test]
fn a_reverted_conversation_is_kept_as_parked_branches_whichever_rollout_is_opened() {
    for path in revert_rollouts() {
        let loaded = super::super::load(&path, None).unwrap();
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        assert_reverts_shown(&loaded.snapshot);
    }
}

#[test]
fn the_catalog_lists_a_reverted_thread_once_by_its_newest_rollout() {
    let rollouts = revert_rollouts();
    let root = tempfile::tempdir().unwrap();
    let day = root.path().join("2026/12/05");
    std::fs::create_dir_all(&day).unwrap();
    for rollout in &rollouts {
        std::fs::copy(rollout, day.join(rollout.file_name().unwrap())).unwrap();
    }
    let folders = Folders {
        codex: Some(root.path().to_owned()),
        ..Folders::default()
    };
    let entries = crate::agents::catalog::list(&folders);
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0].path, day.join(rollouts[2].file_name().unwrap()));
    assert_eq!(entries[0].messages, 8, "kept and reverted messages count");
}

#[test]
fn a_followed_session_shows_a_revert_made_while_it_is_open() {
    let rollouts = revert_rollouts();
    let day = tempfile::tempdir().unwrap();
    let copy = |rollout: &PathBuf| {
        let to = day.path().join(rollout.file_name().unwrap());
        std::fs::copy(rollout, &to).unwrap();
        to
    };
    let first = copy(&rollouts[0]);
    let mut transcript = AgentTranscript::open(&first, Format::Codex).unwrap();
    assert_eq!(in_thread(transcript.snapshot(), "main").len(), 4);
    // The first look after the folder was found stamps it and reads once more.
    transcript.follow().unwrap();
    copy(&rollouts[1]);
    copy(&rollouts[2]);
    assert!(
        transcript.follow().unwrap(),
        "Codex went on in new rollouts; the opened one did not change"
    );
    assert_reverts_shown(transcript.snapshot());
}
