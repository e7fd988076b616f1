//! `chatsurface integration add|list|remove`.

use crate::api::auth::TokenStore;
use crate::cli::IntegrationAction;
use crate::error::AppError;
use crate::paths::data_dir;

/// Runs one integration action against the data directory's token store.
pub fn run(action: IntegrationAction) -> Result<(), AppError> {
    let tokens = TokenStore::new(&data_dir());
    let fail = |error: crate::api::auth::AuthError| AppError::Usage(error.to_string());
    match action {
        IntegrationAction::Add { slug, dialogs } => {
            let token = tokens.add_integration(&slug, dialogs).map_err(fail)?;
            println!("{token}");
        }
        IntegrationAction::List => {
            for integration in tokens.list().map_err(fail)? {
                let dialogs = if integration.dialogs {
                    "dialogs"
                } else {
                    "no dialogs"
                };
                println!("{}\t{dialogs}", integration.slug);
            }
        }
        IntegrationAction::Remove { slug } => tokens.remove(&slug).map_err(fail)?,
    }
    Ok(())
}
