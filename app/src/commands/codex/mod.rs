//! `chatsurface codex`: runs Codex's app-server as its client, with what Codex asks put to the
//! human on the running surface.
//!
//! It starts `codex app-server` (JSON-RPC over stdio), or attaches to one already running on
//! a unix socket (`--attach`, see [`link`]), opens a thread in the folder given,
//! and sends the first prompt and then each line of stdin as a turn. What Codex says and runs
//! is printed, and mirrored as messages into the session `codex-<thread id>`; its requests
//! (a command to run, files to change, questions) are asked there, held open until the
//! human answers (see [`crate::bridges::codex`] for what they become). A request the
//! app-server settles otherwise (`serverRequest/resolved`: the turn interrupted) is withdrawn
//! from the surface. A decline's comment is handed to the model as the human's words: added
//! to the turn in flight (`turn/steer`), or as the next prompt where the decline ended it.
//!
//! It fails closed, never to "accept": with no surface, or no answer, a command or a file
//! change is declined and questions go back unanswered, with one line on stderr saying so.
//! This module does the I/O; the translation is the bridge's.

mod link;

use crate::bridges::codex::protocol::{self, Incoming, ItemEvent, RequestResolved};
use crate::bridges::codex::questions::{decline_comment, Asked};
use crate::bridges::codex::SLUG;
use crate::cli::CodexArgs;
use crate::client::ask::socket_path;
use crate::client::http::{exchange, ExchangeError};
use crate::error::AppError;
use hyper::{Method, StatusCode};
use link::Link;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// The most of a command's output the mirrored message keeps, in characters.
const OUTPUT_CHARS: usize = 2_000;

/// What the main loop hears about.
enum Heard {
    /// A line the app-server wrote (its responses are routed to their waiters instead).
    FromCodex(Incoming),
    /// The app-server closed its stdout.
    CodexGone,
    /// The surface's answer to a request, as the result to send, with a decline's comment.
    Answered {
        id: Value,
        result: Value,
        comment: Option<String>,
    },
    /// A line of stdin: the next prompt (`None`: stdin ended).
    Prompt(Option<String>),
    /// The human's words for the model that go before any prompt queued: a decline's comment
    /// where the decline ended the turn.
    Words(String),
}

/// Who waits for the response to which of the bridge's requests, by its id.
type Waiters = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>>;

/// The app-server's side of the pipe: requests out, responses routed back by id.
struct Codex {
    lines: mpsc::UnboundedSender<String>,
    waiting: Waiters,
    next_id: u64,
}

impl Codex {
    /// Sends a request; the receiver gets its result.
    fn request(&mut self, method: &str, params: Value) -> oneshot::Receiver<Result<Value, String>> {
        let (sender, receiver) = oneshot::channel();
        self.next_id += 1;
        self.waiting
            .lock()
            .expect("the waiters' lock is never poisoned: nothing panics holding it")
            .insert(self.next_id, sender);
        // A closed pipe shows as the app-server gone, which the main loop hears.
        let _ = self
            .lines
            .send(protocol::request(self.next_id, method, params));
        receiver
    }

    /// Sends a request and waits for its result.
    async fn call(&mut self, method: &str, params: Value) -> Result<Value, AppError> {
        self.request(method, params)
            .await
            .map_err(|_| AppError::Unavailable(format!("{method}: the app-server exited")))?
            .map_err(|error| AppError::Unavailable(format!("{method}: {error}")))
    }

    fn send(&self, line: String) {
        let _ = self.lines.send(line);
    }
}

/// Where the surface is and how to reach it.
#[derive(Clone)]
struct Surface {
    socket: PathBuf,
    token: String,
}

impl Surface {
    /// Posts `body` to `path`; the reply's JSON, or why there is none.
    async fn post(&self, path: &str, body: &Value) -> Result<Value, String> {
        match exchange(
            &self.socket,
            Method::POST,
            path,
            &self.token,
            Some(body.to_string()),
        )
        .await
        {
            Ok((StatusCode::OK, bytes)) => serde_json::from_slice(&bytes)
                .map_err(|error| format!("the surface's reply is not JSON: {error}")),
            Ok((status, bytes)) => Err(format!(
                "the surface refused it ({status}): {}",
                crate::logging::one_line(&String::from_utf8_lossy(&bytes))
            )),
            Err(ExchangeError::Connect(error)) => {
                Err(format!("no surface at {} ({error})", self.socket.display()))
            }
            Err(ExchangeError::Closed(error)) => Err(format!("the surface closed ({error})")),
            Err(ExchangeError::Untrusted(place)) => Err(format!("{place}; the token was not sent")),
            Err(ExchangeError::Request(error)) => Err(format!("cannot build the request: {error}")),
        }
    }
}

/// Runs the bridge until stdin ends and the last turn is done, or Codex exits.
pub(super) fn run(args: &CodexArgs) -> Result<(), AppError> {
    if let Some(line) = super::bridge_token::ensure(SLUG)? {
        eprintln!("chatsurface: {line}");
    }
    let surface = Surface {
        socket: socket_path(|name: &str| std::env::var(name).ok()),
        token: super::bridge_token::read(SLUG, "run `chatsurface codex` again")?,
    };
    let cwd = match &args.cwd {
        Some(cwd) => cwd.clone(),
        None => std::env::current_dir()
            .map_err(|error| AppError::NoInput(format!("the current folder: {error}")))?,
    };
    let cwd = std::fs::canonicalize(&cwd)
        .map_err(|error| AppError::NoInput(format!("{}: {error}", cwd.display())))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| AppError::Unavailable(format!("cannot start the I/O runtime: {error}")))?;
    runtime.block_on(bridge(args, &cwd.to_string_lossy(), surface))
}

async fn bridge(args: &CodexArgs, cwd: &str, surface: Surface) -> Result<(), AppError> {
    let Link {
        outgoing: lines,
        incoming,
        child,
    } = match &args.attach {
        Some(socket) => link::attach(socket).await?,
        None => link::start(&args.codex_bin, cwd)?,
    };
    let (heard, mut hearing) = mpsc::unbounded_channel::<Heard>();
    let mut codex = Codex {
        lines,
        waiting: Default::default(),
        next_id: 0,
    };
    spawn_reader(incoming, codex.waiting.clone(), heard.clone());
    spawn_prompts(heard.clone());

    codex
        .call("initialize", protocol::initialize_params())
        .await?;
    codex.send(protocol::notification("initialized"));
    let started = codex
        .call(
            "thread/start",
            protocol::thread_start_params(cwd, args.ask_for_approval.name(), args.sandbox.name()),
        )
        .await?;
    let thread = started["thread"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let model = started["model"].as_str().unwrap_or_default().to_owned();
    let session = crate::bridges::session_name(SLUG, &thread)
        .map_err(|id| AppError::BadInput(format!("thread/start: threadId \"{id}\"")))?;
    eprintln!("chatsurface: Codex thread {thread}, asked on the surface in session {session}");

    let mut queued: Vec<String> = args.prompt.iter().cloned().collect();
    let mut stdin_open = true;
    let mut turn: Option<String> = None;
    let mut asking: HashMap<String, JoinHandle<()>> = HashMap::new();
    let mut changes: HashMap<String, Value> = HashMap::new();
    loop {
        if turn.is_none() {
            if let Some(prompt) = (!queued.is_empty()).then(|| queued.remove(0)) {
                let plan = args.plan.then_some(model.as_str());
                let params = protocol::turn_start_params(&thread, &prompt, plan);
                let started = codex.call("turn/start", params).await?;
                turn = Some(
                    started["turn"]["id"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                );
                continue;
            }
            if !stdin_open {
                break;
            }
        }
        let Some(news) = hearing.recv().await else {
            break;
        };
        match news {
            Heard::Prompt(Some(line)) if !line.trim().is_empty() => queued.push(line),
            Heard::Prompt(Some(_)) => {}
            Heard::Prompt(None) => stdin_open = false,
            Heard::Words(words) => queued.insert(0, words),
            Heard::CodexGone => {
                return Err(AppError::Unavailable(
                    "the app-server exited before the last turn was done".into(),
                ))
            }
            Heard::Answered {
                id,
                result,
                comment,
            } => {
                asking.remove(&id.to_string());
                // `cancel` ends the turn: the comment starts the next one.
                let in_flight = turn.as_deref().filter(|_| result["decision"] != "cancel");
                codex.send(protocol::response(&id, result));
                if let Some(comment) = comment {
                    tell_the_model(&mut codex, &thread, in_flight, comment, &heard);
                }
            }
            Heard::FromCodex(Incoming::Request { id, method, params }) => {
                let asked = match Asked::read(&method, params) {
                    Ok(Asked::FileChange(approval, _)) => {
                        let seen = changes.get(&approval.item_id).cloned();
                        Asked::FileChange(approval, seen)
                    }
                    Ok(asked) => asked,
                    Err(why) => {
                        eprintln!("chatsurface: {why}; answered as not supported");
                        codex.send(protocol::not_answered(&id, &method));
                        continue;
                    }
                };
                let key = id.to_string();
                let task = tokio::spawn(ask(asked, id, surface.clone(), heard.clone()));
                asking.insert(key, task);
            }
            Heard::FromCodex(Incoming::Notification { method, params }) => match method.as_str() {
                "serverRequest/resolved" => {
                    if let Ok(resolved) = serde_json::from_value::<RequestResolved>(params) {
                        // Dropping the held request takes the question off the surface.
                        if let Some(task) = asking.remove(&resolved.request_id.to_string()) {
                            task.abort();
                            eprintln!("chatsurface: settled in Codex; withdrawn from the surface");
                        }
                    }
                }
                "item/started" => {
                    if let Ok(event) = serde_json::from_value::<ItemEvent>(params) {
                        if event.item["type"] == "fileChange" {
                            let id = event.item["id"].as_str().unwrap_or_default().to_owned();
                            changes.insert(id, event.item["changes"].clone());
                        }
                    }
                }
                "item/completed" => {
                    if let Ok(event) = serde_json::from_value::<ItemEvent>(params) {
                        mirror(&surface, &session, &event.item).await;
                    }
                }
                "turn/completed" => turn = None,
                _ => {}
            },
            Heard::FromCodex(Incoming::Response { .. }) => {}
        }
    }
    drop(codex);
    // Its stdin closed, an app-server this bridge started ends; a kill is the fallback. One
    // attached to goes on serving its other clients.
    if let Some(mut child) = child {
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), child.wait()).await;
    }
    Ok(())
}

/// Hands a decline's comment to the model: into the turn in flight, else as the next prompt.
fn tell_the_model(
    codex: &mut Codex,
    thread: &str,
    turn: Option<&str>,
    comment: String,
    heard: &mpsc::UnboundedSender<Heard>,
) {
    let Some(turn) = turn else {
        let _ = heard.send(Heard::Words(comment));
        return;
    };
    let steered = codex.request(
        "turn/steer",
        protocol::turn_steer_params(thread, turn, &comment),
    );
    let heard = heard.clone();
    tokio::spawn(async move {
        // A turn that ended meanwhile takes no more words: they start the next one.
        if !matches!(steered.await, Ok(Ok(_))) {
            let _ = heard.send(Heard::Words(comment));
        }
    });
}

/// Asks one request on the surface and reports the result to send.
async fn ask(asked: Asked, id: Value, surface: Surface, heard: mpsc::UnboundedSender<Heard>) {
    let question_id = format!("cx-{}-{}", asked.item_id(), id).replace(
        |c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')),
        "-",
    );
    let reply = match asked.question(&question_id) {
        Ok(question) => surface.post(&question.path(), &question.body).await,
        Err(why) => Err(why),
    };
    let reply = match reply {
        Ok(reply) => Some(reply),
        Err(why) => {
            eprintln!("chatsurface: {why}; Codex is told no");
            None
        }
    };
    let comment = reply.as_ref().and_then(decline_comment).map(str::to_owned);
    let result = asked.result(reply.as_ref());
    let _ = heard.send(Heard::Answered {
        id,
        result,
        comment,
    });
}

/// Prints a finished item of Codex's and mirrors it into the session; a mirror that fails is
/// one line. The human's prompts are not mirrored: the API keeps the human's role for the
/// operator, and the whole thread, prompts included, is Codex's rollout file, which the
/// window lists among the sessions on the machine.
async fn mirror(surface: &Surface, session: &str, item: &Value) {
    let text_of = |field: &str| item[field].as_str().unwrap_or_default().to_owned();
    let (role, text) = match item["type"].as_str().unwrap_or_default() {
        "agentMessage" => {
            show(&format!("codex: {}\n", text_of("text")));
            ("agent", text_of("text"))
        }
        "commandExecution" => {
            let exit = item["exitCode"]
                .as_i64()
                .map_or_else(|| text_of("status"), |code| format!("exit {code}"));
            show(&format!("$ {} ({exit})\n", text_of("command")));
            let output = crate::agents::cut(&text_of("aggregatedOutput"), OUTPUT_CHARS);
            (
                "tool",
                format!("$ {} ({exit})\n{output}", text_of("command")),
            )
        }
        _ => return,
    };
    let body = json!({"role": role, "text": text, "id": text_of("id")});
    if let Err(why) = surface
        .post(&format!("/v1/sessions/{session}/messages"), &body)
        .await
    {
        eprintln!("chatsurface: not mirrored: {why}");
    }
}

/// Prints what Codex did on stdout; stdout failing stops nothing (the surface still asks).
fn show(text: &str) {
    if let Err(error) = super::print(text) {
        eprintln!("chatsurface: {error}");
    }
}

/// Reads the app-server's lines: responses to their waiters, the rest to the main loop.
fn spawn_reader(
    mut incoming: mpsc::UnboundedReceiver<String>,
    waiting: Waiters,
    heard: mpsc::UnboundedSender<Heard>,
) {
    tokio::spawn(async move {
        while let Some(line) = incoming.recv().await {
            match Incoming::parse(&line) {
                Ok(Incoming::Response { id, result }) => {
                    let waiter = id.as_u64().and_then(|id| {
                        waiting
                            .lock()
                            .expect(
                                "the waiters' lock is never poisoned: nothing panics holding it",
                            )
                            .remove(&id)
                    });
                    if let Some(waiter) = waiter {
                        let _ = waiter.send(result);
                    }
                }
                Ok(message) => {
                    let _ = heard.send(Heard::FromCodex(message));
                }
                Err(why) => eprintln!("chatsurface: the app-server wrote a line that is {why}"),
            }
        }
        // Whoever still waits for a response hears that none will come.
        waiting
            .lock()
            .expect("the waiters' lock is never poisoned: nothing panics holding it")
            .clear();
        let _ = heard.send(Heard::CodexGone);
    });
}

/// Reads stdin's lines as prompts.
fn spawn_prompts(heard: mpsc::UnboundedSender<Heard>) {
    tokio::spawn(async move {
        let mut lines = BufReader::new(tokio::io::stdin()).lines();
        loop {
            let line = lines.next_line().await.ok().flatten();
            let ended = line.is_none();
            if heard.send(Heard::Prompt(line)).is_err() || ended {
                break;
            }
        }
    });
}
