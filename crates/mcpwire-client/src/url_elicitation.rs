//! The URL-mode elicitations (2025-11-25) this client knows of, so that
//! `notifications/elicitation/complete` for an unknown or already
//! completed id is ignored (ELIC-22) rather than shown to the user.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

/// How many open URL elicitations are remembered; beyond that the oldest
/// is forgotten (its completion, should it ever come, is then ignored).
const REMEMBERED: usize = 256;

/// The ids of URL-mode elicitations the user was shown and that have not
/// completed yet.
#[derive(Debug, Default)]
pub(crate) struct OpenUrlElicitations {
    ids: Mutex<VecDeque<String>>,
}

impl OpenUrlElicitations {
    /// Remembers `id` as shown to the user and not yet completed.
    pub(crate) fn opened(&self, id: &str) {
        let mut ids = self.ids.lock().unwrap_or_else(PoisonError::into_inner);
        if ids.iter().any(|known| known == id) {
            return;
        }
        if ids.len() >= REMEMBERED {
            ids.pop_front();
        }
        ids.push_back(id.to_owned());
    }

    /// Whether `id` was open; it is closed from now on.
    pub(crate) fn complete(&self, id: &str) -> bool {
        let mut ids = self.ids.lock().unwrap_or_else(PoisonError::into_inner);
        match ids.iter().position(|known| known == id) {
            Some(at) => {
                ids.remove(at);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_completion_counts_once_and_only_for_a_known_id_elic_22() {
        let open = OpenUrlElicitations::default();
        assert!(!open.complete("e-1"));
        open.opened("e-1");
        open.opened("e-1");
        assert!(open.complete("e-1"));
        assert!(!open.complete("e-1"));
    }

    #[test]
    fn the_oldest_id_is_forgotten_beyond_the_bound() {
        let open = OpenUrlElicitations::default();
        for n in 0..=REMEMBERED {
            open.opened(&n.to_string());
        }
        assert!(!open.complete("0"));
        assert!(open.complete(&REMEMBERED.to_string()));
    }
}
