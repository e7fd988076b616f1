//! `chatsurface ask`: the client side of the dialog API, for shell scripts and agents.
//!
//! This module owns the command's arguments, the request body they ask for, where the token
//! and the socket are found, one `POST /v1/integrations/{slug}/dialogs` over the unix socket,
//! and how the answer becomes stdout lines and an exit code (0 answered, 1 declined, 2 expired,
//! withdrawn or surface closed; sysexits for transport failures). The rules a dialog must
//! follow belong to [`crate::api::dialog`] and the server; this module must not duplicate them,
//! and it must not touch the store or the server.

use crate::api::protocol::DialogAnswer;
use crate::client::http::{exchange, ExchangeError};
use hyper::{Method, StatusCode};
use serde_json::{json, Map, Value};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Arguments of `chatsurface ask`.
#[derive(Debug, clap::Args)]
pub struct AskArgs {
    /// The integration that asks (its token must be in the environment).
    pub slug: String,
    /// The question, at most 600 characters.
    pub question: String,
    /// An option, as "id:label" or just "id"; repeat for more (at most 9).
    #[arg(short = 'o', long = "option", value_name = "ID[:LABEL]")]
    pub options: Vec<String>,
    /// Let the human choose several options.
    #[arg(long)]
    pub multi: bool,
    /// Let the human write their own answer.
    #[arg(long)]
    pub custom: bool,
    /// The accept button's label of a yes/no question (default "Да").
    #[arg(long, value_name = "LABEL")]
    pub accept: Option<String>,
    /// The decline button's label of a yes/no question (default "Нет").
    #[arg(long, value_name = "LABEL")]
    pub decline: Option<String>,
    /// Let the human add a comment when declining.
    #[arg(long)]
    pub comment: bool,
    /// A short title (default the slug).
    #[arg(long)]
    pub title: Option<String>,
    /// How long to wait: seconds, or "90s", "10m", "2h" (default 10m; 5s to 24h).
    #[arg(long)]
    pub timeout: Option<String>,
    /// A file the human can open from the question.
    #[arg(long, value_name = "FILE")]
    pub attach: Option<PathBuf>,
}

/// Why `chatsurface ask` got no answer, with the exit code a script can branch on.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum AskError {
    /// The arguments or the environment are not usable (64).
    #[error("{0}")]
    Usage(String),
    /// The server rejected the question (65).
    #[error("{0}")]
    BadInput(String),
    /// No surface to ask, or it cannot take the question now (69).
    #[error("{0}")]
    Unavailable(String),
    /// The server answered something this client cannot read (76).
    #[error("{0}")]
    Protocol(String),
    /// The token was refused, or dialogs are not enabled for the integration (77).
    #[error("{0}")]
    NoPermission(String),
    /// The connection dropped before an answer: the surface closed (2).
    #[error("{0}")]
    Closed(String),
}

impl AskError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            AskError::Closed(_) => 2,
            AskError::Usage(_) => 64,
            AskError::BadInput(_) => 65,
            AskError::Unavailable(_) => 69,
            AskError::Protocol(_) => 76,
            AskError::NoPermission(_) => 77,
        }
    }
}

/// The JSON body the arguments ask for.
///
/// Options, `--multi` or `--custom` make a choice; otherwise it is a yes/no confirmation.
/// Mixing the two, `--multi` with fewer than two options and a malformed `-o` are usage
/// errors. A timeout that is a whole number of seconds is sent as a number, and a relative
/// `--attach` is made absolute against the current directory. Every other rule is the
/// server's to check.
pub fn request_body(args: &AskArgs) -> Result<Value, AskError> {
    if !args.options.is_empty() || args.custom {
        let confirmation_flag = [
            ("--accept", args.accept.is_some()),
            ("--decline", args.decline.is_some()),
            ("--comment", args.comment),
        ]
        .into_iter()
        .find_map(|(flag, given)| given.then_some(flag));
        if let Some(flag) = confirmation_flag {
            return Err(AskError::Usage(format!(
                "{flag} is for a yes/no question; it cannot go with -o or --custom"
            )));
        }
    }
    if args.multi && args.options.len() < 2 {
        return Err(AskError::Usage(
            "--multi needs at least two -o options".into(),
        ));
    }
    let mut body = Map::new();
    body.insert("message".into(), json!(args.question));
    if let Some(title) = &args.title {
        body.insert("title".into(), json!(title));
    }
    if !args.options.is_empty() {
        let options = args
            .options
            .iter()
            .map(|spec| option_value(spec))
            .collect::<Result<Vec<_>, _>>()?;
        body.insert("options".into(), Value::Array(options));
    }
    for (name, flag) in [
        ("multiple", args.multi),
        ("custom", args.custom),
        ("comment", args.comment),
    ] {
        if flag {
            body.insert(name.into(), json!(true));
        }
    }
    for (name, label) in [("accept", &args.accept), ("decline", &args.decline)] {
        if let Some(label) = label {
            body.insert(name.into(), json!(label));
        }
    }
    if let Some(timeout) = &args.timeout {
        let value = match timeout.trim().parse::<u64>() {
            Ok(seconds) => json!(seconds),
            Err(_) => json!(timeout),
        };
        body.insert("timeout".into(), value);
    }
    if let Some(path) = &args.attach {
        let absolute = std::path::absolute(path)
            .map_err(|error| AskError::Usage(format!("--attach {}: {error}", path.display())))?;
        // The server does not say whether a path exists (that would let integrations probe
        // the file system), so the agent's own view is checked here, for a clear error.
        if !absolute.exists() {
            return Err(AskError::Usage(format!(
                "--attach {}: no such file",
                path.display()
            )));
        }
        let text = absolute.to_str().ok_or_else(|| {
            AskError::Usage(format!(
                "--attach {}: the path is not valid UTF-8",
                path.display()
            ))
        })?;
        body.insert("attachment".into(), json!(text));
    }
    Ok(Value::Object(body))
}

/// One `-o`: "id:label" (the label may hold more colons) or "id", which is its own label.
fn option_value(spec: &str) -> Result<Value, AskError> {
    match spec.split_once(':') {
        None if !spec.trim().is_empty() => Ok(json!(spec)),
        Some((id, label)) if !id.trim().is_empty() && !label.trim().is_empty() => {
            Ok(json!({"id": id, "label": label}))
        }
        _ => Err(AskError::Usage(format!(
            "-o \"{spec}\": write an option as id:label or id"
        ))),
    }
}

/// The integration's own token variable: `CHATSURFACE_TOKEN_` and the slug upper-cased, with
/// every character that cannot be in a variable name (such as `-`) written as `_`.
pub(crate) fn token_var(slug: &str) -> String {
    let suffix: String = slug
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("CHATSURFACE_TOKEN_{suffix}")
}

/// The token: `CHATSURFACE_TOKEN_<SLUG>` (slug upper-cased, `-` as `_`), else
/// `CHATSURFACE_TOKEN`. An empty variable counts as unset.
pub fn token_for(slug: &str, env: impl Fn(&str) -> Option<String>) -> Option<String> {
    [token_var(slug).as_str(), "CHATSURFACE_TOKEN"]
        .into_iter()
        .find_map(|name| env(name).filter(|token| !token.is_empty()))
}

/// The API socket: `$CHATSURFACE_SOCKET`, else `$XDG_RUNTIME_DIR/chatsurface/api.sock`, else
/// `run/api.sock` in the data directory (`$CHATSURFACE_DATA_DIR`, else the default one).
/// Never a shared directory such as `/tmp`, where another user could make the directory
/// first and listen in it. Empty variables count as unset. The server listens at the same
/// default.
pub fn socket_path(env: impl Fn(&str) -> Option<String>) -> PathBuf {
    let set = |name: &str| env(name).filter(|value| !value.is_empty());
    if let Some(path) = set("CHATSURFACE_SOCKET") {
        return PathBuf::from(path);
    }
    if let Some(dir) = set("XDG_RUNTIME_DIR") {
        return Path::new(&dir).join("chatsurface").join("api.sock");
    }
    set("CHATSURFACE_DATA_DIR")
        .map_or_else(crate::paths::default_data_dir, PathBuf::from)
        .join("run")
        .join("api.sock")
}

/// What to print (one line each) and the exit code: 0 answered (the chosen ids, then the
/// custom text if any), 1 declined (the comment, if any), 2 expired or withdrawn.
pub fn outcome(answer: &DialogAnswer) -> (Vec<String>, u8) {
    match answer {
        DialogAnswer::Chose(ids) => (ids.clone(), 0),
        DialogAnswer::ChoseAndWrote { options, text } => {
            (options.iter().chain([text]).cloned().collect(), 0)
        }
        DialogAnswer::Custom(text) => (vec![text.clone()], 0),
        DialogAnswer::Accepted => (Vec::new(), 0),
        DialogAnswer::Declined(comment) => (comment.iter().cloned().collect(), 1),
        DialogAnswer::Expired | DialogAnswer::Withdrawn => (Vec::new(), 2),
    }
}

/// Runs the whole command and returns the exit code.
///
/// Posts the question to `/v1/integrations/{slug}/dialogs` over the unix socket with the
/// integration's bearer token, waits for the answer with no client-side time limit (the
/// server expires the question at its timeout), prints it to stdout and maps it with
/// [`outcome`]. Failures print one `error: …` line on stderr and return [`AskError::exit_code`]
/// (74 when the answer cannot be written to stdout).
/// It builds its own single-threaded tokio runtime, so it must be called from synchronous
/// code, never from inside a runtime.
pub fn run(args: &AskArgs) -> u8 {
    run_in(args, |name| std::env::var(name).ok(), &mut io::stdout())
}

/// [`run`] with the environment and stdout given.
fn run_in(args: &AskArgs, env: impl Fn(&str) -> Option<String>, out: &mut impl Write) -> u8 {
    let (lines, code) = match ask(args, env) {
        Ok(answer) => {
            // Exit 2 prints nothing on stdout; say why on stderr, for the person at the shell.
            match answer {
                DialogAnswer::Expired => {
                    eprintln!("no answer: the question expired before the human answered")
                }
                DialogAnswer::Withdrawn => eprintln!(
                    "no answer: the question was withdrawn (the surface closed, or the \
                     integration was removed)"
                ),
                _ => {}
            }
            outcome(&answer)
        }
        Err(error) => {
            eprintln!("error: {}", crate::logging::one_line(&error));
            return error.exit_code();
        }
    };
    let printed = lines
        .iter()
        .try_for_each(|line| writeln!(out, "{line}"))
        .and_then(|()| out.flush());
    match printed {
        Ok(()) => code,
        Err(error) => {
            eprintln!("error: cannot print the answer: {error}");
            74
        }
    }
}

/// Checks the arguments and the environment, then asks and waits for the answer.
fn ask(args: &AskArgs, env: impl Fn(&str) -> Option<String>) -> Result<DialogAnswer, AskError> {
    let slug = args.slug.as_str();
    if slug.is_empty()
        || !slug
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(AskError::Usage(format!(
            "\"{slug}\" is not an integration slug (letters, digits, '-', '_' or '.')"
        )));
    }
    let body = request_body(args)?;
    let token = token_for(slug, &env).ok_or_else(|| {
        AskError::Usage(format!(
            "no token for \"{slug}\": set {} or CHATSURFACE_TOKEN",
            token_var(slug)
        ))
    })?;
    let socket = socket_path(&env);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| AskError::Unavailable(format!("cannot start the I/O runtime: {error}")))?;
    runtime.block_on(post_dialog(&socket, slug, &token, body.to_string()))
}

/// Posts the dialog over the socket and reads the answer it is held open for.
async fn post_dialog(
    socket: &Path,
    slug: &str,
    token: &str,
    body: String,
) -> Result<DialogAnswer, AskError> {
    let path = format!("/v1/integrations/{slug}/dialogs");
    let (status, bytes) = exchange(socket, Method::POST, &path, token, Some(body))
        .await
        .map_err(|error| match error {
            ExchangeError::Request(error) => {
                AskError::Usage(format!("cannot build the request: {error}"))
            }
            ExchangeError::Connect(error) => connect_error(socket, &error),
            ExchangeError::Closed(error) => {
                AskError::Closed(format!("the surface closed the connection: {error}"))
            }
            ExchangeError::Untrusted(place) => AskError::NoPermission(place.to_string()),
        })?;
    answer_of_response(slug, status, &bytes)
}

/// Why connecting to the socket failed, in words a user can act on.
fn connect_error(socket: &Path, error: &io::Error) -> AskError {
    let socket = socket.display();
    match error.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused => {
            AskError::Unavailable(format!(
                "no chatsurface is listening at {socket} (start `chatsurface serve`, \
                 or set CHATSURFACE_SOCKET)"
            ))
        }
        io::ErrorKind::PermissionDenied => {
            AskError::NoPermission(format!("cannot connect to {socket}: {error}"))
        }
        _ => AskError::Unavailable(format!("cannot connect to {socket}: {error}")),
    }
}

/// The answer, or the error, a server's response carries.
fn answer_of_response(
    slug: &str,
    status: StatusCode,
    body: &[u8],
) -> Result<DialogAnswer, AskError> {
    let json: Option<Value> = serde_json::from_slice(body).ok();
    if status == StatusCode::OK {
        return json
            .as_ref()
            .and_then(DialogAnswer::from_json)
            .ok_or_else(|| {
                AskError::Protocol(format!(
                    "the surface answered something this client cannot read: {}",
                    String::from_utf8_lossy(body)
                ))
            });
    }
    let field = |name: &str| {
        json.as_ref()
            .and_then(|json| json.get(name))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let message = field("message")
        .or_else(|| field("error"))
        .unwrap_or_else(|| status.canonical_reason().unwrap_or("no reason").to_owned());
    match status {
        StatusCode::BAD_REQUEST
        | StatusCode::PAYLOAD_TOO_LARGE
        | StatusCode::UNPROCESSABLE_ENTITY => Err(AskError::BadInput(match field("field") {
            Some(field) if !message.contains(&field) => format!("{field}: {message}"),
            _ => message,
        })),
        StatusCode::UNAUTHORIZED => Err(AskError::NoPermission(format!(
            "the token for \"{slug}\" was refused: {message}"
        ))),
        StatusCode::FORBIDDEN => Err(AskError::NoPermission(message)),
        StatusCode::CONFLICT => Err(AskError::Unavailable(format!(
            "\"{slug}\" already has a question waiting for an answer: {message}"
        ))),
        _ => Err(AskError::Unavailable(format!(
            "the surface answered {status}: {message}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use http_body_util::{BodyExt, Full};
    use hyper::body::Bytes;
    use hyper::server::conn::http1;
    use hyper::service::service_fn;
    use hyper::Response;
    use hyper::{header, Request};
    use hyper_util::rt::TokioIo;
    use std::convert::Infallible;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::thread;

    #[derive(Debug, Parser)]
    struct TestCli {
        #[command(flatten)]
        args: AskArgs,
    }

    fn args(words: &[&str]) -> AskArgs {
        TestCli::try_parse_from(std::iter::once("ask").chain(words.iter().copied()))
            .unwrap()
            .args
    }

    fn body(words: &[&str]) -> Value {
        request_body(&args(words)).unwrap()
    }

    fn usage(words: &[&str]) -> String {
        match request_body(&args(words)) {
            Err(AskError::Usage(message)) => message,
            other => panic!("expected a usage error: {other:?}"),
        }
    }

    fn env_of<'a>(vars: &'a [(&str, &str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        }
    }

    #[test]
    fn options_become_strings_or_id_label_objects() {
        assert_eq!(
            body(&[
                "deploy",
                "Куда катить?",
                "-o",
                "prod:Прод",
                "--option",
                "stage",
                "-o",
                "x:a:b",
                "--custom"
            ]),
            json!({
                "message": "Куда катить?",
                "options": [{"id": "prod", "label": "Прод"}, "stage", {"id": "x", "label": "a:b"}],
                "custom": true
            })
        );
        assert_eq!(
            body(&["deploy", "Which?", "-o", "a", "-o", "b", "--multi", "--title", "Pick"]),
            json!({"message": "Which?", "title": "Pick", "options": ["a", "b"], "multiple": true})
        );
        assert_eq!(
            body(&["deploy", "Why?", "--custom"]),
            json!({"message": "Why?", "custom": true})
        );
    }

    #[test]
    fn without_options_it_is_a_confirmation() {
        assert_eq!(
            body(&[
                "deploy",
                "Удалить ветку?",
                "--accept",
                "Удалить",
                "--decline",
                "Оставить",
                "--comment"
            ]),
            json!({
                "message": "Удалить ветку?",
                "accept": "Удалить",
                "decline": "Оставить",
                "comment": true
            })
        );
        assert_eq!(body(&["deploy", "Go?"]), json!({"message": "Go?"}));
    }

    #[test]
    fn timeouts_in_whole_seconds_are_numbers() {
        assert_eq!(body(&["d", "Go?", "--timeout", "90"])["timeout"], json!(90));
        assert_eq!(
            body(&["d", "Go?", "--timeout", "10m"])["timeout"],
            json!("10m")
        );
        assert_eq!(
            body(&["d", "Go?", "--timeout", "7.5"])["timeout"],
            json!("7.5")
        );
    }

    #[test]
    fn attachments_are_sent_as_absolute_paths() {
        assert_eq!(
            body(&["d", "Go?", "--attach", "/etc/hosts"])["attachment"],
            json!("/etc/hosts")
        );
        // Tests run in the crate's folder, where Cargo.toml is.
        let relative = body(&["d", "Go?", "--attach", "Cargo.toml"]);
        let sent = relative["attachment"].as_str().unwrap();
        assert!(Path::new(sent).is_absolute(), "{sent}");
        assert!(sent.ends_with("/Cargo.toml"), "{sent}");
        let missing = request_body(&args(&["d", "Go?", "--attach", "no-such-plan.md"]));
        assert!(
            matches!(&missing, Err(AskError::Usage(message)) if message.contains("no such file")),
            "{missing:?}"
        );
    }

    #[test]
    fn malformed_options_are_usage_errors() {
        for spec in ["", " ", ":label", "id:", "id: "] {
            let message = usage(&["d", "Which?", "-o", spec]);
            assert!(message.contains("id:label"), "{message}");
        }
    }

    #[test]
    fn choice_and_confirmation_flags_do_not_mix() {
        assert!(usage(&["d", "Go?", "-o", "a", "--accept", "Yes"]).starts_with("--accept"));
        assert!(usage(&["d", "Go?", "--custom", "--decline", "No"]).starts_with("--decline"));
        assert!(usage(&["d", "Go?", "-o", "a", "--comment"]).starts_with("--comment"));
        assert!(usage(&["d", "Go?", "-o", "a", "--multi"]).contains("--multi"));
        assert!(usage(&["d", "Go?", "--multi"]).contains("--multi"));
        assert_eq!(AskError::Usage(String::new()).exit_code(), 64);
    }

    #[test]
    fn the_integrations_own_token_comes_first() {
        let both = [
            ("CHATSURFACE_TOKEN_DEPLOY_BOT", "own"),
            ("CHATSURFACE_TOKEN", "shared"),
        ];
        assert_eq!(
            token_for("deploy-bot", env_of(&both)).as_deref(),
            Some("own")
        );
        assert_eq!(
            token_for("Deploy-Bot", env_of(&both)).as_deref(),
            Some("own")
        );
        assert_eq!(token_for("other", env_of(&both)).as_deref(), Some("shared"));
        let empty_own = [
            ("CHATSURFACE_TOKEN_DEPLOY", ""),
            ("CHATSURFACE_TOKEN", "shared"),
        ];
        assert_eq!(
            token_for("deploy", env_of(&empty_own)).as_deref(),
            Some("shared")
        );
        assert_eq!(token_for("deploy", env_of(&[])), None);
        assert_eq!(token_var("ci.nightly"), "CHATSURFACE_TOKEN_CI_NIGHTLY");
    }

    #[test]
    fn the_socket_comes_from_the_environment_or_the_runtime_dir() {
        assert_eq!(
            socket_path(env_of(&[
                ("CHATSURFACE_SOCKET", "/run/x.sock"),
                ("XDG_RUNTIME_DIR", "/run/user/7")
            ])),
            PathBuf::from("/run/x.sock")
        );
        assert_eq!(
            socket_path(env_of(&[
                ("CHATSURFACE_SOCKET", ""),
                ("XDG_RUNTIME_DIR", "/run/user/7")
            ])),
            PathBuf::from("/run/user/7/chatsurface/api.sock")
        );
        assert_eq!(
            socket_path(env_of(&[
                ("XDG_RUNTIME_DIR", ""),
                ("CHATSURFACE_DATA_DIR", "/home/op/.local/share/chatsurface")
            ])),
            PathBuf::from("/home/op/.local/share/chatsurface/run/api.sock")
        );
    }

    #[test]
    fn outcomes_print_ids_text_or_comment_with_their_codes() {
        assert_eq!(
            outcome(&DialogAnswer::Chose(vec!["prod".into(), "stage".into()])),
            (vec!["prod".to_owned(), "stage".to_owned()], 0)
        );
        assert_eq!(
            outcome(&DialogAnswer::Custom("завтра".into())),
            (vec!["завтра".to_owned()], 0)
        );
        assert_eq!(
            outcome(&DialogAnswer::ChoseAndWrote {
                options: vec!["prod".into(), "stage".into()],
                text: "and the canary".into()
            }),
            (
                vec![
                    "prod".to_owned(),
                    "stage".to_owned(),
                    "and the canary".to_owned()
                ],
                0
            )
        );
        assert_eq!(outcome(&DialogAnswer::Accepted), (Vec::new(), 0));
        assert_eq!(
            outcome(&DialogAnswer::Declined(Some("later".into()))),
            (vec!["later".to_owned()], 1)
        );
        assert_eq!(outcome(&DialogAnswer::Declined(None)), (Vec::new(), 1));
        assert_eq!(outcome(&DialogAnswer::Expired), (Vec::new(), 2));
        assert_eq!(outcome(&DialogAnswer::Withdrawn), (Vec::new(), 2));
    }

    #[test]
    fn server_statuses_map_to_sysexits() {
        let code = |status: u16, body: &str| {
            answer_of_response(
                "deploy",
                StatusCode::from_u16(status).unwrap(),
                body.as_bytes(),
            )
            .unwrap_err()
            .exit_code()
        };
        assert_eq!(
            answer_of_response("deploy", StatusCode::OK, br#"{"answer":"accepted"}"#),
            Ok(DialogAnswer::Accepted)
        );
        assert_eq!(code(200, "{\"answer\":\"perhaps\"}"), 76);
        assert_eq!(code(200, "not json"), 76);
        assert_eq!(
            code(400, r#"{"error":"invalid","message":"options: too many"}"#),
            65
        );
        assert_eq!(code(413, ""), 65);
        assert_eq!(
            code(401, r#"{"error":"unauthorized","message":"bad token"}"#),
            77
        );
        assert_eq!(
            code(403, r#"{"error":"forbidden","message":"dialogs are off"}"#),
            77
        );
        assert_eq!(
            code(409, r#"{"error":"dialog_pending","message":"wait"}"#),
            69
        );
        assert_eq!(code(500, ""), 69);
        assert_eq!(code(404, ""), 69);
    }

    #[test]
    fn a_rejected_question_says_what_the_server_said() {
        let error = answer_of_response(
            "deploy",
            StatusCode::BAD_REQUEST,
            br#"{"error":"invalid","message":"must be at most 600 characters","field":"message"}"#,
        )
        .unwrap_err();
        assert_eq!(
            error,
            AskError::BadInput("message: must be at most 600 characters".into())
        );
        let error = answer_of_response("deploy", StatusCode::CONFLICT, b"").unwrap_err();
        assert!(error.to_string().contains("Conflict"), "{error}");
    }

    /// What the test server saw of the one request it served.
    #[derive(Debug)]
    struct Seen {
        method: String,
        path: String,
        host: String,
        authorization: String,
        body: Value,
    }

    enum Reply {
        Answer(u16, &'static str),
        HangUp,
    }

    /// A socket path in a private directory of its own, as the server would make it.
    fn fresh_socket() -> PathBuf {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "chatsurface-ask-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        crate::private_dir::ensure_dir(&dir).unwrap();
        dir.join("api.sock")
    }

    /// A one-request HTTP/1 server on a fresh unix socket, in its own thread and runtime.
    fn serve_once(reply: Reply) -> (PathBuf, mpsc::Receiver<Seen>, thread::JoinHandle<()>) {
        let path = fresh_socket();
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        listener.set_nonblocking(true).unwrap();
        let (seen_tx, seen_rx) = mpsc::channel();
        let server_path = path.clone();
        let server = thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::UnixListener::from_std(listener).unwrap();
                let (stream, _) = listener.accept().await.unwrap();
                match reply {
                    Reply::HangUp => drop(stream),
                    Reply::Answer(status, answer) => {
                        let service = service_fn(move |request: Request<hyper::body::Incoming>| {
                            let seen_tx = seen_tx.clone();
                            async move {
                                let header_value = |name| {
                                    request
                                        .headers()
                                        .get(name)
                                        .map(|value| value.to_str().unwrap().to_owned())
                                        .unwrap_or_default()
                                };
                                let seen = Seen {
                                    method: request.method().to_string(),
                                    path: request.uri().path().to_owned(),
                                    host: header_value(header::HOST),
                                    authorization: header_value(header::AUTHORIZATION),
                                    body: Value::Null,
                                };
                                let bytes = request.into_body().collect().await.unwrap().to_bytes();
                                seen_tx
                                    .send(Seen {
                                        body: serde_json::from_slice(&bytes).unwrap(),
                                        ..seen
                                    })
                                    .unwrap();
                                Ok::<_, Infallible>(
                                    Response::builder()
                                        .status(status)
                                        .body(Full::new(Bytes::from(answer)))
                                        .unwrap(),
                                )
                            }
                        });
                        http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service)
                            .await
                            .unwrap();
                    }
                }
            });
            let _ = std::fs::remove_file(server_path);
        });
        (path, seen_rx, server)
    }

    fn run_against(socket: &Path, words: &[&str]) -> (u8, String) {
        let socket = socket.to_str().unwrap();
        let vars = [
            ("CHATSURFACE_SOCKET", socket),
            ("CHATSURFACE_TOKEN_DEPLOY", "secret-token"),
        ];
        let mut out = Vec::new();
        let code = run_in(&args(words), env_of(&vars), &mut out);
        (code, String::from_utf8(out).unwrap())
    }

    #[test]
    fn run_posts_the_dialog_and_prints_the_chosen_ids() {
        let (socket, seen, server) = serve_once(Reply::Answer(
            200,
            r#"{"answer":"chose","options":["prod"]}"#,
        ));
        let (code, printed) = run_against(
            &socket,
            &[
                "deploy",
                "Куда катить?",
                "-o",
                "prod:Прод",
                "-o",
                "stage:Стейджинг",
            ],
        );
        assert_eq!((code, printed.as_str()), (0, "prod\n"));
        let seen = seen.recv().unwrap();
        assert_eq!(seen.method, "POST");
        assert_eq!(seen.path, "/v1/integrations/deploy/dialogs");
        assert_eq!(seen.host, "chatsurface");
        assert_eq!(seen.authorization, "Bearer secret-token");
        assert_eq!(
            seen.body,
            json!({
                "message": "Куда катить?",
                "options": [{"id": "prod", "label": "Прод"}, {"id": "stage", "label": "Стейджинг"}]
            })
        );
        server.join().unwrap();
    }

    #[test]
    fn run_prints_a_decline_comment_and_exits_one() {
        let (socket, _seen, server) = serve_once(Reply::Answer(
            200,
            r#"{"answer":"declined","comment":"not today"}"#,
        ));
        let (code, printed) = run_against(&socket, &["deploy", "Go?", "--comment"]);
        assert_eq!((code, printed.as_str()), (1, "not today\n"));
        server.join().unwrap();
    }

    #[test]
    fn run_exits_69_when_a_dialog_is_pending() {
        let (socket, _seen, server) = serve_once(Reply::Answer(
            409,
            r#"{"error":"dialog_pending","message":"one dialog at a time"}"#,
        ));
        assert_eq!(
            run_against(&socket, &["deploy", "Go?"]),
            (69, String::new())
        );
        server.join().unwrap();
    }

    #[test]
    fn run_exits_77_when_the_token_is_refused() {
        let (socket, _seen, server) = serve_once(Reply::Answer(
            401,
            r#"{"error":"unauthorized","message":"bad token"}"#,
        ));
        assert_eq!(run_against(&socket, &["deploy", "Go?"]).0, 77);
        server.join().unwrap();
    }

    #[test]
    fn run_exits_2_when_the_surface_hangs_up_before_answering() {
        let (socket, _seen, server) = serve_once(Reply::HangUp);
        assert_eq!(run_against(&socket, &["deploy", "Go?"]), (2, String::new()));
        server.join().unwrap();
    }

    /// Stdout closed under the command, as with `chatsurface ask … | true`.
    struct ClosedPipe;

    impl Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn run_exits_74_when_the_answer_cannot_be_printed() {
        let (socket, _seen, server) = serve_once(Reply::Answer(
            200,
            r#"{"answer":"chose","options":["prod"]}"#,
        ));
        let vars = [
            ("CHATSURFACE_SOCKET", socket.to_str().unwrap()),
            ("CHATSURFACE_TOKEN", "secret-token"),
        ];
        let code = run_in(
            &args(&["deploy", "Where?", "-o", "prod"]),
            env_of(&vars),
            &mut ClosedPipe,
        );
        assert_eq!(code, 74);
        server.join().unwrap();
    }

    #[test]
    fn run_exits_69_without_a_socket() {
        let socket = fresh_socket();
        assert_eq!(
            run_against(&socket, &["deploy", "Go?"]),
            (69, String::new())
        );
    }

    #[test]
    fn run_exits_64_without_a_token_or_with_a_bad_slug() {
        let mut out = Vec::new();
        let vars = [("CHATSURFACE_SOCKET", "/nonexistent.sock")];
        assert_eq!(
            run_in(&args(&["deploy", "Go?"]), env_of(&vars), &mut out),
            64
        );
        let vars = [
            ("CHATSURFACE_TOKEN", "t"),
            ("CHATSURFACE_SOCKET", "/nonexistent.sock"),
        ];
        assert_eq!(
            run_in(&args(&["de/ploy", "Go?"]), env_of(&vars), &mut out),
            64
        );
        assert!(out.is_empty());
        let error = ask(&args(&["deploy", "Go?"]), env_of(&[])).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("CHATSURFACE_TOKEN_DEPLOY or CHATSURFACE_TOKEN"),
            "{error}"
        );
    }
}
