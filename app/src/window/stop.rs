//! SIGINT and SIGTERM close the window as Ctrl+Q does: the draft is saved, and the API served
//! in-process stops and removes its socket, instead of the process dying with the socket
//! left behind.
//!
//! A thread waits for the signals and raises a flag; the event loop looks at it whenever it
//! wakes (at least every follow interval). A second signal while the window has not closed
//! ends the process at once, so a window that no longer answers can still be stopped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The exit status of a process ended by a second signal (128 + SIGTERM).
const FORCED_EXIT: i32 = 143;

/// Whether a stop was asked for by a signal.
#[derive(Clone, Debug, Default)]
pub(super) struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    /// Whether a signal asked the window to close.
    pub(super) fn is_raised(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// Raises it, as a signal does.
    fn raise(&self) -> bool {
        self.0.swap(true, Ordering::SeqCst)
    }
}

/// Starts the thread that raises the flag on SIGINT or SIGTERM. Where signals cannot be
/// watched, the flag is never raised and the signals keep their usual effect.
pub(super) fn on_signals() -> StopFlag {
    let flag = StopFlag::default();
    let raised = flag.clone();
    let started = std::thread::Builder::new()
        .name("window-signals".into())
        .spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_io()
                .build()
            else {
                return;
            };
            runtime.block_on(async move {
                use tokio::signal::unix::{signal, SignalKind};
                let (Ok(mut interrupt), Ok(mut terminate)) = (
                    signal(SignalKind::interrupt()),
                    signal(SignalKind::terminate()),
                ) else {
                    return;
                };
                loop {
                    tokio::select! {
                        _ = interrupt.recv() => {}
                        _ = terminate.recv() => {}
                    }
                    if raised.raise() {
                        std::process::exit(FORCED_EXIT);
                    }
                }
            });
        });
    if let Err(error) = started {
        tracing::warn!("cannot watch for SIGINT and SIGTERM: {error}");
    }
    flag
}
