//! Giving back the capacity of a per-session table once most of it is
//! empty, so that a server that once held a peak of sessions does not hold
//! the peak's tables for ever.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hash};

/// Shrinks `map` to twice its length when it is under a quarter full (and
/// larger than a few entries). Called after removals; the cost is paid
/// once per halving of the table, so it stays O(1) per removal amortized.
pub fn shrink_sparse<K: Eq + Hash, V, S: BuildHasher>(map: &mut HashMap<K, V, S>) {
    if map.capacity() > 64 && map.len() < map.capacity() / 4 {
        map.shrink_to(map.len() * 2);
    }
}

/// [`shrink_sparse`] for a set.
pub fn shrink_sparse_set<K: Eq + Hash, S: BuildHasher>(set: &mut HashSet<K, S>) {
    if set.capacity() > 64 && set.len() < set.capacity() / 4 {
        set.shrink_to(set.len() * 2);
    }
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
