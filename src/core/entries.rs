//! The live requests by id: a slab of entries (a freed slot is reused first) and an
//! [`Index`] from ids to slots.

use crate::prelude::*;

use super::index::Index;
use super::resource::Entry;
use super::types::RequestId;

#[derive(Debug)]
struct Slot {
    id: RequestId,
    entry: Option<Entry>,
}

#[derive(Debug, Default)]
pub(crate) struct Entries {
    slots: Vec<Slot>,
    /// Indices of empty `slots`.
    free: Vec<u32>,
    index: Index,
}

/// An id's hash: Fibonacci hashing, so that ids counting up spread over the whole index.
fn hash(id: RequestId) -> u32 {
    (id.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32
}

impl Entries {
    fn slot(&self, id: RequestId) -> Option<u32> {
        self.index
            .find(hash(id), |at| self.slots[at as usize].id == id)
    }

    pub(crate) fn len(&self) -> usize {
        self.index.len()
    }

    pub(crate) fn contains_key(&self, id: &RequestId) -> bool {
        self.slot(*id).is_some()
    }

    pub(crate) fn get(&self, id: &RequestId) -> Option<&Entry> {
        let at = self.slot(*id)?;
        self.slots[at as usize].entry.as_ref()
    }

    pub(crate) fn get_mut(&mut self, id: &RequestId) -> Option<&mut Entry> {
        let at = self.slot(*id)?;
        self.slots[at as usize].entry.as_mut()
    }

    /// Adds the entry of `id`, which has none.
    pub(crate) fn insert(&mut self, id: RequestId, entry: Entry) {
        let slot = Slot {
            id,
            entry: Some(entry),
        };
        let at = match self.free.pop() {
            Some(at) => {
                self.slots[at as usize] = slot;
                at
            }
            None => {
                self.slots.push(slot);
                (self.slots.len() - 1) as u32
            }
        };
        self.index.insert(hash(id), at);
    }

    pub(crate) fn remove(&mut self, id: &RequestId) -> Option<Entry> {
        let at = self.slot(*id)?;
        self.index.remove(hash(*id), at);
        self.free.push(at);
        self.slots[at as usize].entry.take()
    }
}

impl core::ops::Index<&RequestId> for Entries {
    type Output = Entry;

    fn index(&self, id: &RequestId) -> &Entry {
        self.get(id).expect("a live request has an entry")
    }
}
