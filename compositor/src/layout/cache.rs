//! Two-frame caches: what was laid out in this frame or the one before is reused, the rest is
//! dropped.
//!
//! As with GPUI's line-layout cache, each frame starts a new generation; an entry used in the
//! current frame moves into it from the previous one. Entries nobody asked for during a whole
//! frame are freed when the next frame begins, so memory follows what is on screen (plus the
//! scroll margin), never the length of the session.

use std::collections::HashMap;
use std::hash::Hash;

/// A cache that keeps what the current and the previous frame used.
#[derive(Debug)]
pub(super) struct TwoFrameCache<K, V> {
    current: HashMap<K, V>,
    previous: HashMap<K, V>,
}

impl<K: Eq + Hash, V: Clone> Default for TwoFrameCache<K, V> {
    fn default() -> Self {
        TwoFrameCache {
            current: HashMap::new(),
            previous: HashMap::new(),
        }
    }
}

impl<K: Eq + Hash, V: Clone> TwoFrameCache<K, V> {
    /// Starts a new frame: what the frame before last used and this one has not is freed.
    pub(super) fn next_frame(&mut self) {
        self.previous = std::mem::take(&mut self.current);
    }

    /// The cached value, or a new one made by `make`.
    pub(super) fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> V {
        if let Some(value) = self.current.get(&key) {
            return value.clone();
        }
        let value = self.previous.remove(&key).unwrap_or_else(make);
        self.current.insert(key, value.clone());
        value
    }

    /// How many entries are held.
    pub(super) fn len(&self) -> usize {
        self.current.len() + self.previous.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_unused_for_a_whole_frame_are_freed() {
        let mut cache = TwoFrameCache::default();
        let mut made = 0;
        cache.get_or_insert_with("a", || {
            made += 1;
            1
        });
        cache.next_frame();
        cache.get_or_insert_with("a", || {
            made += 1;
            1
        });
        assert_eq!(made, 1, "used in the previous frame: reused");
        cache.next_frame();
        cache.next_frame();
        cache.get_or_insert_with("a", || {
            made += 1;
            1
        });
        assert_eq!(made, 2, "unused for a whole frame: made again");
        assert_eq!(cache.len(), 1);
    }
}
