//! The reader over sessions the real Gemini CLI wrote against a scripted model: 0.61.0's
//! JSON Lines, and 0.30.0's older whole-file sessions for the scenarios both have
//! (`tests/agents/gemini/regenerate.sh` makes them again).

use super::super::{branch_threads, exploration_thread, in_thread, Format};
use chatsurface_model::{AnswerKind, BatchStatus, Role, Snapshot, ThreadStatus};

fn snapshot(scenario: &str) -> Snapshot {
    super::super::load_fixture("gemini-0.61.0", scenario, Format::Gemini)
}

/// The scenario as each version wrote it: JSON Lines, and the older whole file.
fn in_both_formats(scenario: &str) -> [Snapshot; 2] {
    ["gemini-0.61.0", "gemini-0.30.0"]
        .map(|version| super::super::load_fixture(version, scenario, Format::Gemini))
}

#[test]
fn a_plain_exchange_shows_the_prompt_and_the_reply_not_the_context() {
    for snapshot in in_both_formats("plain-ru") {
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
}

#[test]
fn a_message_written_again_replaces_its_first_copy_and_its_tool_call_shows_once() {
    for snapshot in in_both_formats("shell-command") {
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
}

/// The interactive session (tests/agents/gemini/interactive.py): questions answered, a
/// rewind, an interrupted turn, a yes/no question, one dismissed.
fn interactive() -> Snapshot {
    snapshot("interactive")
}

fn said(role: Role, text: &str) -> (Role, String) {
    (role, text.to_owned())
}

#[test]
fn what_the_session_holds_now_is_the_main_thread_once_though_gemini_re_recorded_it() {
    let snapshot = interactive();
    assert_eq!(
        in_thread(&snapshot, "main"),
        [
            said(Role::User, "Which database should we use for the log"),
            said(Role::Agent, "Noted: PostgreSQL, search and sync first."),
            said(Role::User, "А индекс"),
            said(Role::Agent, "Индекс — по смещениям строк."),
            said(Role::User, "Skip the index for now"),
            said(Role::Agent, "Then no index for now."),
            said(Role::User, "Ship it"),
            said(Role::Agent, "Not deploying."),
        ]
    );
    assert_eq!(snapshot.title(), "Which database should we use for the log");
}

#[test]
fn what_a_rewind_or_an_interrupt_dropped_is_a_parked_branch_where_it_left() {
    let snapshot = interactive();
    assert_eq!(
        branch_threads(&snapshot),
        [
            ("dropped-1", "↩ And the index", ThreadStatus::Parked),
            (
                "dropped-2",
                "↩ Take your time over the index",
                ThreadStatus::Parked
            ),
            ("dropped-3", "↩ Pick a region", ThreadStatus::Parked),
        ]
    );
    assert_eq!(
        in_thread(&snapshot, "dropped-1"),
        [
            said(Role::User, "And the index"),
            said(Role::Agent, "A B-tree over the offsets."),
        ],
        "what /rewind removed"
    );
    assert_eq!(
        in_thread(&snapshot, "dropped-2"),
        [
            said(Role::User, "Take your time over the index"),
            said(Role::System, "Request cancelled."),
        ],
        "the turn interrupted with Esc, which Gemini CLI rolled back"
    );
    // Each branch opens after the message it left the main thread at.
    let before_branch = |thread: &str| {
        let first = snapshot
            .messages
            .iter()
            .position(|message| message.spec.thread_id.as_str() == thread)
            .unwrap();
        snapshot.messages[first - 1].spec.text.as_str()
    };
    assert_eq!(
        before_branch("dropped-1"),
        "Noted: PostgreSQL, search and sync first."
    );
    assert_eq!(before_branch("dropped-2"), "Индекс — по смещениям строк.");
    assert_eq!(before_branch("dropped-3"), "Not deploying.");
}

#[test]
fn ask_user_calls_are_batches_answered_item_by_item_or_withdrawn_when_dismissed() {
    let snapshot = interactive();
    let batches: Vec<(&str, BatchStatus)> = snapshot
        .batches
        .iter()
        .map(|batch| (batch.spec.thread_id.as_str(), batch.status))
        .collect();
    assert_eq!(
        batches,
        [
            ("main", BatchStatus::Answered),
            ("main", BatchStatus::Answered),
            ("dropped-3", BatchStatus::Withdrawn),
        ]
    );
    let first = &snapshot.batches[0];
    let kinds: Vec<(AnswerKind, bool, usize)> = first
        .spec
        .items
        .iter()
        .map(|item| (item.kind, item.multiple, item.options.len()))
        .collect();
    assert_eq!(
        kinds,
        [
            (AnswerKind::Choice, false, 2),
            (AnswerKind::Choice, true, 3),
            (AnswerKind::Text, false, 0),
        ]
    );
    assert_eq!(first.spec.items[1].header.as_deref(), Some("Features"));
    let answers: Vec<(Vec<&str>, Option<&str>)> = first
        .response
        .as_ref()
        .unwrap()
        .answers
        .iter()
        .map(|answer| {
            (
                answer.selected.iter().map(|id| id.as_str()).collect(),
                answer.text.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        answers,
        [
            (vec!["o2"], None),
            (vec!["o1", "o2"], None),
            (vec![], Some("Keep it small, без сервера")),
        ],
        "PostgreSQL; Search and Sync; the text typed"
    );
    let yes_no = &snapshot.batches[1];
    assert_eq!(yes_no.spec.items[0].kind, AnswerKind::YesNo);
    let answer = &yes_no.response.as_ref().unwrap().answers[0];
    assert_eq!(answer.selected, ["no".into()]);
}

#[test]
fn a_sub_agent_is_an_exploration_thread_under_its_caller_read_from_its_own_file() {
    let snapshot = snapshot("subagent");
    let explorer = exploration_thread(&snapshot);
    assert_eq!(
        explorer.spec.title,
        "generalist: Count the files in the project folder"
    );
    assert_eq!(
        explorer.spec.parent.as_ref().map(|id| id.as_str()),
        Some("main")
    );
    assert_eq!(explorer.status, ThreadStatus::Resolved);
    let in_explorer = in_thread(&snapshot, explorer.spec.id.as_str());
    assert_eq!(
        in_explorer[0],
        said(Role::User, "Count the files in the project folder")
    );
    assert!(
        in_explorer[1].1.starts_with("**complete_task**"),
        "{in_explorer:?}"
    );
    let main = in_thread(&snapshot, "main");
    assert_eq!(
        main.len(),
        3,
        "the prompt, the invoke_agent call, the reply: {main:?}"
    );
    assert_eq!(
        main[2],
        said(Role::Agent, "The sub-agent says the folder is empty.")
    );
}

/// A whole-file session in a Gemini CLI store (`<tmp>/<project>/chats/`), as 0.30.0 wrote it.
fn whole_file_store() -> (tempfile::TempDir, std::path::PathBuf, String) {
    let written = super::super::fixture_file("gemini-0.30.0", "plain-ru");
    let whole = std::fs::read_to_string(&written).unwrap();
    let root = tempfile::tempdir().unwrap();
    let chats = root.path().join("project").join("chats");
    std::fs::create_dir_all(&chats).unwrap();
    let path = chats.join(written.file_name().unwrap());
    std::fs::write(&path, &whole).unwrap();
    (root, path, whole)
}

#[test]
fn the_catalog_lists_whole_file_sessions_beside_json_lines_ones() {
    let (root, path, _) = whole_file_store();
    std::fs::write(path.with_file_name("logs.json"), "[]").unwrap();
    let folders = crate::agents::catalog::Folders {
        gemini: Some(root.path().to_owned()),
        ..Default::default()
    };
    let entries = crate::agents::catalog::list(&folders);
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0].path, path);
    assert_eq!(entries[0].messages, 2);
}

#[test]
fn a_whole_file_session_caught_while_rewritten_keeps_what_it_showed() {
    let (_root, path, whole) = whole_file_store();
    let mut transcript = super::super::AgentTranscript::open(&path, Format::Gemini).unwrap();
    assert_eq!(transcript.snapshot().messages.len(), 2);
    std::fs::write(&path, &whole[..whole.len() / 2]).unwrap();
    assert!(
        !transcript.follow().unwrap(),
        "nothing changes while it is cut short"
    );
    assert_eq!(transcript.snapshot().messages.len(), 2);
    // Rewritten whole with one more message.
    let mut session: serde_json::Value = serde_json::from_str(&whole).unwrap();
    let messages = session["messages"].as_array_mut().unwrap();
    let mut next = messages[0].clone();
    next["id"] = "next-prompt".into();
    next["content"] = serde_json::json!([{"text": "И ещё вопрос"}]);
    messages.push(next);
    std::fs::write(&path, serde_json::to_string_pretty(&session).unwrap()).unwrap();
    assert!(transcript.follow().unwrap());
    let last = transcript.snapshot().messages.last().unwrap();
    assert_eq!(last.spec.text, "И ещё вопрос");
}
