//! `SmallQueue`: a FIFO queue whose oldest value is held inline, so that a
//! queue that never holds more than one value at once (the log of a POST
//! stream, which usually carries one event, its answer) never allocates.

use std::collections::VecDeque;

/// A FIFO queue: its oldest value inline, the rest in a `VecDeque` (empty,
/// and so unallocated, while `first` is the only value).
#[derive(Debug)]
pub(crate) struct SmallQueue<T> {
    first: Option<T>,
    rest: VecDeque<T>,
}

impl<T> Default for SmallQueue<T> {
    fn default() -> Self {
        Self {
            first: None,
            rest: VecDeque::new(),
        }
    }
}

impl<T> SmallQueue<T> {
    pub(crate) fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    pub(crate) fn push_back(&mut self, value: T) {
        if self.first.is_none() {
            self.first = Some(value);
        } else {
            self.rest.push_back(value);
        }
    }

    pub(crate) fn pop_front(&mut self) -> Option<T> {
        let value = self.first.take()?;
        self.first = self.rest.pop_front();
        Some(value)
    }

    pub(crate) fn front(&self) -> Option<&T> {
        self.first.as_ref()
    }

    /// The values, oldest first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.first.iter().chain(self.rest.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_out_in_order_and_one_value_needs_no_buffer() {
        let mut queue = SmallQueue::default();
        assert!(queue.is_empty());
        queue.push_back(1);
        assert_eq!(queue.rest.capacity(), 0);
        assert_eq!((queue.len(), queue.front()), (1, Some(&1)));
        queue.push_back(2);
        queue.push_back(3);
        assert_eq!(queue.iter().copied().collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(queue.pop_front(), Some(1));
        assert_eq!(queue.front(), Some(&2));
        queue.push_back(4);
        assert_eq!(queue.iter().copied().collect::<Vec<_>>(), [2, 3, 4]);
        assert_eq!(
            [queue.pop_front(), queue.pop_front(), queue.pop_front()],
            [Some(2), Some(3), Some(4)]
        );
        assert_eq!((queue.pop_front(), queue.len()), (None, 0));
        assert!(queue.is_empty());
    }
}
