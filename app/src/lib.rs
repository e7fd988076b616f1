//! The chatsurface app: its command line and the commands behind it.
//!
//! The app reads and writes event logs through `chatsurface-model` and draws frames through
//! `chatsurface-compositor`'s public pipeline; it never reaches into the compositor's stages.

pub mod agents;
pub mod api;
pub mod bridges;
pub mod checkpoints;
pub mod cli;
pub mod client;
pub mod commands;
pub mod dev;
pub mod error;
pub mod fsutil;
pub mod logging;
pub mod paths;
pub mod private_dir;
pub mod search_index;
pub mod window;
