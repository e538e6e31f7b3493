//! `SharedBytes`: a count of bytes that the sessions of one server hold
//! together, with a bound no session may take it past.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Bytes held by several sessions at once (the params of the requests
/// they are handling), counted in one place so that a bound holds for
/// their sum. Cloning shares the count.
#[derive(Debug, Clone, Default)]
pub(crate) struct SharedBytes(Arc<AtomicUsize>);

impl SharedBytes {
    /// Adds `bytes` unless that would pass `limit`; an empty count takes
    /// anything, so that one request larger than the bound is still served
    /// when nothing else is.
    pub(crate) fn take(&self, bytes: usize, limit: usize) -> bool {
        // Relaxed: the count guards no other memory, it is only a sum.
        self.0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                (used == 0 || used.saturating_add(bytes) <= limit)
                    .then(|| used.saturating_add(bytes))
            })
            .is_ok()
    }

    /// Gives back `bytes` taken before.
    pub(crate) fn give(&self, bytes: usize) {
        // Never below zero, even if a caller gave back more than it took.
        let _ = self
            .0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                Some(used.saturating_sub(bytes))
            });
    }

    /// The bytes held now.
    pub(crate) fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_up_to_the_limit_and_anything_when_empty() {
        let shared = SharedBytes::default();
        assert!(shared.take(1_500, 1_000), "an empty count takes anything");
        assert!(!shared.take(1, 1_000));
        shared.give(1_500);
        assert!(shared.take(600, 1_000));
        let clone = shared.clone();
        assert!(!clone.take(600, 1_000), "clones share the count");
        assert!(clone.take(400, 1_000));
        assert_eq!(shared.get(), 1_000);
        shared.give(2_000);
        assert_eq!(shared.get(), 0, "never below zero");
    }
}
