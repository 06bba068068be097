//! The state of one resource name: its lock request queue (§2.5) and its slice of the
//! held lock set (§2.4).

use std::collections::BTreeMap;

use super::types::{ClientId, Mode, RequestId};

/// Position of a request in its queue. Appends take increasing positive keys, prepends
/// (steal, §4.1 step 3.4.2) decreasing negative ones, so key order is queue order.
pub(crate) type QueueKey = i64;

/// Order in which locks were granted; the held "set" is ordered by it.
pub(crate) type GrantSeq = u64;

/// A request or lock as its name's tables see it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    pub(crate) request: RequestId,
    pub(crate) client: ClientId,
    pub(crate) mode: Mode,
}

#[derive(Debug, Default)]
pub(crate) struct Resource {
    /// §2.5 lock request queue for this name.
    pub(crate) queue: BTreeMap<QueueKey, Slot>,
    /// The locks of the held lock set whose name is this name, in grant order.
    pub(crate) held: BTreeMap<GrantSeq, Slot>,
}

impl Resource {
    /// §2.5 grantable, steps 8–9: can a lock of `mode` join the current holders?
    /// (Step 7, "first in the queue", is the caller's to check.)
    pub(crate) fn compatible(&self, mode: Mode) -> bool {
        match self.held.values().next() {
            None => true,
            // An exclusive holder is always the only holder, so the first tells all.
            Some(holder) => mode == Mode::Shared && holder.mode == Mode::Shared,
        }
    }

    /// §2.5 grantable for a request that is not in the queue yet (`ifAvailable`, §4.1 step
    /// 3.5.1): step 7 fails unless the queue is empty.
    pub(crate) fn grantable_now(&self, mode: Mode) -> bool {
        self.queue.is_empty() && self.compatible(mode)
    }

    /// §4.4 step 2.1–2.2: take the head of the queue if it is grantable.
    pub(crate) fn pop_grantable(&mut self) -> Option<Slot> {
        let head = self.queue.first_key_value()?.1;
        if self.compatible(head.mode) {
            self.queue.pop_first().map(|(_, slot)| slot)
        } else {
            None
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.queue.is_empty() && self.held.is_empty()
    }
}
