//! A first-in, first-out queue for outputs drained as they are produced (the core's actions,
//! the service's outputs): a vector read from a cursor, emptied whenever it has been read to
//! the end, with less code in the module than a ring buffer. (A queue that is never read to
//! the end keeps what was read until it is.)

use crate::prelude::*;

#[derive(Debug)]
pub(crate) struct Fifo<T> {
    items: Vec<Option<T>>,
    next: usize,
}

impl<T> Default for Fifo<T> {
    fn default() -> Self {
        Fifo {
            items: Vec::new(),
            next: 0,
        }
    }
}

impl<T> Fifo<T> {
    pub(crate) fn push_back(&mut self, item: T) {
        self.items.push(Some(item));
    }

    pub(crate) fn pop_front(&mut self) -> Option<T> {
        let item = self.items.get_mut(self.next)?.take();
        self.next += 1;
        // Read to the end: the vector is empty again (its capacity kept), so a queue whose
        // every item is taken never grows, whether or not it is polled once more.
        if self.next == self.items.len() {
            self.items.clear();
            self.next = 0;
        }
        item
    }
}

#[cfg(test)]
mod tests {
    use super::Fifo;

    #[test]
    fn first_in_first_out_across_partial_drains() {
        let mut fifo = Fifo::default();
        fifo.push_back(1);
        fifo.push_back(2);
        assert_eq!(fifo.pop_front(), Some(1));
        fifo.push_back(3);
        assert_eq!(fifo.pop_front(), Some(2));
        assert_eq!(fifo.pop_front(), Some(3));
        assert_eq!(fifo.pop_front(), None);
        assert_eq!(fifo.pop_front(), None);
        fifo.push_back(4);
        assert_eq!(fifo.pop_front(), Some(4));
        assert_eq!(fifo.pop_front(), None);
    }
}
