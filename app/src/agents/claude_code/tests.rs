//! The reader over transcripts the real Claude Code 2.1.328 wrote against a scripted model
//! (`tests/agents/claude-code/regenerate.sh` makes them again).

use super::super::Format;
use chatsurface_model::{
    BatchStatus, ConfirmationStatus, NodeRef, Role, Snapshot, ThreadKind, ThreadStatus,
};
use std::path::PathBuf;

fn fixture(scenario: &str) -> PathBuf {
    super::super::fixture_file("claude-code-2.1.328", scenario)
}

fn snapshot(scenario: &str) -> Snapshot {
    super::super::load_fixture("claude-code-2.1.328", scenario, Format::ClaudeCode)
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
    let explorer = super::super::exploration_thread(&snapshot);
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

#[test]
fn a_session_from_the_terminal_shows_its_answer_its_refusal_its_rewind_and_its_compaction() {
    let snapshot = snapshot("interactive");
    // AskUserQuestion, answered in the terminal: an answered batch naming the option chosen.
    assert_eq!(snapshot.batches.len(), 1);
    let batch = &snapshot.batches[0];
    assert_eq!(batch.status, BatchStatus::Answered);
    let item = &batch.spec.items[0];
    assert_eq!(item.prompt, "Which database should we use?");
    assert_eq!(item.header.as_deref(), Some("Database"));
    let labels: Vec<_> = item
        .options
        .iter()
        .map(|option| option.label.as_str())
        .collect();
    assert_eq!(labels, ["SQLite", "PostgreSQL"]);
    assert_eq!(
        item.options[0].detail.as_deref(),
        Some("One file, no server")
    );
    let answer = &batch.response.as_ref().unwrap().answers[0];
    assert_eq!(item.option_label(&answer.selected[0]), "SQLite");
    // The declined Bash call, with the human's feedback as the reason.
    let refused = &snapshot.confirmations[0];
    assert_eq!(refused.status, ConfirmationStatus::Declined);
    assert!(refused.spec.message.contains("rm -rf ./build"));
    assert_eq!(
        refused.outcome_comment.as_deref(),
        Some("keep it, we still need the artifacts")
    );
    // /rewind: what came after the rewound prompt is a parked branch off the main thread,
    // and the main thread goes on with the new prompt.
    assert_eq!(snapshot.threads.len(), 2);
    let branch = &snapshot.threads[1];
    assert_eq!(branch.spec.kind, ThreadKind::Branch);
    assert_eq!(branch.status, ThreadStatus::Parked);
    assert_eq!(branch.spec.title, "↩ Delete the old build folder");
    assert_eq!(snapshot.confirmations[0].spec.thread_id, branch.spec.id);
    let main: Vec<(Role, &str)> = snapshot
        .messages
        .iter()
        .filter(|message| message.spec.thread_id.as_str() == "main")
        .map(|message| (message.spec.role, message.spec.text.as_str()))
        .collect();
    assert!(
        main.contains(&(Role::User, "Начнём с формата логов")),
        "{main:?}"
    );
    assert!(!main
        .iter()
        .any(|(_, text)| text.contains("Delete the old build")));
    // /compact: a divider, then the summary; nothing before it is lost.
    let divider = main
        .iter()
        .position(|(role, text)| *role == Role::System && text.contains("compacted"))
        .unwrap();
    assert!(main[divider + 1]
        .1
        .starts_with("This session is being continued"));
    assert!(main[..divider]
        .iter()
        .any(|(_, text)| text.contains("SQLite it is")));
    assert_eq!(main.last().unwrap().1, "Продолжаем после сжатия.");
    // The harness's own lines (a command's output, its caveat) are not shown.
    assert!(snapshot
        .messages
        .iter()
        .all(|message| !message.spec.text.contains("local-command")));
}

#[test]
fn a_transcript_followed_as_claude_code_writes_it_grows_in_the_same_snapshot() {
    use super::super::AgentTranscript;
    let whole = std::fs::read_to_string(fixture("interactive")).unwrap();
    let lines: Vec<&str> = whole.lines().collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    // The transcript up to the answered question, then the rest as Claude Code appended it,
    // a line at a time and the last one torn before its newline.
    let answered = lines
        .iter()
        .position(|line| line.contains("SQLite it is."))
        .unwrap();
    std::fs::write(&path, lines[..=answered].join("\n") + "\n").unwrap();
    let mut transcript = AgentTranscript::open(&path, Format::ClaudeCode).unwrap();
    let history = transcript.snapshot().history;
    assert_eq!(
        transcript.snapshot().batches[0].status,
        BatchStatus::Answered
    );
    assert!(transcript.snapshot().confirmations.is_empty());
    let mut grew = 0;
    let mut folded_into_the_same = 0;
    let mut previous = history;
    let mut kept_history = true;
    for (index, line) in lines.iter().enumerate().skip(answered + 1) {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        let torn = index + 1 == lines.len();
        if torn {
            let (head, _) = line.split_at(line.len() / 2);
            file.write_all(head.as_bytes()).unwrap();
        } else {
            writeln!(file, "{line}").unwrap();
        }
        drop(file);
        // A file that changed within the same instant of its clock still counts as changed.
        std::thread::sleep(std::time::Duration::from_millis(2));
        let before = transcript.snapshot().messages.len();
        if transcript.follow().unwrap() {
            grew += 1;
            let now = transcript.snapshot().history;
            if now == previous {
                folded_into_the_same += 1;
            }
            if now != history {
                kept_history = false;
            }
            previous = now;
        }
        assert!(transcript.snapshot().messages.len() >= before || !kept_history);
    }
    assert!(grew >= 3, "the session grew as lines came: {grew}");
    assert!(
        folded_into_the_same >= 2,
        "new turns are folded into the snapshot shown: {folded_into_the_same} of {grew}"
    );
    // The rewind made another path the active one, so the snapshot was folded anew once.
    assert!(!kept_history);
    assert_eq!(transcript.snapshot().threads.len(), 2);
    assert_eq!(
        transcript.snapshot().confirmations[0].status,
        ConfirmationStatus::Declined
    );
    // The torn last line is waited for, not reported; the agent's file was never written.
    let on_disk = std::fs::read_to_string(&path).unwrap();
    assert!(!on_disk.ends_with('\n'));
}

#[test]
fn the_harness_reminders_in_a_prompt_are_not_shown() {
    let snapshot = snapshot("interactive");
    let summary = snapshot
        .messages
        .iter()
        .find(|message| {
            message
                .spec
                .text
                .starts_with("This session is being continued")
        })
        .unwrap();
    assert_eq!(summary.spec.role, Role::System);
    assert!(
        !summary.spec.text.contains("system-reminder"),
        "{}",
        summary.spec.text
    );
    assert!(summary.spec.text.contains("Summary:"));
}

#[test]
fn a_rejected_plan_is_a_declined_confirmation_and_a_dismissed_question_is_withdrawn() {
    let snapshot = snapshot("plan");
    let plan = &snapshot.confirmations[0];
    assert_eq!(plan.spec.title.as_deref(), Some("Approve the plan?"));
    assert!(
        plan.spec.message.contains("1. Add a `sessions` table."),
        "{}",
        plan.spec.message
    );
    assert_eq!(plan.status, ConfirmationStatus::Declined);
    assert_eq!(
        plan.outcome_comment, None,
        "no reason given: Claude Code's stock words are not one"
    );
    assert_eq!(snapshot.batches.len(), 1);
    assert_eq!(snapshot.batches[0].status, BatchStatus::Withdrawn);
    assert_eq!(
        snapshot.batches[0].spec.items[0].prompt,
        "Which database should we use?"
    );
    // The human's next prompt says why; the interruptions are system lines, not the human's.
    let said: Vec<(Role, &str)> = snapshot
        .messages
        .iter()
        .map(|message| (message.spec.role, message.spec.text.as_str()))
        .collect();
    assert!(said.contains(&(Role::User, "Keep the old table until we have a backup")));
    assert!(
        said.contains(&(Role::System, "⏹ Interrupted by the human")),
        "{said:?}"
    );
    assert!(!said
        .iter()
        .any(|(_, text)| text.contains("[Request interrupted")));
}
