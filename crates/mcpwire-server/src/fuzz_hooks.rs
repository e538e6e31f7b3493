//! Entry points into parsers that are otherwise private, for the fuzz
//! targets in `fuzz/` and the tests that replay their corpora. Not part of
//! the API: hidden from the documentation and free to change.

use crate::StateKeyRing;

/// Seals `state` as the runtime does for a multi round-trip request of
/// `method` on `name` (a tool, prompt or resource) with no authenticated
/// identity.
pub fn seal_request_state(ring: &StateKeyRing, method: &str, name: &str, state: &[u8]) -> String {
    ring.seal(&crate::input::binding_text(method, name, None), state)
}

/// Opens a `requestState` a client echoed, as the runtime does before any
/// handler sees it: `None` unless a key of `ring` sealed it for this
/// request and it has not expired.
pub fn open_request_state(
    ring: &StateKeyRing,
    method: &str,
    name: &str,
    sealed: &str,
) -> Option<Vec<u8>> {
    ring.open(&crate::input::binding_text(method, name, None), sealed)
}

/// The `tasks/list` cursor after the task `task_id`.
pub fn encode_task_cursor(task_id: &str) -> String {
    crate::tasks::serve::encode_cursor(task_id)
}

/// Reads a `tasks/list` cursor a client sent: the task id it continues after.
pub fn decode_task_cursor(cursor: &str) -> Option<String> {
    crate::tasks::serve::decode_cursor(cursor)
}
