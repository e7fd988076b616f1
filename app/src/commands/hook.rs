//! `chatsurface hook claude-code`: the command Claude Code runs as its `PermissionRequest`
//! hook. It reads the event on stdin, asks the question on the running surface over the
//! API's socket, waits for the human, and prints the decision on stdout.
//!
//! It fails open to the terminal, never to "allow": with no surface, an answer the surface did
//! not settle, or its own time limit reached, it prints nothing and exits 0, so Claude Code's
//! own prompt (already up in the terminal) decides. When the human answers that prompt
//! first, the transcript says so and the hook leaves, which withdraws its question from the
//! surface. A surface that refuses the hook (a wrong
//! token, a question it cannot show) is an error line on stderr and a non-zero exit other
//! than 2, which Claude Code reports without blocking the tool. What the event means and what
//! the answer becomes is [`crate::bridges::claude_code`]'s; this module does the I/O.

use crate::bridges::claude_code::terminal_answer::TerminalAnswerWatch;
use crate::bridges::claude_code::{permission, SLUG};
use crate::client::ask::socket_path;
use crate::client::http::{exchange, ExchangeError};
use crate::error::AppError;
use hyper::{Method, StatusCode};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The most the hook reads from stdin: an event carries a tool's input, which for a `Write`
/// is a whole file, but never more than this.
const MAX_EVENT_BYTES: u64 = 16 << 20;

/// The most of a transcript read to find the plan file, and of the plan file itself.
const MAX_TRANSCRIPT_BYTES: u64 = 256 << 20;
const MAX_PLAN_BYTES: u64 = 1 << 20;

/// How often the hook reads the transcript for the terminal's answer.
const TRANSCRIPT_POLL: Duration = Duration::from_millis(250);

/// The most of the transcript read in one go, so a long session is read in pieces.
const TRANSCRIPT_CHUNK_BYTES: u64 = 8 << 20;

/// How a wait for the surface ended.
enum Waited {
    Reply(Result<(StatusCode, hyper::body::Bytes), ExchangeError>),
    AnsweredInTerminal,
    GaveUp,
}

/// Runs the hook: one event from stdin, at most one decision on stdout.
pub(super) fn run(give_up_after: Duration) -> Result<(), AppError> {
    let mut raw = Vec::new();
    std::io::stdin()
        .take(MAX_EVENT_BYTES + 1)
        .read_to_end(&mut raw)
        .map_err(|error| AppError::NoInput(format!("stdin: {error}")))?;
    if raw.len() as u64 > MAX_EVENT_BYTES {
        return Err(AppError::BadInput(format!(
            "stdin: a hook event over {} MiB",
            MAX_EVENT_BYTES >> 20
        )));
    }
    let event: permission::HookEvent = serde_json::from_slice(&raw)
        .map_err(|error| AppError::BadInput(format!("stdin: not a hook event: {error}")))?;
    let question = match permission::question(&with_plan(&event), &question_id()?) {
        Ok(question) => question,
        Err(unbridged) => {
            // Not an error: Claude Code's own prompt asks instead.
            eprintln!("chatsurface: {unbridged}; Claude Code asks in its terminal");
            return Ok(());
        }
    };
    let token = super::bridge_token::read(SLUG, "run `chatsurface install claude-code`")?;
    let socket = socket_path(|name: &str| std::env::var(name).ok());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| AppError::Unavailable(format!("cannot start the I/O runtime: {error}")))?;
    let transcript = event.transcript_path.as_ref().map(PathBuf::from);
    let watch = TerminalAnswerWatch::new(&event);
    let path = question.path();
    let waited = runtime.block_on(async {
        let asked = exchange(
            &socket,
            Method::POST,
            &path,
            &token,
            Some(question.body.to_string()),
        );
        tokio::select! {
            reply = asked => Waited::Reply(reply),
            () = answered_in_terminal(transcript, watch) => Waited::AnsweredInTerminal,
            () = tokio::time::sleep(give_up_after) => Waited::GaveUp,
        }
    });
    let asked = match waited {
        Waited::Reply(reply) => reply,
        Waited::AnsweredInTerminal => {
            eprintln!(
                "chatsurface: answered in Claude Code's terminal; withdrawn from the surface"
            );
            return Ok(());
        }
        Waited::GaveUp => {
            eprintln!(
                "chatsurface: no answer in {}s; Claude Code asks in its terminal",
                give_up_after.as_secs()
            );
            return Ok(());
        }
    };
    let (status, bytes) = match asked {
        Err(ExchangeError::Connect(error)) => {
            eprintln!(
                "chatsurface: no surface at {} ({error}); Claude Code asks in its terminal",
                socket.display()
            );
            return Ok(());
        }
        Err(ExchangeError::Closed(error)) => {
            eprintln!(
                "chatsurface: the surface closed ({error}); Claude Code asks in its terminal"
            );
            return Ok(());
        }
        Err(ExchangeError::Untrusted(place)) => {
            return Err(AppError::Unavailable(format!(
                "{place}; the token was not sent"
            )))
        }
        Err(ExchangeError::Request(error)) => {
            return Err(AppError::Internal(format!(
                "cannot build the request: {error}"
            )))
        }
        Ok(reply) => reply,
    };
    if status != StatusCode::OK {
        return Err(AppError::Unavailable(format!(
            "the surface refused the question ({status}): {}",
            crate::logging::one_line(&String::from_utf8_lossy(&bytes))
        )));
    }
    let reply: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|error| AppError::BadInput(format!("the surface's reply is not JSON: {error}")))?;
    match permission::decision(&event, &question, &reply) {
        Some(decision) => super::print(&format!("{decision}\n")),
        None => Ok(()),
    }
}

/// The event with its plan, for an `ExitPlanMode` whose input came without one: the plan
/// file the transcript shows written (see [`crate::bridges::claude_code::plan`]).
fn with_plan(event: &permission::HookEvent) -> permission::HookEvent {
    use crate::bridges::claude_code::plan::{last_plan_file, plans_dir};
    let has_plan = event
        .tool_input
        .get("plan")
        .and_then(serde_json::Value::as_str)
        .is_some_and(|plan| !plan.trim().is_empty());
    let mut shown = event.clone();
    if event.tool_name != "ExitPlanMode" || has_plan {
        return shown;
    }
    let read = |path: &Path, limit: u64| -> Option<Vec<u8>> {
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .ok()?
            .take(limit)
            .read_to_end(&mut bytes)
            .ok()?;
        Some(bytes)
    };
    let plan = event
        .transcript_path
        .as_deref()
        .map(Path::new)
        .and_then(|transcript| {
            let file = last_plan_file(
                &read(transcript, MAX_TRANSCRIPT_BYTES)?,
                &plans_dir(transcript)?,
            )?;
            read(&file, MAX_PLAN_BYTES)
        });
    if let (Some(plan), Some(input)) = (plan, shown.tool_input.as_object_mut()) {
        input.insert(
            "plan".into(),
            String::from_utf8_lossy(&plan).into_owned().into(),
        );
    }
    shown
}

/// Returns once the transcript shows the call answered in the terminal; never without a
/// transcript. What it held when the hook started is read first, as the past.
async fn answered_in_terminal(transcript: Option<PathBuf>, mut watch: TerminalAnswerWatch) {
    let Some(path) = transcript else {
        return std::future::pending().await;
    };
    let mut offset = 0;
    let mut in_the_past = true;
    loop {
        // A transcript not written yet, or unreadable for a moment, holds nothing yet.
        let appended = read_appended(&path, &mut offset).await.unwrap_or_default();
        let more_to_read = appended.len() as u64 == TRANSCRIPT_CHUNK_BYTES;
        if in_the_past {
            watch.read_past(&appended);
            in_the_past = more_to_read;
        } else if watch.read_new(&appended) {
            return;
        }
        if !more_to_read {
            tokio::time::sleep(TRANSCRIPT_POLL).await;
        }
    }
}

/// What the file holds past `offset` (at most one chunk), moving `offset` past it.
async fn read_appended(path: &Path, offset: &mut u64) -> std::io::Result<Vec<u8>> {
    use tokio::io::{AsyncReadExt, AsyncSeekExt};
    let mut file = tokio::fs::File::open(path).await?;
    file.seek(std::io::SeekFrom::Start(*offset)).await?;
    let mut bytes = Vec::new();
    file.take(TRANSCRIPT_CHUNK_BYTES)
        .read_to_end(&mut bytes)
        .await?;
    *offset += bytes.len() as u64;
    Ok(bytes)
}

/// A fresh question id: Claude Code's permission events carry no tool-use id, and two
/// prompts in one session must not collide.
fn question_id() -> Result<String, AppError> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes)
        .map_err(|error| AppError::Internal(format!("no random id: {error}")))?;
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    Ok(format!("cc-{hex}"))
}
