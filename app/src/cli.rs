//! Command-line definitions (clap) and how usage errors are reported.

use chatsurface_compositor::{Density, Theme};
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// A GPU chat surface for people who work beside AI agents.
#[derive(Debug, Parser)]
#[command(name = "chatsurface", version, about)]
pub struct Cli {
    /// What to do (nothing: open the window on the most recent session).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open a session log in a window, follow it live and answer its questions.
    Open(OpenArgs),
    /// Render a session log to a PNG: the frame the window shows.
    Render(RenderArgs),
    /// Print a session log's folded snapshot as JSON, or its threads as a tree.
    Snapshot {
        /// The session's event log (JSONL), or an agent's transcript.
        log: PathBuf,
        /// The file's format (default: detected from its content).
        #[arg(long, value_enum)]
        format: Option<crate::agents::Format>,
        /// The threads as an indented tree (status, counts, open questions, decisions)
        /// instead of JSON.
        #[arg(long)]
        tree: bool,
    },
    /// Draw a session's branch map (every thread, its branches, open questions and decisions)
    /// as a PNG or an SVG picture, for a review.
    Map(MapArgs),
    /// Search every session on this machine (the store's and the agents' own) for words,
    /// through a full-text index kept in the data directory and brought up to date first.
    Search(SearchArgs),
    /// List every session on this machine: the store's and the agents' own (Claude Code's),
    /// newest first.
    Sessions {
        /// One JSON array instead of lines.
        #[arg(long)]
        json: bool,
    },
    /// Write a large synthetic session log, for benchmarks.
    Gen(GenArgs),
    /// Measure fold time, first-frame and scrolled-frame times and peak memory on a log.
    Bench(BenchArgs),
    /// Run the local API (unix socket; loopback TCP with --listen) without a window.
    Serve {
        /// Also listen on this loopback address, for example 127.0.0.1:7878.
        #[arg(long)]
        listen: Option<std::net::SocketAddr>,
    },
    /// Manage integrations: the agents and scripts allowed to use the API.
    Integration {
        /// What to do.
        #[command(subcommand)]
        action: IntegrationAction,
    },
    /// Ask the human a question through the running surface and wait for the answer.
    ///
    /// Exit codes: 0 answered (chosen ids or the text on stdout), 1 declined, 2 expired,
    /// withdrawn or the surface closed; 64 bad usage, 65 rejected input, 69 no surface or a
    /// question already waiting, 74 stdout closed, 76 an answer that cannot be read, 77 bad
    /// token.
    Ask(crate::client::ask::AskArgs),
    /// Serve the MCP tools on stdio (for Claude Code, Codex or any MCP client), talking to the
    /// running surface.
    ///
    /// The token comes from CHATSURFACE_TOKEN (an integration token); the operator token, for
    /// answering as the human, from CHATSURFACE_OPERATOR_TOKEN.
    Mcp {
        /// The session the tools write to (default: $CHATSURFACE_SESSION, else "mcp").
        #[arg(long, value_name = "SID")]
        session: Option<String>,
    },
    /// The hook an agent runs to ask its own questions on the surface (installed by
    /// `chatsurface install`; reads one hook event on stdin, prints the decision).
    ///
    /// With no surface running, or no answer before --give-up-after, it prints nothing and
    /// exits 0: the agent's own prompt in its terminal decides.
    Hook {
        /// The agent whose hook event is on stdin.
        #[arg(value_enum)]
        agent: BridgedAgent,
        /// Give up waiting after this many seconds (a little under the limit the agent gives
        /// the hook).
        #[arg(long, value_name = "SECS", default_value_t = 3595)]
        give_up_after: u64,
    },
    /// Put the surface's hook into an agent's settings, so that its questions and permission
    /// prompts appear on the surface (keeps everything else in the file, backs it up first).
    Install(InstallArgs),
    /// Run Codex through its app-server, with the commands it runs, the files it changes and
    /// the questions it asks put to you on the surface (in the session `codex-<thread id>`).
    ///
    /// The prompt is the first turn; each line of stdin is one more. What Codex says and runs
    /// is printed. With no surface running, what Codex asks is declined, never allowed.
    Codex(CodexArgs),
}

/// Arguments of `chatsurface codex`.
#[derive(Debug, clap::Args)]
pub struct CodexArgs {
    /// The first prompt (without one, the first line of stdin).
    pub prompt: Option<String>,
    /// The folder Codex works in (default: the current folder).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Codex's binary (from npm's @openai/codex).
    #[arg(long, value_name = "PATH", default_value = "codex")]
    pub codex_bin: PathBuf,
    /// Attach to the app-server already listening on this unix socket (started with
    /// `codex app-server --listen unix://SOCKET`) instead of starting one.
    #[arg(long, value_name = "SOCKET", conflicts_with = "codex_bin")]
    pub attach: Option<PathBuf>,
    /// When Codex asks before running a command.
    #[arg(long, value_enum, default_value_t = ApprovalPolicy::OnRequest)]
    pub ask_for_approval: ApprovalPolicy,
    /// What Codex's commands may touch.
    #[arg(long, value_enum, default_value_t = Sandbox::WorkspaceWrite)]
    pub sandbox: Sandbox,
    /// Plan mode: Codex plans, and may ask you questions, before it changes anything.
    #[arg(long)]
    pub plan: bool,
}

/// When Codex asks before running a command (its `approvalPolicy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ApprovalPolicy {
    /// Before any command not known to be safe.
    Untrusted,
    /// When the model asks to (to leave the sandbox, say).
    OnRequest,
    /// Never: a command that fails in the sandbox fails.
    Never,
}

impl ApprovalPolicy {
    /// Its name in Codex's protocol.
    pub fn name(self) -> &'static str {
        match self {
            ApprovalPolicy::Untrusted => "untrusted",
            ApprovalPolicy::OnRequest => "on-request",
            ApprovalPolicy::Never => "never",
        }
    }
}

/// What Codex's commands may touch (its `sandbox`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Sandbox {
    /// Read anything, write nothing.
    ReadOnly,
    /// Write in the working folder.
    WorkspaceWrite,
    /// Anything: no sandbox.
    DangerFullAccess,
}

impl Sandbox {
    /// Its name in Codex's protocol.
    pub fn name(self) -> &'static str {
        match self {
            Sandbox::ReadOnly => "read-only",
            Sandbox::WorkspaceWrite => "workspace-write",
            Sandbox::DangerFullAccess => "danger-full-access",
        }
    }
}

/// The agents a bridge answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BridgedAgent {
    /// Claude Code, through its `PermissionRequest` hook.
    ClaudeCode,
}

/// Arguments of `chatsurface install`.
#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    /// The agent to install the hook for.
    #[arg(value_enum)]
    pub agent: BridgedAgent,
    /// Install into this project's `.claude/settings.json` instead of the user's settings.
    #[arg(long, value_name = "DIR", conflicts_with = "user")]
    pub project: Option<PathBuf>,
    /// Install into the user's settings (`$CLAUDE_CONFIG_DIR/settings.json`, else
    /// `~/.claude/settings.json`): the default.
    #[arg(long)]
    pub user: bool,
    /// Take the hook out again (the token stays until `integration remove claude-code`).
    #[arg(long)]
    pub uninstall: bool,
    /// Say what would change, and change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// `chatsurface integration …`.
#[derive(Debug, Subcommand)]
pub enum IntegrationAction {
    /// Add an integration and print its new bearer token (the only line on stdout).
    Add {
        /// Its slug: 1–64 of a–z 0–9 - _.
        slug: String,
        /// Allow it to open dialogs (questions to the human).
        #[arg(long)]
        dialogs: bool,
        /// Let it read and write this session too, besides those it creates (repeatable).
        #[arg(long = "session", value_name = "SID")]
        sessions: Vec<String>,
    },
    /// List integrations (never their tokens).
    List,
    /// Remove an integration; its token stops working at once.
    Remove {
        /// Its slug.
        slug: String,
    },
}

/// Theme names on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ThemeArg {
    /// Light text on dark.
    Dark,
    /// Dark text on light.
    Light,
    /// High contrast, large type, for an MFD panel.
    Cockpit,
}

impl From<ThemeArg> for Theme {
    fn from(value: ThemeArg) -> Theme {
        match value {
            ThemeArg::Dark => Theme::Dark,
            ThemeArg::Light => Theme::Light,
            ThemeArg::Cockpit => Theme::Cockpit,
        }
    }
}

/// Density names on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum DensityArg {
    /// More on screen.
    Compact,
    /// The default spacing.
    Comfortable,
}

impl From<DensityArg> for Density {
    fn from(value: DensityArg) -> Density {
        match value {
            DensityArg::Compact => Density::Compact,
            DensityArg::Comfortable => Density::Comfortable,
        }
    }
}

/// Arguments of `chatsurface render`.
#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// The session's event log (JSONL), or an agent's transcript.
    pub log: PathBuf,
    /// The file's format (default: detected from its content).
    #[arg(long, value_enum)]
    pub format: Option<crate::agents::Format>,
    /// Where to write the PNG (a name ending in .png, or without an extension).
    #[arg(long, short, value_parser = parse_png_path)]
    pub out: PathBuf,
    /// Frame width in logical pixels.
    #[arg(long, default_value_t = 1920)]
    pub width: u32,
    /// Frame height in logical pixels.
    #[arg(long, default_value_t = 1080)]
    pub height: u32,
    /// Device pixels per logical pixel (the PNG is width·scale × height·scale).
    #[arg(long, default_value_t = 1.0)]
    pub scale: f32,
    /// The look and the fonts.
    #[command(flatten)]
    pub look: PictureLook,
    /// Drill into one thread (its id).
    #[arg(long)]
    pub focus: Option<String>,
    /// Scroll up from the newest content by this many logical pixels.
    #[arg(long, default_value_t = 0)]
    pub scroll_up: u32,
}

/// Arguments of `chatsurface search`.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// The words to find (all of them, any order, case ignored; "quoted words" a phrase).
    #[arg(required = true)]
    pub query: Vec<String>,
    /// Only sessions of this agent: chatsurface, claude-code, codex or gemini.
    #[arg(long)]
    pub agent: Option<String>,
    /// Only sessions written since: a date (2026-12-01) or a time ago (3h, 2days).
    #[arg(long, value_parser = parse_since)]
    pub since: Option<std::time::SystemTime>,
    /// At most this many results.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// One JSON array instead of lines.
    #[arg(long)]
    pub json: bool,
}

/// `--since`: a date, an RFC 3339 time, or a duration before now.
fn parse_since(text: &str) -> Result<std::time::SystemTime, String> {
    let text = text.trim();
    if let Ok(ago) = humantime::parse_duration(text) {
        return std::time::SystemTime::now()
            .checked_sub(ago)
            .ok_or_else(|| format!("\"{text}\" is too long ago"));
    }
    let time = if text.len() == 10 {
        format!("{text}T00:00:00Z")
    } else {
        text.to_owned()
    };
    humantime::parse_rfc3339_weak(&time).map_err(|_| {
        format!("\"{text}\" is neither a date (2026-12-01) nor a time ago (3h, 2days)")
    })
}

/// What `chatsurface map` writes, from its file name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PictureFormat {
    /// A PNG image.
    Png,
    /// An SVG document, its words as text.
    Svg,
}

/// Arguments of `chatsurface map`.
#[derive(Debug, clap::Args)]
pub struct MapArgs {
    /// The session's event log (JSONL), or an agent's transcript.
    pub log: PathBuf,
    /// The file's format (default: detected from its content).
    #[arg(long, value_enum)]
    pub format: Option<crate::agents::Format>,
    /// Where to write the picture: a name ending in .png or .svg.
    #[arg(long, short, value_parser = parse_picture_path)]
    pub out: (PathBuf, PictureFormat),
    /// Device pixels per map pixel in a PNG, 0.25 to 4 (lowered for a map too large to hold).
    #[arg(long, default_value_t = 1.0)]
    pub scale: f32,
    /// The look and the fonts.
    #[command(flatten)]
    pub look: PictureLook,
}

/// How `render` and `map` draw: the theme, the spacing and which fonts.
#[derive(Debug, clap::Args)]
pub struct PictureLook {
    /// The look.
    #[arg(long, value_enum, default_value = "dark")]
    pub theme: ThemeArg,
    /// The spacing.
    #[arg(long, value_enum, default_value = "comfortable")]
    pub density: DensityArg,
    /// Use only the embedded fonts (the same pixels on every machine).
    #[arg(long)]
    pub bundled_fonts_only: bool,
}

impl PictureLook {
    /// The fonts asked for.
    pub fn fonts(&self) -> chatsurface_compositor::FontSet {
        if self.bundled_fonts_only {
            chatsurface_compositor::FontSet::BundledOnly
        } else {
            chatsurface_compositor::FontSet::BundledWithSystemFallback
        }
    }
}

/// A path to write a map picture to, and the format its extension names.
fn parse_picture_path(text: &str) -> Result<(PathBuf, PictureFormat), String> {
    let path = PathBuf::from(text);
    let extension = path
        .extension()
        .map(|extension| extension.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        Some("png") => Ok((path, PictureFormat::Png)),
        Some("svg") => Ok((path, PictureFormat::Svg)),
        _ => Err(format!(
            "map writes PNG or SVG: name the file {} or {}",
            path.with_extension("png").display(),
            path.with_extension("svg").display()
        )),
    }
}

/// Arguments of `chatsurface open`.
#[derive(Debug, clap::Args, Default)]
pub struct OpenArgs {
    /// The session's event log or an agent's transcript (default: the most recent session in
    /// the store, or the demo).
    pub log: Option<PathBuf>,
    /// The file's format (default: detected from its content).
    #[arg(long, value_enum)]
    pub format: Option<crate::agents::Format>,
    /// The look (default dark; cockpit with --mfd).
    #[arg(long, value_enum)]
    pub theme: Option<ThemeArg>,
    /// The spacing (default comfortable; compact with --mfd).
    #[arg(long, value_enum)]
    pub density: Option<DensityArg>,
    /// A narrow, high-contrast panel for a second monitor (an MFD).
    #[arg(long)]
    pub mfd: bool,
    /// The window's size in logical pixels, WIDTHxHEIGHT (default 1280x800; 600x1000 with --mfd).
    #[arg(long, value_parser = parse_size)]
    pub size: Option<(u32, u32)>,
    /// Benchmark: scroll this many frames, then time 100 key presses in an answer field,
    /// write statistics to --stats and exit.
    #[arg(long, value_name = "FRAMES", requires = "stats")]
    pub bench_frames: Option<usize>,
    /// Where --bench-frames writes its statistics (JSON).
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
    /// No desktop notification when a question arrives in another session.
    #[arg(long)]
    pub no_notify: bool,
}

/// A path to write a PNG to: refused when its extension names another format, so that
/// `--out frame.jpg` does not silently write a PNG under a JPEG's name.
fn parse_png_path(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    match path.extension() {
        Some(extension) if !extension.eq_ignore_ascii_case("png") => Err(format!(
            "render writes PNG only: name the file {}",
            path.with_extension("png").display()
        )),
        _ => Ok(path),
    }
}

fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (width, height) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("\"{text}\" is not WIDTHxHEIGHT"))?;
    let side = |value: &str| {
        value
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|side| (240..=16384).contains(side))
            .ok_or_else(|| format!("\"{value}\" is not a side between 240 and 16384"))
    };
    Ok((side(width)?, side(height)?))
}

/// Arguments of `chatsurface gen`.
#[derive(Debug, clap::Args)]
pub struct GenArgs {
    /// Where to write the log (must not exist yet).
    #[arg(long, short)]
    pub out: PathBuf,
    /// Messages to generate.
    #[arg(long, default_value_t = 100_000)]
    pub messages: usize,
    /// Threads to generate.
    #[arg(long, default_value_t = 2_000)]
    pub threads: usize,
    /// Clarification batches to generate.
    #[arg(long, default_value_t = 500)]
    pub batches: usize,
    /// Seed for the pseudo-random choices, so the same flags give the same log.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A broad session instead, for trying the overview: --threads threads (a tenth of them
    /// topics, branches nested up to four deep), --batches open questions spread over them,
    /// --messages messages, most branches without a question resolved.
    #[arg(long)]
    pub breadth: bool,
}

/// Arguments of `chatsurface bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// The session's event log (for example one written by `chatsurface gen`), or an agent's
    /// transcript.
    pub log: PathBuf,
    /// Frame width in logical pixels.
    #[arg(long, default_value_t = 1920)]
    pub width: u32,
    /// Frame height in logical pixels.
    #[arg(long, default_value_t = 1080)]
    pub height: u32,
    /// Screens to scroll up through, one frame each.
    #[arg(long, default_value_t = 60)]
    pub frames: usize,
}

/// Prints a clap error as clap words it (help and version in full; a usage error with what
/// is missing or wrong, clap's "did you mean", the subcommand's usage and where its help is)
/// and picks the exit code: 0 for help and version, 64 for bad usage.
pub fn report_usage_error(error: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    let _ = error.print();
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => ExitCode::SUCCESS,
        _ => ExitCode::from(64),
    }
}
