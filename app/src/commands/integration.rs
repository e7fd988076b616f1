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
        IntegrationAction::Add { slug, dialogs } => {
            let token = tokens.add_integration(&slug, dialogs).map_err(fail)?;
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
                lines.push_str(&format!("{}\t{dialogs}\n", integration.slug));
            }
            super::print(&lines)?;
        }
        IntegrationAction::Remove { slug } => tokens.remove(&slug).map_err(fail)?,
    }
    Ok(())
}
