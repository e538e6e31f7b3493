//! What a server's answers weigh, for the bounds on how much of them a
//! client holds: whole lists read page by page, and the result cache.
//!
//! The weight is estimated from the parsed values: their length as
//! compact JSON, counted by serializing into a counter (nothing is built),
//! since the engine hands results over parsed and the bytes they came in
//! are gone by then. Counting costs about what parsing them did, once per
//! page or cached result.

use std::io;
use std::mem::size_of;

use serde::Serialize;

use crate::ClientError;

/// How many bytes a whole list (`list_all_*` and the like) may weigh by
/// default: some 100,000 typical resources (their entry in memory plus a
/// couple of hundred bytes of text each), 16 full pages of the transports'
/// default 4 MiB messages.
pub(crate) const DEFAULT_MAX_LISTED_BYTES: usize = 64 * 1024 * 1024;

/// The length of `value` as compact JSON. What does not serialize (never
/// the case for values that were parsed from JSON) counts as too large to
/// hold.
pub(crate) fn json_len(value: &impl Serialize) -> usize {
    let mut counter = Counter(0);
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => counter.0,
        Err(_) => usize::MAX,
    }
}

/// A writer that keeps only the count of what it was given.
struct Counter(usize);

impl io::Write for Counter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0 = self.0.saturating_add(bytes.len());
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The items of a list read page by page, bounded in bytes.
///
/// Bytes rather than items: a page is one message (up to 4 MiB by
/// default), so a server listing one huge item per page would stay far
/// below any item count that real lists need while making the client hold
/// gigabytes (10,000 pages of 4 MiB). Each item weighs its JSON text plus
/// the size of its entry in memory, so a flood of tiny items weighs too.
pub(crate) struct Listing<T> {
    items: Vec<T>,
    weight: usize,
    limit: usize,
    method: &'static str,
}

impl<T: Serialize> Listing<T> {
    /// An empty list of `method`'s items, holding `limit` bytes at most.
    pub(crate) fn new(method: &'static str, limit: usize) -> Self {
        Self {
            items: Vec::new(),
            weight: 0,
            limit,
            method,
        }
    }

    /// Adds a page's items.
    ///
    /// # Errors
    ///
    /// [`ClientError::ListTooLarge`] when they would take the list past
    /// its bound; the page is dropped, so no more than the bound is held.
    pub(crate) fn extend(&mut self, page: Vec<T>) -> Result<(), ClientError> {
        let entries = page.len().saturating_mul(size_of::<T>());
        let weight = json_len(&page).saturating_add(entries);
        self.weight = self.weight.saturating_add(weight);
        if self.weight > self.limit {
            return Err(ClientError::ListTooLarge {
                method: self.method,
                limit: self.limit,
            });
        }
        self.items.extend(page);
        Ok(())
    }

    /// The items gathered.
    pub(crate) fn into_items(self) -> Vec<T> {
        self.items
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn json_len_is_the_length_of_the_compact_text() {
        let value = json!({"name": "a", "list": [1, 2, 3]});
        assert_eq!(json_len(&value), value.to_string().len());
    }

    #[test]
    fn a_list_past_its_bound_fails_and_keeps_none_of_the_page_that_crossed_it() {
        let item = "x".repeat(100);
        let one = json_len(&[&item]) + size_of::<String>();
        let mut listing = Listing::new("tools/list", 3 * one);
        listing.extend(vec![item.clone(), item.clone()]).unwrap();
        let error = listing.extend(vec![item.clone(), item]).unwrap_err();
        assert_eq!(
            error,
            ClientError::ListTooLarge {
                method: "tools/list",
                limit: 3 * one
            }
        );
        assert_eq!(listing.into_items().len(), 2);
    }

    #[test]
    fn many_tiny_items_weigh_their_entries_too() {
        let mut listing = Listing::new("prompts/list", 10_000);
        let empties = vec![String::new(); 10_000 / size_of::<String>()];
        assert!(listing.extend(empties).is_err());
    }
}
