//! Bridges: the surface answering the real agents' own questions, in each agent's own
//! protocol. A bridge turns what an agent asks (a hook event, an app-server request) into a
//! batch or a confirmation of the local API, and the human's answer back into the agent's
//! reply. Each bridge is a module of its own; the translation is pure and tested beside it,
//! the I/O is the command's (`commands/hook.rs`, `commands/install.rs`, `commands/codex/`).
//! What the bridges share is here: the question as the local API takes it, and the session
//! it is asked in.

pub mod claude_code;
pub mod codex;

use crate::agents::cut;
use serde_json::Value;

/// What kind of question an agent's question is asked as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A clarification batch (`POST …/clarifications`).
    Batch,
    /// A confirmation (`POST …/confirmations`).
    Confirmation,
}

/// A question ready for the local API.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    /// The session it is asked in: `<slug>-<the agent's session id>`.
    pub session: String,
    /// A batch or a confirmation.
    pub kind: Kind,
    /// The request body (with `hold: true`: the bridge leaving withdraws it).
    pub body: Value,
}

impl Question {
    /// The endpoint the question is posted to.
    pub fn path(&self) -> String {
        let what = match self.kind {
            Kind::Batch => "clarifications",
            Kind::Confirmation => "confirmations",
        };
        format!("/v1/sessions/{}/{what}", self.session)
    }
}

/// The session an agent's session `id` is mirrored in, `<slug>-<id>`, or the id cut for an
/// error line when the surface cannot name a session after it (1–116 of A-Z a-z 0-9 . _ -).
pub fn session_name(slug: &str, id: &str) -> Result<String, String> {
    let valid = !id.is_empty()
        && id.len() <= 116
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if valid {
        Ok(format!("{slug}-{id}"))
    } else {
        Err(cut(id, 80))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_named_after_the_agent_and_its_id_when_the_id_is_plain() {
        assert_eq!(
            session_name("codex", "01a2-b.c_d").unwrap(),
            "codex-01a2-b.c_d"
        );
        assert!(session_name("codex", "").is_err());
        assert!(session_name("codex", "a/b").is_err());
        assert!(session_name("codex", &"x".repeat(117)).is_err());
    }
}
