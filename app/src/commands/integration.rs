//! `chatsurface integration add|list|remove`.

use crate::api::auth::TokenStore;
use crate::cli::IntegrationAction;
use crate::error::AppError;
use crate::paths::data_dir;

/// Runs one integration action against the data directory's token store.
pub(super) fn run(action: IntegrationAction) -> Result<(), AppError> {
    let tokens = TokenStore::new(&data_dir());
    let fail = |error: crate::api::auth::AuthError| AppError::Usage(error.to_string());
    match action {
        IntegrationAction::Add {
            slug,
            dialogs,
            sessions,
        } => {
            for session in &sessions {
                crate::api::store::validate_session_id(session)
                    .map_err(|error| AppError::Usage(format!("--session: {error}")))?;
            }
            let token = tokens
                .add_integration(&slug, dialogs, &sessions)
                .map_err(fail)?;
            super::print(&format!("{token}\n"))?;
        }
        IntegrationAction::List => {
            let mut lines = String::new();
            for integration in tokens.list().map_err(fail)? {
                let dialogs = if integration.dialogs {
                    "dialogs"
                } else {
                    "no dialogs"
                };
                let sessions = if integration.sessions.is_empty() {
                    String::new()
                } else {
                    format!("\tsessions: {}", integration.sessions.join(" "))
                };
                lines.push_str(&format!("{}\t{dialogs}{sessions}\n", integration.slug));
            }
            super::print(&lines)?;
        }
        IntegrationAction::Remove { slug } => tokens.remove(&slug).map_err(fail)?,
    }
    Ok(())
}
