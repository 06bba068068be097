//! The orders the spec keeps, as intrusive doubly linked lists threaded through the live
//! requests (no tree, no sort): each request is on these lists at once —
//!
//! - for each of its names (one, or several for a scope), that name's lock request queue
//!   (§2.5) while pending, or that name's slice of the held lock set (§2.4) once granted;
//! - the manager-wide list of pending requests in request order, or of held locks in grant
//!   order (what §4.5's snapshot reports);
//! - its client's requests in request order (what §2.6 walks).
//!
//! Every operation is O(1) given the request's entry; links are [`Node`]s (a request id and,
//! on a name's list, which of its names), resolved in the manager's id map.

use alloc::boxed::Box;
use alloc::rc::Rc;

use super::entries::Entries;
use super::types::{ClientId, Mode, RequestId};

/// One request on one list: on a name's list, `slot` says which of its names (an index into
/// [`Entry::members`]); on the other lists it is 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Node {
    pub(crate) id: RequestId,
    pub(crate) slot: u32,
}

pub(crate) type Link = Option<Node>;

/// A node's neighbours on one list.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Links {
    prev: Link,
    next: Link,
}

/// Which of a request's lists.
#[derive(Clone, Copy, Debug)]
pub(crate) enum List {
    /// A name's queue or held locks (the node's slot says which name).
    Name,
    /// The manager-wide pending list or held list.
    Order,
    /// Its client's requests.
    Client,
}

/// The first and last node of a list.
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

/// A request's place on one of its names.
#[derive(Debug)]
pub(crate) struct Member {
    /// The name's [`Resource`], by its index in the manager's table.
    pub(crate) resource: u32,
    links: Links,
    /// Pending: this name does not stand in the way of the request's grant (see
    /// [`Resource::fence`]).
    pub(crate) clear: bool,
}

impl Member {
    pub(crate) fn new(resource: u32) -> Member {
        Member {
            resource,
            links: Links::default(),
            clear: false,
        }
    }
}

/// A request's members: a standard request's one in place (no allocation per request), a
/// scope's on the heap.
#[derive(Debug)]
pub(crate) enum Members {
    One([Member; 1]),
    Many(Box<[Member]>),
}

impl core::ops::Deref for Members {
    type Target = [Member];

    fn deref(&self) -> &[Member] {
        match self {
            Members::One(one) => one,
            Members::Many(many) => many,
        }
    }
}

impl core::ops::DerefMut for Members {
    fn deref_mut(&mut self) -> &mut [Member] {
        match self {
            Members::One(one) => one,
            Members::Many(many) => many,
        }
    }
}

#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) client: ClientId,
    pub(crate) mode: Mode,
    pub(crate) held: bool,
    /// Its names, sorted by code units and distinct (one for a standard request).
    pub(crate) members: Members,
    /// Pending: how many of its members are not clear; granted when it reaches 0.
    pub(crate) blocked: usize,
    order: Links,
    of_client: Links,
}

impl Entry {
    pub(crate) fn new(client: ClientId, members: Members, mode: Mode) -> Entry {
        Entry {
            client,
            mode,
            held: false,
            blocked: members.len(),
            members,
            order: Links::default(),
            of_client: Links::default(),
        }
    }

    /// The next node on `list` after this request's node `slot`.
    pub(crate) fn next(&self, list: List, slot: u32) -> Link {
        self.links(list, slot).next
    }

    fn links(&self, list: List, slot: u32) -> &Links {
        match list {
            List::Name => &self.members[slot as usize].links,
            List::Order => &self.order,
            List::Client => &self.of_client,
        }
    }

    fn links_mut(&mut self, list: List, slot: u32) -> &mut Links {
        match list {
            List::Name => &mut self.members[slot as usize].links,
            List::Order => &mut self.order,
            List::Client => &mut self.of_client,
        }
    }
}

fn links(entries: &mut Entries, node: Node, list: List) -> &mut Links {
    entries
        .get_mut(&node.id)
        .expect("a linked request has an entry")
        .links_mut(list, node.slot)
}

/// Appends `node` (whose entry exists) to `ends`.
pub(crate) fn push_back(entries: &mut Entries, ends: &mut Ends, node: Node, list: List) {
    *links(entries, node, list) = Links {
        prev: ends.tail,
        next: None,
    };
    match ends.tail {
        Some(tail) => links(entries, tail, list).next = Some(node),
        None => ends.head = Some(node),
    }
    ends.tail = Some(node);
}

/// Prepends `node` (whose entry exists) to `ends`.
pub(crate) fn push_front(entries: &mut Entries, ends: &mut Ends, node: Node, list: List) {
    *links(entries, node, list) = Links {
        prev: None,
        next: ends.head,
    };
    match ends.head {
        Some(head) => links(entries, head, list).prev = Some(node),
        None => ends.tail = Some(node),
    }
    ends.head = Some(node);
}

/// Removes `node` (whose entry exists) from `ends`.
pub(crate) fn unlink(entries: &mut Entries, ends: &mut Ends, node: Node, list: List) {
    let Links { prev, next } = core::mem::take(links(entries, node, list));
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
    pub(crate) name: Rc<[u16]>,
    /// The name's hash, under which the manager's index has it.
    pub(crate) hash: u32,
    pub(crate) queue: Ends,
    pub(crate) held: Ends,
    /// How many locks of this name are held, and their mode (all share it: an exclusive
    /// holder is always alone).
    holders: u32,
    holder_mode: Option<Mode>,
    /// Exclusive requests in the queue (a shared `ifAvailable` needs none before it).
    pub(crate) queued_exclusive: u32,
    /// The first queued request this name holds back, or `None` if it holds back none.
    /// Every request before it is *clear* on this name: it would be granted if this were its
    /// only name. The clear ones are a prefix of the queue: nothing while an exclusive lock
    /// is held; else the head alone if it is exclusive and nothing is held; else the run of
    /// shared requests from the head to the first exclusive one. With standard requests
    /// only, a clear request is granted at once; a scope waits until clear on all its names.
    pub(crate) fence: Link,
    /// The last §2.6 sweep that found this name affected (see `client_gone`).
    pub(crate) swept: u64,
}

impl Resource {
    pub(crate) fn new(name: Rc<[u16]>, hash: u32) -> Resource {
        Resource {
            name,
            hash,
            ..Resource::default()
        }
    }

    /// §2.5 grantable, steps 8–9: can a lock of `mode` join the current holders?
    pub(crate) fn compatible(&self, mode: Mode) -> bool {
        match self.holder_mode {
            None => true,
            Some(holders) => mode == Mode::Shared && holders == Mode::Shared,
        }
    }

    /// Grantable for a request that is not in the queue yet (`ifAvailable`, §4.1 step
    /// 3.5.1): compatible with the holders, and — the scopes draft's rule, which for a
    /// standard request is §2.5 step 7 — no queued request before it that it must follow:
    /// none at all for an exclusive request, no exclusive one for a shared request.
    pub(crate) fn grantable_now(&self, mode: Mode) -> bool {
        let queue_allows = match mode {
            Mode::Exclusive => self.queue.is_empty(),
            Mode::Shared => self.queued_exclusive == 0,
        };
        queue_allows && self.compatible(mode)
    }

    /// Whether the queued request `node` of `mode`, which has only clear requests before it,
    /// is clear too (see [`Resource::fence`]); `head_mode` gives the queue's first request's
    /// mode, asked only when `node` is not first.
    pub(crate) fn admits(&self, node: Node, mode: Mode, head_mode: impl FnOnce() -> Mode) -> bool {
        let is_head = self.queue.head == Some(node);
        match mode {
            Mode::Exclusive => is_head && self.holder_mode.is_none(),
            Mode::Shared => self.compatible(mode) && (is_head || head_mode() == Mode::Shared),
        }
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

    pub(crate) fn is_empty(&self) -> bool {
        self.queue.is_empty() && self.holders == 0
    }
}
