//! `ResponseForm`: whether a POST in `Auto` mode is answered as JSON or
//! as SSE, decided once by whichever of the stream's two ends gets there
//! first, so that an answer sent as JSON is never logged.

use core::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

/// Neither end has decided.
const UNDECIDED: u8 = 0;
/// The runtime published the stream's only answer without logging it: the
/// response sends it as JSON.
const JSON: u8 = 1;
/// The response went to SSE (a keep-alive came due, or the stream was
/// paused) and opened the stream's log: every event must be logged.
const SSE: u8 = 2;

/// The decision between a JSON and an SSE answer to one POST, shared by
/// the runtime that answers it and the HTTP response that sends it, when
/// both run in this process.
///
/// An SSE stream is resumable, so its events are logged before they are
/// sent; a JSON answer is not, and logging it only to drop it again costs
/// two store calls (two round trips with a store across the network). In
/// `Auto` mode the response sends a final answer that comes first as JSON,
/// but turns to SSE if a keep-alive is due first. Both ends race for the
/// decision through this value, and the first one wins:
///
/// * the runtime, about to publish the stream's first event and final
///   answer, calls [`claim_json`](Self::claim_json): on `true` it publishes
///   the answer without logging it, and the response will send it as JSON;
/// * the response, about to turn to SSE before any event, calls
///   [`claim_sse`](Self::claim_sse): on `true` it opens the log and sends
///   its priming event, and the runtime logs everything; on `false` the
///   answer is on its way, and the response waits for it and sends JSON.
///
/// A bus that carries an [`Envelope`](crate::Envelope) to another process
/// leaves it behind: a runtime elsewhere then logs every event, as it
/// would without one.
#[derive(Default)]
pub struct ResponseForm(AtomicU8);

impl ResponseForm {
    /// A decision not taken yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The runtime's side: `true` when the answer may go unlogged (the
    /// response will send it as JSON), `false` when the response already
    /// turned to SSE and the answer must be logged.
    pub fn claim_json(&self) -> bool {
        self.claim(JSON)
    }

    /// The response's side: `true` when it may turn to SSE (the runtime
    /// will log every event), `false` when the answer was already
    /// published unlogged and must be sent as JSON.
    pub fn claim_sse(&self) -> bool {
        self.claim(SSE)
    }

    /// Whether the runtime claimed JSON: the answer was not logged, so
    /// there is nothing to forget.
    pub fn is_json(&self) -> bool {
        self.0.load(Ordering::Acquire) == JSON
    }

    /// Takes the decision `form` unless the other side took the other;
    /// claiming the same form twice is `true`.
    fn claim(&self, form: u8) -> bool {
        match self
            .0
            .compare_exchange(UNDECIDED, form, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => true,
            Err(taken) => taken == form,
        }
    }
}

impl fmt::Debug for ResponseForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let form = match self.0.load(Ordering::Acquire) {
            JSON => "Json",
            SSE => "Sse",
            _ => "Undecided",
        };
        write!(f, "ResponseForm({form})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_claim_wins_and_the_other_loses() {
        let form = ResponseForm::new();
        assert!(form.claim_json());
        assert!(!form.claim_sse());
        assert!(form.claim_json());
        assert!(form.is_json());

        let form = ResponseForm::new();
        assert!(form.claim_sse());
        assert!(!form.claim_json());
        assert!(!form.is_json());
    }

    #[test]
    fn of_two_threads_racing_exactly_one_wins() {
        for _ in 0..200 {
            let form = std::sync::Arc::new(ResponseForm::new());
            let other = form.clone();
            let json = std::thread::spawn(move || other.claim_json());
            let sse = form.claim_sse();
            let json = json.join().unwrap_or(false);
            assert!(json != sse, "json {json}, sse {sse}");
            assert_eq!(form.is_json(), json);
        }
    }
}
