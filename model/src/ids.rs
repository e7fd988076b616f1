//! Identifier newtypes, so that a thread id can never be passed where a batch id is expected.
//!
//! Ids are chosen by whoever writes the event (an agent, the app), so they are plain strings;
//! the newtypes only keep the kinds apart.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! string_id {
    ($(#[$doc:meta] $name:ident),* $(,)?) => {$(
        #[$doc]
        #[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default)]
        #[serde(transparent)]
        pub struct $name(pub String);

        impl $name {
            /// The id as written in the log.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                Self(value.to_owned())
            }
        }
    )*};
}

string_id! {
    /// Identifies a session (one event log).
    SessionId,
    /// Identifies a thread: a topic, a branch or an exploration.
    ThreadId,
    /// Identifies a message.
    MessageId,
    /// Identifies a clarification batch.
    BatchId,
    /// Identifies an item within one clarification batch.
    ItemId,
    /// Identifies an option within one clarification item.
    OptionId,
    /// Identifies a confirmation of a dangerous action.
    ConfirmationId,
    /// Identifies a recorded decision.
    DecisionId,
}
