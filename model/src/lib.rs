//! The canonical dialog model of chatsurface.
//!
//! This crate owns the truth about a session: the v1 event log (one JSON event per line,
//! append-only), the deterministic fold of that log into a [`Snapshot`], and the validation
//! rules that every batch, confirmation and response must pass.
//!
//! It must not know anything about pixels, fonts, themes or windows: the compositor projects
//! the snapshot into frames, and the app moves events in and out. Keeping this crate free of
//! presentation concerns is what lets the overview be a projection of the same history as the
//! transcript, never a second source of truth.

mod checkpoint;
mod clarification;
mod confirmation;
mod event;
mod fold;
mod ids;
mod io_reason;
mod log;
mod log_line;
mod nodes;
mod parallel_parse;
mod snapshot;
mod validate;

pub use checkpoint::{
    read_log_with_checkpoint, CheckpointMismatch, CheckpointUse, CheckpointedLog,
    PendingCheckpoint, CHECKPOINT_VERSION,
};
pub use clarification::{
    AnswerKind, BatchSpec, BatchStatus, ChoiceOption, ClarificationBatch, ClarificationItem,
    ClarificationResponse, ItemAnswer,
};
pub use confirmation::{Confirmation, ConfirmationOutcome, ConfirmationSpec, ConfirmationStatus};
pub use event::{BatchCloseReason, Event, EventBody, EVENT_LOG_VERSION};
pub use fold::FoldError;
pub use ids::{
    BatchId, ConfirmationId, DecisionId, ItemId, MessageId, OptionId, SessionId, ThreadId,
};
pub use io_reason::{io_reason, io_reason_for};
pub use log::{fold_log_bytes, read_log, LoadedLog, LogError, LogErrorKind, LogWriter, SyncPoint};
pub use log_line::MAX_LINE_BYTES;
pub use nodes::{
    Decision, DecisionSpec, MessageNode, MessageSpec, Role, Session, ThreadKind, ThreadNode,
    ThreadSpec, ThreadStatus,
};
pub use snapshot::{History, NodeRef, Snapshot, TimelineEntry};
pub use validate::{
    limits, validate_batch, validate_batch_size, validate_confirmation, validate_response,
    validate_thread, ValidationError,
};
