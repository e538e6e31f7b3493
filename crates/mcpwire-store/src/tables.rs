//! Giving back the capacity of a per-session table once most of it is
//! empty, so that a server that once held a peak of sessions does not hold
//! the peak's tables for ever.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hash};

/// Shrinks `map` to twice its length when it is under a quarter full (and
/// larger than a few entries). Called after removals; the cost is paid
/// once per halving of the table, so it stays O(1) per removal amortized.
pub fn shrink_sparse<K: Eq + Hash, V, S: BuildHasher>(map: &mut HashMap<K, V, S>) {
    if let Some(capacity) = sparse_shrink(map.len(), map.capacity()) {
        map.shrink_to(capacity);
    }
}

/// [`shrink_sparse`] for a set.
pub fn shrink_sparse_set<K: Eq + Hash, S: BuildHasher>(set: &mut HashSet<K, S>) {
    if let Some(capacity) = sparse_shrink(set.len(), set.capacity()) {
        set.shrink_to(capacity);
    }
}

/// The capacity [`shrink_sparse`] shrinks a table of `len` entries and
/// `capacity` to, if it shrinks it at all: for tables of other kinds
/// (hashbrown's) to follow the same rule.
pub fn sparse_shrink(len: usize, capacity: usize) -> Option<usize> {
    (capacity > 64 && len < capacity / 4).then_some(len * 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_emptied_after_a_peak_gives_its_capacity_back() {
        let mut map: HashMap<u32, u32> = (0..10_000).map(|n| (n, n)).collect();
        map.retain(|n, _| *n < 10);
        shrink_sparse(&mut map);
        assert!(map.capacity() < 100, "{}", map.capacity());
        assert_eq!(map.len(), 10);
        // A full table is left alone.
        let mut full: HashMap<u32, u32> = (0..100).map(|n| (n, n)).collect();
        let capacity = full.capacity();
        shrink_sparse(&mut full);
        assert_eq!(full.capacity(), capacity);
    }
}
