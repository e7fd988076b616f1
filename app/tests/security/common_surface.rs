//! The API tests' harness (a scratch data directory, a real `chatsurface serve`, curl), shared
//! with the security suite.

#[path = "../common/mod.rs"]
#[allow(
    dead_code,
    reason = "the harness serves several test crates; each uses part of it"
)]
mod common;

pub(crate) use common::Surface;
