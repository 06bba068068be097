//! The orders the spec keeps, as intrusive doubly linked lists threaded through the live
//! requests (no tree, no sort): each request is on three lists at once —
//!
//! - its name's lock request queue (§2.5) while pending, or its name's slice of the held
//!   lock set (§2.4) once granted;
//! - the manager-wide list of pending requests in request order, or of held locks in grant
//!   order (what §4.5's snapshot reports);
//! - its client's requests in request order (what §2.6 walks).
//!
//! Every operation is O(1) given the request's entry; links are request ids, resolved in the
//! manager's id map.

use super::id_hash::IdMap;
use super::types::{ClientId, Mode, RequestId};

pub(crate) type Link = Option<RequestId>;

/// A request's neighbours on one list.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Links {
    prev: Link,
    next: Link,
}

/// Which of a request's three lists.
#[derive(Clone, Copy, Debug)]
pub(crate) enum List {
    /// Its name's queue or held locks.
    Name,
    /// The manager-wide pending list or held list.
    Order,
    /// Its client's requests.
    Client,
}

/// The first and last request of a list.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ends {
    pub(crate) head: Link,
    tail: Link,
}

impl Ends {
    pub(crate) fn is_empty(&self) -> bool {
        self.head.is_none()
    }
}

#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) client: ClientId,
    pub(crate) name: alloc::rc::Rc<[u16]>,
    pub(crate) mode: Mode,
    pub(crate) held: bool,
    links: [Links; 3],
}

impl Entry {
    pub(crate) fn new(client: ClientId, name: alloc::rc::Rc<[u16]>, mode: Mode) -> Entry {
        Entry {
            client,
            name,
            mode,
            held: false,
            links: [Links::default(); 3],
        }
    }

    /// The next request on `list` after this one.
    pub(crate) fn next(&self, list: List) -> Link {
        self.links[list as usize].next
    }
}

fn links(entries: &mut IdMap<Entry>, id: RequestId, list: List) -> &mut Links {
    &mut entries
        .get_mut(&id)
        .expect("a linked request has an entry")
        .links[list as usize]
}

/// Appends `id` (whose entry exists) to `ends`.
pub(crate) fn push_back(entries: &mut IdMap<Entry>, ends: &mut Ends, id: RequestId, list: List) {
    *links(entries, id, list) = Links {
        prev: ends.tail,
        next: None,
    };
    match ends.tail {
        Some(tail) => links(entries, tail, list).next = Some(id),
        None => ends.head = Some(id),
    }
    ends.tail = Some(id);
}

/// Prepends `id` (whose entry exists) to `ends`.
pub(crate) fn push_front(entries: &mut IdMap<Entry>, ends: &mut Ends, id: RequestId, list: List) {
    *links(entries, id, list) = Links {
        prev: None,
        next: ends.head,
    };
    match ends.head {
        Some(head) => links(entries, head, list).prev = Some(id),
        None => ends.tail = Some(id),
    }
    ends.head = Some(id);
}

/// Removes `id` (whose entry exists) from `ends`.
pub(crate) fn unlink(entries: &mut IdMap<Entry>, ends: &mut Ends, id: RequestId, list: List) {
    let Links { prev, next } = core::mem::take(links(entries, id, list));
    match prev {
        Some(prev) => links(entries, prev, list).next = next,
        None => ends.head = next,
    }
    match next {
        Some(next) => links(entries, next, list).prev = prev,
        None => ends.tail = prev,
    }
}

/// One resource name: its lock request queue (§2.5) and its slice of the held lock set.
#[derive(Debug, Default)]
pub(crate) struct Resource {
    pub(crate) queue: Ends,
    pub(crate) held: Ends,
    /// How many locks of this name are held, and their mode (all share it: an exclusive
    /// holder is always alone).
    holders: u32,
    holder_mode: Option<Mode>,
    /// The last §2.6 sweep that found this name affected (see `client_gone`).
    pub(crate) swept: u64,
}

impl Resource {
    /// §2.5 grantable, steps 8–9: can a lock of `mode` join the current holders?
    /// (Step 7, "first in the queue", is the caller's to check.)
    pub(crate) fn compatible(&self, mode: Mode) -> bool {
        match self.holder_mode {
            None => true,
            Some(holders) => mode == Mode::Shared && holders == Mode::Shared,
        }
    }

    /// §2.5 grantable for a request that is not in the queue yet (`ifAvailable`, §4.1 step
    /// 3.5.1): step 7 fails unless the queue is empty.
    pub(crate) fn grantable_now(&self, mode: Mode) -> bool {
        self.queue.is_empty() && self.compatible(mode)
    }

    pub(crate) fn add_holder(&mut self, mode: Mode) {
        self.holders += 1;
        self.holder_mode = Some(mode);
    }

    pub(crate) fn remove_holder(&mut self) {
        self.holders -= 1;
        if self.holders == 0 {
            self.holder_mode = None;
        }
    }

    /// Every holder is being removed (a steal); the caller unlinks them.
    pub(crate) fn clear_holders(&mut self) {
        self.holders = 0;
        self.holder_mode = None;
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.queue.is_empty() && self.holders == 0
    }
}
