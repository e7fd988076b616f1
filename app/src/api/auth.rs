//! Who may call the local API: integrations, their bearer tokens, and the operator token.
//!
//! This module owns two files in the data dir and the lock beside them.
//! `integrations.json` holds each integration's slug, its dialogs flag and the SHA-256 of its
//! token, never the token itself. `operator.token` holds the human side's token. Both are
//! written atomically (a temporary file in the same dir, fsync, rename) with mode 0600, and
//! every read-modify-write holds an exclusive advisory lock on `integrations.lock`, so two
//! processes adding at once lose nothing. Reads take no lock: a rename is atomic, so a reader
//! sees the old file or the new one.
//!
//! Checking a token must not cost a file read per request (the API takes thousands a
//! second), nor miss a change: each check looks at the two files' identity (`stat`: inode,
//! size, modification and change times) and reads them again only when it differs from what
//! the last read saw. Every write replaces a file by a rename, which gives it a new inode and
//! times, so a token added or removed by another process counts from the next request.
//!
//! A token is `cs_` followed by 64 lowercase hex digits, from 32 bytes of the system's
//! random source. The token is returned once and is never logged or written anywhere else.
//!
//! This module must not touch sessions, the event log or the server; it neither knows nor
//! decides what a caller may do, only who the caller is.

use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The file listing integrations, in the data dir.
pub const INTEGRATIONS_FILE: &str = "integrations.json";
/// The file holding the operator token, in the data dir.
pub const OPERATOR_TOKEN_FILE: &str = "operator.token";
/// The advisory lock held around every change to the token files, in the data dir.
pub const LOCK_FILE: &str = "integrations.lock";
/// What every token starts with.
pub const TOKEN_PREFIX: &str = "cs_";

/// The longest slug, in characters.
const MAX_SLUG_CHARS: usize = 64;
/// Random bytes behind each token.
const TOKEN_BYTES: usize = 32;
/// How much of a rejected slug an error message quotes, in characters.
const QUOTED_SLUG_CHARS: usize = 80;

/// An integration: an agent or script allowed to talk to the API under a slug.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Integration {
    /// The integration's name, as `validate_slug` allows.
    pub slug: String,
    /// Whether the integration may open dialogs.
    pub dialogs: bool,
    /// Sessions it may read and write besides those it created (`integration add SLUG
    /// --session ID`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sessions: Vec<String>,
}

/// Who is calling the API.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Caller {
    /// The human side, holding the operator token.
    Operator,
    /// An integration, holding its own token.
    Integration(Integration),
}

/// Why a token operation failed; each message is one line naming the slug or the file.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AuthError {
    /// A slug breaks the slug rule.
    #[error("integration slug {}: {rule}", quote(.slug))]
    BadSlug {
        /// The slug as given.
        slug: String,
        /// The part of the rule it breaks.
        rule: &'static str,
    },
    /// An integration with this slug already exists.
    #[error("integration slug {}: already exists; remove it first to issue a new token", quote(.0))]
    Exists(String),
    /// No integration has this slug.
    #[error("integration slug {}: no such integration", quote(.0))]
    Unknown(String),
    /// A token file exists but does not follow its format.
    #[error("{}: {message}; fix or remove the file by hand", .path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A file or directory cannot be read, written or locked.
    #[error("{}: {message}", .path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was attempted and the system's reason.
        message: String,
    },
    /// The system's random source failed.
    #[error("cannot get random bytes for a new token: {0}")]
    Random(String),
}

/// The tokens of one data dir.
///
/// Tokens live under the data dir: `integrations.json` (slugs, flags, SHA-256 of each token,
/// never the token) and `operator.token` (the human side's token, mode 0600). A store keeps
/// no state but the path, so any number of stores, in any number of processes, may share a
/// data dir. Clones share one cache of what the files held when last read.
#[derive(Clone, Debug)]
pub struct TokenStore {
    data_dir: PathBuf,
    read: Arc<Mutex<Option<ReadTokens>>>,
}

/// The token files as last read, with the identity each had then.
#[derive(Debug)]
struct ReadTokens {
    integrations: Option<FileStamp>,
    operator: Option<FileStamp>,
    known: Arc<KnownTokens>,
}

/// What the token files hold: the integrations, and the operator token's hash.
#[derive(Debug)]
struct KnownTokens {
    entries: Vec<Entry>,
    operator_sha256: Option<[u8; 32]>,
}

/// What tells one version of a file from another without reading it: a rename gives a new
/// inode, an edit in place a new size or times. `None` in a field's place means no file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileStamp {
    device: u64,
    inode: u64,
    len: u64,
    modified: (i64, i64),
    changed: (i64, i64),
}

impl FileStamp {
    /// The stamp of the file at `path`, or none when there is no file.
    fn of(path: &Path) -> Result<Option<FileStamp>, AuthError> {
        use std::os::unix::fs::MetadataExt;
        match fs::metadata(path) {
            Ok(meta) => Ok(Some(FileStamp {
                device: meta.dev(),
                inode: meta.ino(),
                len: meta.len(),
                modified: (meta.mtime(), meta.mtime_nsec()),
                changed: (meta.ctime(), meta.ctime_nsec()),
            })),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(io_error(path, "cannot read", &error)),
        }
    }
}

impl TokenStore {
    /// A store for the tokens under `data_dir`; touches no file until used.
    pub fn new(data_dir: &Path) -> TokenStore {
        TokenStore {
            data_dir: data_dir.to_path_buf(),
            read: Arc::new(Mutex::new(None)),
        }
    }

    /// Adds an integration, granted `sessions` besides those it will create; returns its new
    /// bearer token (shown once, stored only hashed). Session ids are the caller's to check.
    pub fn add_integration(
        &self,
        slug: &str,
        dialogs: bool,
        sessions: &[String],
    ) -> Result<String, AuthError> {
        validate_slug(slug)?;
        let _lock = self.lock()?;
        let mut entries = self.read_entries()?;
        if entries.iter().any(|entry| entry.integration.slug == slug) {
            return Err(AuthError::Exists(slug.to_string()));
        }
        let token = new_token()?;
        entries.push(Entry {
            integration: Integration {
                slug: slug.to_string(),
                dialogs,
                sessions: sessions.to_vec(),
            },
            token_sha256: sha256(&token),
        });
        self.write_entries(entries)?;
        Ok(token)
    }

    /// The integrations, sorted by slug.
    pub fn list(&self) -> Result<Vec<Integration>, AuthError> {
        Ok(self
            .read_entries()?
            .into_iter()
            .map(|entry| entry.integration)
            .collect())
    }

    /// Removes an integration; its token stops working at once.
    pub fn remove(&self, slug: &str) -> Result<(), AuthError> {
        let _lock = self.lock()?;
        let mut entries = self.read_entries()?;
        let count = entries.len();
        entries.retain(|entry| entry.integration.slug != slug);
        if entries.len() == count {
            return Err(AuthError::Unknown(slug.to_string()));
        }
        self.write_entries(entries)
    }

    /// The operator token, created (0600) on first call.
    pub fn operator_token(&self) -> Result<String, AuthError> {
        if let Some(token) = self.read_operator_token()? {
            return Ok(token);
        }
        let _lock = self.lock()?;
        if let Some(token) = self.read_operator_token()? {
            return Ok(token);
        }
        let token = new_token()?;
        write_atomically(
            &self.data_dir,
            OPERATOR_TOKEN_FILE,
            format!("{token}\n").as_bytes(),
        )?;
        Ok(token)
    }

    /// Who a bearer token belongs to, if anyone.
    ///
    /// Looks at the files on every call (reading them again only when they changed, see the
    /// module docs), so a token added while a server runs works at once, and a removed one
    /// stops at once. Hashes are compared in constant time.
    pub fn authenticate(&self, token: &str) -> Result<Option<Caller>, AuthError> {
        let known = self.current()?;
        let presented = sha256(token);
        let mut caller = None;
        for entry in &known.entries {
            if constant_time_eq(&presented, &entry.token_sha256) {
                caller = Some(Caller::Integration(entry.integration.clone()));
            }
        }
        if let Some(operator) = known.operator_sha256 {
            if constant_time_eq(&presented, &operator) {
                caller = Some(Caller::Operator);
            }
        }
        Ok(caller)
    }

    /// The integrations and the operator token's hash as the files hold them now: from the
    /// last read when neither file has changed since, else read again.
    fn current(&self) -> Result<Arc<KnownTokens>, AuthError> {
        let integrations = FileStamp::of(&self.integrations_path())?;
        let operator = FileStamp::of(&self.operator_path())?;
        let mut read = self.read.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(tokens) = read.as_ref() {
            if tokens.integrations == integrations && tokens.operator == operator {
                return Ok(tokens.known.clone());
            }
        }
        // Stamped before reading: a change made between the stamp and the read is seen now
        // and leaves a stamp that differs, so the next call reads again.
        let known = Arc::new(KnownTokens {
            entries: self.read_entries()?,
            operator_sha256: self.read_operator_token()?.map(|token| sha256(&token)),
        });
        *read = Some(ReadTokens {
            integrations,
            operator,
            known: known.clone(),
        });
        Ok(known)
    }

    fn integrations_path(&self) -> PathBuf {
        self.data_dir.join(INTEGRATIONS_FILE)
    }

    fn operator_path(&self) -> PathBuf {
        self.data_dir.join(OPERATOR_TOKEN_FILE)
    }

    /// Creates the data dir (0700) if missing and takes the exclusive lock, held until the
    /// returned file is dropped.
    fn lock(&self) -> Result<File, AuthError> {
        crate::fsutil::create_private_dir(&self.data_dir)
            .map_err(|error| io_error(&self.data_dir, "cannot create the data dir", &error))?;
        let path = self.data_dir.join(LOCK_FILE);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(&path)
            .map_err(|error| io_error(&path, "cannot open the lock file", &error))?;
        file.lock()
            .map_err(|error| io_error(&path, "cannot lock", &error))?;
        Ok(file)
    }

    /// The integrations on disk, checked; none when the file does not exist.
    fn read_entries(&self) -> Result<Vec<Entry>, AuthError> {
        let path = self.integrations_path();
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(io_error(&path, "cannot read", &error)),
        };
        let file: IntegrationsFile =
            serde_json::from_slice(&bytes).map_err(|error| AuthError::Corrupt {
                path: path.clone(),
                message: format!("not a valid integrations file: {error}"),
            })?;
        let mut seen = BTreeSet::new();
        let mut entries = Vec::with_capacity(file.integrations.len());
        for stored in file.integrations {
            let corrupt = |message: String| AuthError::Corrupt {
                path: path.clone(),
                message,
            };
            validate_slug(&stored.slug).map_err(|error| corrupt(error.to_string()))?;
            if !seen.insert(stored.slug.clone()) {
                return Err(corrupt(format!(
                    "slug {} appears twice",
                    quote(&stored.slug)
                )));
            }
            let token_sha256 = from_hex(&stored.token_sha256).ok_or_else(|| {
                corrupt(format!(
                    "token_sha256 of {} must be 64 lowercase hex digits",
                    quote(&stored.slug)
                ))
            })?;
            entries.push(Entry {
                integration: Integration {
                    slug: stored.slug,
                    dialogs: stored.dialogs,
                    sessions: stored.sessions,
                },
                token_sha256,
            });
        }
        Ok(entries)
    }

    /// Writes the integrations, sorted by slug.
    fn write_entries(&self, mut entries: Vec<Entry>) -> Result<(), AuthError> {
        entries.sort_by(|a, b| a.integration.slug.cmp(&b.integration.slug));
        let integrations = entries
            .into_iter()
            .map(|entry| StoredIntegration {
                slug: entry.integration.slug,
                dialogs: entry.integration.dialogs,
                sessions: entry.integration.sessions,
                token_sha256: to_hex(&entry.token_sha256),
            })
            .collect();
        let mut json =
            serde_json::to_vec_pretty(&IntegrationsFile { integrations }).map_err(|error| {
                AuthError::Io {
                    path: self.integrations_path(),
                    message: format!("cannot encode the integrations: {error}"),
                }
            })?;
        json.push(b'\n');
        write_atomically(&self.data_dir, INTEGRATIONS_FILE, &json)
    }

    /// The operator token on disk; none when the file does not exist.
    fn read_operator_token(&self) -> Result<Option<String>, AuthError> {
        let path = self.operator_path();
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(io_error(&path, "cannot read", &error)),
        };
        let token = text.strip_suffix('\n').unwrap_or(&text);
        if !is_token(token) {
            return Err(AuthError::Corrupt {
                path,
                message: format!(
                    "must hold one token, {TOKEN_PREFIX} and 64 lowercase hex digits, on one line"
                ),
            });
        }
        Ok(Some(token.to_string()))
    }
}

/// The slug rule: 1–64 chars of a–z, 0–9, '-', '_', starting with a letter or digit.
pub fn validate_slug(slug: &str) -> Result<(), AuthError> {
    let rule = if slug.is_empty() {
        Some("must not be empty")
    } else if slug.chars().count() > MAX_SLUG_CHARS {
        Some("must be at most 64 characters")
    } else if !slug
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    {
        Some("may contain only a-z, 0-9, '-' and '_'")
    } else if !slug.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit()) {
        Some("must start with a letter or digit")
    } else {
        None
    };
    match rule {
        Some(rule) => Err(AuthError::BadSlug {
            slug: slug.to_string(),
            rule,
        }),
        None => Ok(()),
    }
}

/// The layout of `integrations.json`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct IntegrationsFile {
    integrations: Vec<StoredIntegration>,
}

/// One integration as stored: its token only as a SHA-256 in lowercase hex.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredIntegration {
    slug: String,
    dialogs: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    sessions: Vec<String>,
    token_sha256: String,
}

/// One integration in memory, with its token's hash decoded.
#[derive(Debug)]
struct Entry {
    integration: Integration,
    token_sha256: [u8; 32],
}

/// A new token: the prefix and 32 random bytes in lowercase hex.
fn new_token() -> Result<String, AuthError> {
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(|error| AuthError::Random(error.to_string()))?;
    Ok(format!("{TOKEN_PREFIX}{}", to_hex(&bytes)))
}

/// Whether `text` has the form of a token.
fn is_token(text: &str) -> bool {
    text.strip_prefix(TOKEN_PREFIX)
        .is_some_and(|hex| hex.len() == 2 * TOKEN_BYTES && from_hex(hex).is_some())
}

fn sha256(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

/// Whether two hashes are equal, looking at every byte whatever the first difference.
fn constant_time_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(2 * bytes.len());
    for byte in bytes {
        hex.push(char::from(DIGITS[usize::from(byte >> 4)]));
        hex.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    hex
}

/// 32 bytes from 64 lowercase hex digits; none for anything else.
fn from_hex(hex: &str) -> Option<[u8; 32]> {
    fn digit(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        }
    }
    let hex = hex.as_bytes();
    if hex.len() != 64 {
        return None;
    }
    let mut bytes = [0u8; 32];
    for (byte, pair) in bytes.iter_mut().zip(hex.chunks_exact(2)) {
        *byte = (digit(pair[0])? << 4) | digit(pair[1])?;
    }
    Some(bytes)
}

/// A slug quoted for a one-line message: escaped, and cut if very long.
fn quote(slug: &str) -> String {
    if slug.chars().count() > QUOTED_SLUG_CHARS {
        let cut: String = slug.chars().take(QUOTED_SLUG_CHARS).collect();
        format!("{cut:?}…")
    } else {
        format!("{slug:?}")
    }
}

fn io_error(path: &Path, action: &str, error: &io::Error) -> AuthError {
    AuthError::Io {
        path: path.to_path_buf(),
        message: format!("{action}: {error}"),
    }
}

/// Writes `bytes` to `dir/name` whole or not at all, mode 0600.
fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), AuthError> {
    crate::fsutil::write_atomically(&dir.join(name), bytes, 0o600).map_err(|error| {
        io_error(
            &error.path,
            &format!("cannot {}", error.step),
            &error.source,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A fresh, empty dir for one test, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(test: &str) -> TempDir {
            let path = std::env::temp_dir()
                .join(format!("chatsurface-auth-{}-{test}", std::process::id()));
            let _ = fs::remove_dir_all(&path);
            TempDir(path)
        }

        fn store(&self) -> TokenStore {
            TokenStore::new(&self.0)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn added_token_authenticates_with_its_dialogs_flag() {
        let dir = TempDir::new("added");
        let store = dir.store();
        let with = store.add_integration("ci-bot", true, &[]).unwrap();
        let without = store.add_integration("shell_1", false, &[]).unwrap();
        assert_eq!(
            store.authenticate(&with).unwrap(),
            Some(Caller::Integration(Integration {
                slug: "ci-bot".into(),
                dialogs: true,
                sessions: Vec::new(),
            }))
        );
        assert_eq!(
            store.authenticate(&without).unwrap(),
            Some(Caller::Integration(Integration {
                slug: "shell_1".into(),
                dialogs: false,
                sessions: Vec::new(),
            }))
        );
        assert_eq!(
            store.list().unwrap(),
            vec![
                Integration {
                    slug: "ci-bot".into(),
                    dialogs: true,
                    sessions: Vec::new(),
                },
                Integration {
                    slug: "shell_1".into(),
                    dialogs: false,
                    sessions: Vec::new(),
                },
            ]
        );
    }

    #[test]
    fn changes_made_by_another_store_count_from_the_next_check() {
        let dir = TempDir::new("another");
        let server = dir.store();
        let operator = server.operator_token().unwrap();
        assert_eq!(
            server.authenticate(&operator).unwrap(),
            Some(Caller::Operator)
        );
        // Another process (here a second store) adds an integration: usable at once.
        let token = dir.store().add_integration("late", true, &[]).unwrap();
        assert!(matches!(
            server.authenticate(&token).unwrap(),
            Some(Caller::Integration(_))
        ));
        // Removed elsewhere: refused at once, though the last read had it.
        dir.store().remove("late").unwrap();
        assert_eq!(server.authenticate(&token).unwrap(), None);
        // The operator file rewritten in place by hand (same inode): read again too.
        let replacement = dir.store().add_integration("other", false, &[]).unwrap();
        let other_operator = new_token().unwrap();
        fs::write(
            dir.0.join(OPERATOR_TOKEN_FILE),
            format!("{other_operator}\n"),
        )
        .unwrap();
        assert_eq!(server.authenticate(&operator).unwrap(), None);
        assert_eq!(
            server.authenticate(&other_operator).unwrap(),
            Some(Caller::Operator)
        );
        assert!(server.authenticate(&replacement).unwrap().is_some());
    }

    #[test]
    fn tokens_have_the_documented_form_and_differ() {
        let dir = TempDir::new("form");
        let store = dir.store();
        let a = store.add_integration("a", false, &[]).unwrap();
        let b = store.add_integration("b", false, &[]).unwrap();
        assert!(is_token(&a), "{a}");
        assert!(is_token(&b), "{b}");
        assert_eq!(a.len(), 67);
        assert_ne!(a, b);
    }

    #[test]
    fn stored_files_hold_hashes_not_tokens_with_private_modes() {
        let dir = TempDir::new("stored");
        let store = dir.store();
        let token = store.add_integration("agent", true, &[]).unwrap();
        let path = dir.0.join(INTEGRATIONS_FILE);
        let text = fs::read_to_string(&path).unwrap();
        assert!(!text.contains(&token));
        assert!(!text.contains(&token[TOKEN_PREFIX.len()..]));
        assert!(text.contains(&to_hex(&sha256(&token))));
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir.0), 0o700);
        let leftovers: Vec<_> = fs::read_dir(&dir.0)
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .filter(|name| name.to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn wrong_tokens_authenticate_as_no_one() {
        let dir = TempDir::new("wrong");
        let store = dir.store();
        assert_eq!(store.authenticate("cs_nothing").unwrap(), None);
        let token = store.add_integration("agent", true, &[]).unwrap();
        let operator = store.operator_token().unwrap();
        let mut altered = token.clone();
        altered.pop();
        altered.push(if token.ends_with('0') { '1' } else { '0' });
        for wrong in [
            "",
            altered.as_str(),
            &token[..token.len() - 1],
            &format!("{token}0"),
            &format!("{token}\n"),
            &token[TOKEN_PREFIX.len()..],
            &to_hex(&sha256(&token)),
            &operator.to_uppercase(),
        ] {
            assert_eq!(store.authenticate(wrong).unwrap(), None, "{wrong:?}");
        }
    }

    #[test]
    fn operator_token_is_created_once_with_mode_0600() {
        let dir = TempDir::new("operator");
        let store = dir.store();
        assert_eq!(store.authenticate("cs_x").unwrap(), None);
        let token = store.operator_token().unwrap();
        assert!(is_token(&token), "{token}");
        assert_eq!(token, store.operator_token().unwrap());
        assert_eq!(token, dir.store().operator_token().unwrap());
        assert_eq!(store.authenticate(&token).unwrap(), Some(Caller::Operator));
        let path = dir.0.join(OPERATOR_TOKEN_FILE);
        assert_eq!(mode(&path), 0o600);
        assert_eq!(fs::read_to_string(&path).unwrap(), format!("{token}\n"));
        assert_eq!(mode(&dir.0), 0o700);
    }

    #[test]
    fn duplicate_slug_is_rejected_and_keeps_the_first_token() {
        let dir = TempDir::new("duplicate");
        let store = dir.store();
        let first = store.add_integration("deploy", false, &[]).unwrap();
        let error = store.add_integration("deploy", true, &[]).unwrap_err();
        assert_eq!(error, AuthError::Exists("deploy".into()));
        assert!(error.to_string().contains("\"deploy\""), "{error}");
        assert_eq!(
            store.authenticate(&first).unwrap(),
            Some(Caller::Integration(Integration {
                slug: "deploy".into(),
                dialogs: false,
                sessions: Vec::new(),
            }))
        );
        assert_eq!(store.list().unwrap().len(), 1);
    }

    #[test]
    fn bad_slugs_are_rejected_naming_the_slug() {
        let dir = TempDir::new("bad-slugs");
        let store = dir.store();
        let long = "a".repeat(65);
        for slug in [
            "",
            long.as_str(),
            "Deploy",
            "-deploy",
            "_deploy",
            "de ploy",
            "de/ploy",
            "dé",
            "a\nb",
        ] {
            let error = store.add_integration(slug, false, &[]).unwrap_err();
            assert!(
                matches!(&error, AuthError::BadSlug { slug: s, .. } if s == slug),
                "{slug:?}: {error:?}"
            );
            let message = error.to_string();
            assert!(!message.contains('\n'), "{message}");
            let quoted: String = format!("{slug:?}").chars().take(20).collect();
            assert!(message.contains(&quoted), "{message}");
        }
        assert!(!dir.0.join(INTEGRATIONS_FILE).exists());
        for slug in ["a", "0", "a-b_c", &"z".repeat(64)] {
            assert_eq!(validate_slug(slug), Ok(()), "{slug}");
        }
    }

    #[test]
    fn removal_stops_the_token_and_unknown_slug_is_an_error() {
        let dir = TempDir::new("remove");
        let store = dir.store();
        let gone = store.add_integration("gone", true, &[]).unwrap();
        let kept = store.add_integration("kept", true, &[]).unwrap();
        store.remove("gone").unwrap();
        assert_eq!(store.authenticate(&gone).unwrap(), None);
        assert!(store.authenticate(&kept).unwrap().is_some());
        let error = store.remove("gone").unwrap_err();
        assert_eq!(error, AuthError::Unknown("gone".into()));
        assert!(error.to_string().contains("\"gone\""), "{error}");
        assert_eq!(
            store.list().unwrap(),
            vec![Integration {
                slug: "kept".into(),
                dialogs: true,
                sessions: Vec::new(),
            }]
        );
    }

    #[test]
    fn changes_by_another_store_apply_at_once() {
        let dir = TempDir::new("other-store");
        let server = dir.store();
        assert_eq!(server.list().unwrap(), Vec::new());
        let token = dir.store().add_integration("late", true, &[]).unwrap();
        assert!(server.authenticate(&token).unwrap().is_some());
        dir.store().remove("late").unwrap();
        assert_eq!(server.authenticate(&token).unwrap(), None);
    }

    #[test]
    fn concurrent_adds_lose_nothing() {
        let dir = TempDir::new("concurrent");
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let store = dir.store();
                std::thread::spawn(move || {
                    (0..6)
                        .map(|i| {
                            store
                                .add_integration(&format!("t{t}-{i}"), false, &[])
                                .unwrap()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let tokens: Vec<String> = threads
            .into_iter()
            .flat_map(|thread| thread.join().unwrap())
            .collect();
        let store = dir.store();
        assert_eq!(store.list().unwrap().len(), 48);
        for token in &tokens {
            assert!(store.authenticate(token).unwrap().is_some());
        }
    }

    #[test]
    fn corrupt_integrations_file_is_an_error_naming_it() {
        let dir = TempDir::new("corrupt");
        let store = dir.store();
        store.add_integration("agent", false, &[]).unwrap();
        let path = dir.0.join(INTEGRATIONS_FILE);
        let hash = to_hex(&sha256("cs_x"));
        for text in [
            "{\"integrations\": [".to_string(),
            "[]".to_string(),
            format!(
                r#"{{"integrations":[{{"slug":"Bad","dialogs":false,"token_sha256":"{hash}"}}]}}"#
            ),
            r#"{"integrations":[{"slug":"a","dialogs":false,"token_sha256":"xyz"}]}"#.to_string(),
            format!(
                r#"{{"integrations":[{{"slug":"a","dialogs":false,"token_sha256":"{hash}"}},{{"slug":"a","dialogs":true,"token_sha256":"{hash}"}}]}}"#
            ),
        ] {
            fs::write(&path, &text).unwrap();
            for error in [
                store.list().unwrap_err(),
                store.authenticate("cs_x").unwrap_err(),
                store.add_integration("other", false, &[]).unwrap_err(),
                store.remove("agent").unwrap_err(),
            ] {
                assert!(
                    matches!(error, AuthError::Corrupt { .. }),
                    "{text}: {error:?}"
                );
                let message = error.to_string();
                assert!(
                    message.starts_with(&path.display().to_string()),
                    "{message}"
                );
                assert!(!message.contains('\n'), "{message}");
            }
            assert_eq!(fs::read_to_string(&path).unwrap(), text);
        }
    }

    #[test]
    fn corrupt_operator_token_is_an_error_naming_it() {
        let dir = TempDir::new("corrupt-operator");
        let store = dir.store();
        let token = store.operator_token().unwrap();
        let path = dir.0.join(OPERATOR_TOKEN_FILE);
        fs::write(&path, "not a token\n").unwrap();
        for error in [
            store.operator_token().unwrap_err(),
            store.authenticate(&token).unwrap_err(),
        ] {
            assert!(matches!(error, AuthError::Corrupt { .. }), "{error:?}");
            assert!(!error.to_string().contains("not a token"), "{error}");
            assert!(
                error.to_string().starts_with(&path.display().to_string()),
                "{error}"
            );
        }
    }
}
