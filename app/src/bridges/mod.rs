//! Bridges: the surface answering the real agents' own questions, in each agent's own
//! protocol. A bridge turns what an agent asks (a hook event, an app-server request) into a
//! batch or a confirmation of the local API, and the human's answer back into the agent's
//! reply. Each bridge is a module of its own; the translation is pure and tested beside it,
//! the I/O is the command's (`commands/hook.rs`, `commands/install.rs`).

pub mod claude_code;
