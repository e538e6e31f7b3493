//! Large text buffers kept per thread from one message to the next, so that a
//! server answering large messages does not make the allocator grow and
//! shrink its heap for each one.
//!
//! A call that carries 64 KiB of text makes three buffers of that size: the
//! copy of its `params`, the text of its argument (serde_json's) and the
//! text of its answer. All three are freed when the call ends, at the top of
//! the heap, and glibc then gives the memory back to the kernel (the freed
//! top exceeds its 128 KiB trim threshold) only to ask for it again at the
//! next call: three `brk` calls and ~50 page faults, each page zeroed by
//! the kernel, per call. Measured with a stdio server answering 64 KiB
//! echoes one at a time: 153 µs of server CPU per call, and 70 µs with the
//! trim threshold raised (`MALLOC_TRIM_THRESHOLD_`), which a library
//! cannot do for its users. Keeping the payload and answer buffers here
//! (`RawJson` gives its text back when dropped, and `LineQueue` a large
//! answer's text once written; the JSON writer and the payload copy take
//! from here) leaves one such buffer per call to the allocator (serde_json's
//! for the argument), under its threshold: no `brk` per call at all.
//! (Without the `fast-json` feature answers are serde_json's own strings,
//! not taken from here.)
//!
//! Bounded: at most [`SLOTS`] buffers per thread, none larger than
//! [`LARGEST`] and together at most [`BUDGET`]; buffers smaller than
//! [`SMALLEST`] are not kept (the allocator's own caches serve them well).

use std::cell::RefCell;

/// The smallest capacity kept: below this the allocator's caches do better.
pub(crate) const SMALLEST: usize = 8 * 1024;

/// The largest capacity kept: a larger buffer goes back to the allocator
/// (which serves sizes this large by mapping memory, not from its heap).
pub(crate) const LARGEST: usize = 1024 * 1024;

/// How many buffers a thread keeps at most.
pub(crate) const SLOTS: usize = 4;

/// How many bytes of buffers a thread keeps at most.
pub(crate) const BUDGET: usize = 2 * 1024 * 1024;

thread_local! {
    /// The buffers kept on this thread, emptied.
    static KEPT: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// An empty buffer with room for at least `capacity` bytes: a kept one when
/// one is large enough (the smallest such), a new one otherwise.
pub(crate) fn take(capacity: usize) -> String {
    if capacity >= SMALLEST / 2
        && let Ok(Some(buffer)) = KEPT.try_with(|kept| {
            let mut kept = kept.try_borrow_mut().ok()?;
            let at = kept
                .iter()
                .enumerate()
                .filter(|(_, buffer)| buffer.capacity() >= capacity)
                .min_by_key(|(_, buffer)| buffer.capacity())
                .map(|(at, _)| at)?;
            Some(kept.swap_remove(at))
        })
    {
        return buffer;
    }
    String::with_capacity(capacity)
}

/// Keeps `buffer` for a later [`take`] if it is worth keeping and there is
/// room; drops it otherwise.
pub(crate) fn give(mut buffer: String) {
    if !(SMALLEST..=LARGEST).contains(&buffer.capacity()) {
        return;
    }
    buffer.clear();
    // Only fails while the thread is being torn down (or, never in this
    // module, while the list is borrowed): the buffer is then dropped.
    let _ = KEPT.try_with(|kept| {
        if let Ok(mut kept) = kept.try_borrow_mut()
            && kept.len() < SLOTS
            && kept.iter().map(String::capacity).sum::<usize>() + buffer.capacity() <= BUDGET
        {
            kept.push(buffer);
        }
    });
}

/// [`give`] for a buffer of bytes (a written line's payload, say): kept
/// as an emptied text buffer.
pub(crate) fn give_bytes(mut buffer: Vec<u8>) {
    buffer.clear();
    // Empty, so valid UTF-8 without looking at a byte.
    if let Ok(buffer) = String::from_utf8(buffer) {
        give(buffer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept() -> Vec<usize> {
        KEPT.with(|kept| kept.borrow().iter().map(String::capacity).collect())
    }

    #[test]
    fn a_large_buffer_given_back_is_taken_again_without_allocating() {
        let buffer = String::with_capacity(64 * 1024);
        let address = buffer.as_ptr();
        give(buffer);
        let again = take(60 * 1024);
        assert_eq!(again.as_ptr(), address);
        assert!(again.is_empty());
    }

    #[test]
    fn the_smallest_buffer_that_fits_is_taken() {
        give(String::with_capacity(512 * 1024));
        give(String::with_capacity(16 * 1024));
        let taken = take(10 * 1024);
        assert_eq!(taken.capacity(), 16 * 1024);
        let taken = take(10 * 1024);
        assert_eq!(taken.capacity(), 512 * 1024);
    }

    #[test]
    fn small_and_huge_buffers_are_not_kept() {
        let before = kept();
        give(String::with_capacity(SMALLEST - 1));
        give(String::with_capacity(LARGEST + 1));
        assert_eq!(kept(), before);
    }

    #[test]
    fn a_thread_keeps_at_most_slots_buffers() {
        for _ in 0..SLOTS + 3 {
            give(String::with_capacity(SMALLEST));
        }
        assert_eq!(kept().len(), SLOTS);
    }

    #[test]
    fn a_thread_keeps_at_most_its_budget_in_bytes() {
        for _ in 0..SLOTS {
            give(String::with_capacity(LARGEST));
        }
        assert!(kept().iter().sum::<usize>() <= BUDGET);
        assert_eq!(kept().len(), BUDGET / LARGEST);
    }

    #[test]
    fn a_small_request_is_served_by_a_new_buffer() {
        give(String::with_capacity(64 * 1024));
        let small = take(100);
        assert!(small.capacity() < SMALLEST);
    }

    /// The `params` of the request `text`.
    fn params_of(text: &str) -> crate::RawJson {
        match crate::Inbound::from_slice(text.as_bytes()) {
            crate::Inbound::Single(crate::Message::Request(request)) => {
                request.params.expect("the request has params")
            }
            other => panic!("not a request: {other:?}"),
        }
    }

    #[test]
    fn a_large_payload_is_copied_into_the_buffer_of_the_last_one_dropped() {
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"t":"{}"}}}}"#,
            "x".repeat(64 * 1024)
        );
        let first = params_of(&text);
        let address = first.get().as_ptr();
        drop(first);
        let second = params_of(&text);
        assert_eq!(second.get().as_ptr(), address);
        assert_eq!(second.get().len(), 64 * 1024 + 8);
    }

    // The portable writer (without `fast-json`) is serde_json's own.
    #[cfg(feature = "fast-json")]
    #[test]
    fn a_large_answer_is_written_into_the_buffer_of_the_last_one_dropped() {
        let text = "y".repeat(64 * 1024);
        let first = crate::RawJson::from_serialize(&text).expect("a string serializes");
        let address = first.get().as_ptr();
        drop(first);
        let second = crate::RawJson::from_serialize(&text).expect("a string serializes");
        assert_eq!(second.get().as_ptr(), address);
    }
}
