//! The token a bridge asks the surface with: the bridge's integration, its token kept in a
//! file of the data directory's private `bridges` folder, so that no agent's settings file
//! holds a secret. `install claude-code` makes Claude Code's; `chatsurface codex` makes its own
//! on its first run.

use crate::api::auth::{AuthError, TokenStore};
use crate::error::AppError;
use std::path::{Path, PathBuf};

/// Where the token of the bridge `slug` is kept.
fn token_file(data_dir: &Path, slug: &str) -> PathBuf {
    data_dir.join("bridges").join(format!("{slug}.token"))
}

/// Makes sure the bridge `slug` has a token: its integration and its token file. Says what it
/// did, if anything.
pub(super) fn ensure(slug: &str) -> Result<Option<String>, AppError> {
    let data_dir = crate::paths::data_dir();
    let file = token_file(&data_dir, slug);
    if file.is_file() {
        return Ok(None);
    }
    let tokens = TokenStore::new(&data_dir);
    let fail = |error: AuthError| AppError::CannotCreate(error.to_string());
    let token = match tokens.add_integration(slug, false, &[]) {
        Ok(token) => token,
        // Its token was shown once and is not kept; a new one replaces it.
        Err(AuthError::Exists(_)) => {
            tokens.remove(slug).map_err(fail)?;
            tokens.add_integration(slug, false, &[]).map_err(fail)?
        }
        Err(error) => return Err(fail(error)),
    };
    let folder = file.parent().unwrap_or(&data_dir);
    crate::fsutil::create_private_dir(folder)
        .map_err(|error| AppError::CannotCreate(format!("{}: {error}", folder.display())))?;
    crate::fsutil::write_atomically(&file, format!("{token}\n").as_bytes(), 0o600)
        .map_err(|error| AppError::CannotCreate(error.to_string()))?;
    Ok(Some(format!(
        "integration \"{slug}\": token in {}",
        file.display()
    )))
}

/// The token the bridge `slug` asks with: `CHATSURFACE_TOKEN_<SLUG>` (or
/// `CHATSURFACE_TOKEN`), else its token file, else a line saying how to get one (`how`).
pub(super) fn read(slug: &str, how: &str) -> Result<String, AppError> {
    let env = |name: &str| std::env::var(name).ok();
    if let Some(token) = crate::client::ask::token_for(slug, env) {
        return Ok(token);
    }
    let path = token_file(&crate::paths::data_dir(), slug);
    match std::fs::read_to_string(&path) {
        Ok(text) if !text.trim().is_empty() => Ok(text.trim().to_owned()),
        Ok(_) => Err(AppError::NoInput(format!(
            "{}: empty token file",
            path.display()
        ))),
        Err(error) => Err(AppError::NoInput(format!(
            "{}: {error}; {how} or set {}",
            path.display(),
            crate::client::ask::token_var(slug)
        ))),
    }
}
