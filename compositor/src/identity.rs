//! Identities for what layout produces, so that what is painted from it can be cached.
//!
//! A retained layer (a card's texture, a scene's fingerprint) must know whether it was made
//! from the very same shaped text or card layout. An address (`Arc::as_ptr`) says so only
//! while the value is alive; once it is freed, the next allocation may reuse the address and
//! a stale texture would be taken for a new card. A [`PaintId`] is never reused in a process.

use std::sync::atomic::{AtomicU64, Ordering};

/// Names one shaped text or one card layout for as long as the process runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PaintId(u64);

impl PaintId {
    /// An id no value of this process has had before.
    pub fn fresh() -> PaintId {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        PaintId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

impl Default for PaintId {
    fn default() -> PaintId {
        PaintId::fresh()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_is_new() {
        let ids: std::collections::HashSet<PaintId> = (0..1000).map(|_| PaintId::fresh()).collect();
        assert_eq!(ids.len(), 1000);
    }
}
