//! One copy of what the clients of many sessions declare alike: the
//! capabilities and identity an `initialize` carries are kept per session
//! for its whole life, and a server holding thousands of sessions usually
//! serves a handful of client programs, each declaring the same values.

use std::sync::{Arc, Mutex, PoisonError};

use mcpwire_types::{ClientCapabilities, Implementation};

/// The capabilities the last `initialize` in this process declared.
static LAST_CAPABILITIES: Mutex<Option<Arc<ClientCapabilities>>> = Mutex::new(None);

/// The client identity the last `initialize` in this process declared.
static LAST_INFO: Mutex<Option<Arc<Implementation>>> = Mutex::new(None);

/// `capabilities` behind a reference shared with the previous session
/// whose client declared the same, or a new one (then remembered).
pub(super) fn capabilities(capabilities: &ClientCapabilities) -> Arc<ClientCapabilities> {
    shared(&LAST_CAPABILITIES, capabilities)
}

/// `info` behind a reference shared with the previous session whose
/// client declared the same, or a new one (then remembered).
pub(super) fn info(info: &Implementation) -> Arc<Implementation> {
    shared(&LAST_INFO, info)
}

/// The value in `last` when it equals `value`, else a new one stored there.
/// Only the last one is kept: nothing here grows with the clients seen.
fn shared<T: PartialEq + Clone>(last: &Mutex<Option<Arc<T>>>, value: &T) -> Arc<T> {
    // A panic cannot leave the slot half written (it holds one `Arc`).
    let mut last = last.lock().unwrap_or_else(PoisonError::into_inner);
    match &*last {
        Some(known) if **known == *value => Arc::clone(known),
        _ => {
            let fresh = Arc::new(value.clone());
            *last = Some(Arc::clone(&fresh));
            fresh
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_declarations_share_one_copy_and_a_different_one_replaces_it() {
        let slot = Mutex::new(None);
        let first = shared(&slot, &Implementation::new("interned-a", "1.0"));
        let again = shared(&slot, &Implementation::new("interned-a", "1.0"));
        assert!(Arc::ptr_eq(&first, &again));
        let other = shared(&slot, &Implementation::new("interned-b", "1.0"));
        assert!(!Arc::ptr_eq(&first, &other));
        assert_eq!(other.name, "interned-b");
        // Only the last is remembered: the first is not held any more.
        assert_eq!(Arc::strong_count(&first), 2);
        let third = shared(&slot, &Implementation::new("interned-a", "1.0"));
        assert!(!Arc::ptr_eq(&first, &third));
    }
}
