//! Tools for developing and measuring chatsurface: the synthetic session generator behind
//! `chatsurface gen`.

pub mod generate;
