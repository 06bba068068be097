//! [`LockManager`]: the spec's lock manager (§2.2) and its algorithms (§4), with the scopes
//! of the early draft (early-draft-lock-scopes.md) as an extension: a request may name
//! several resources, granted atomically.

use crate::prelude::*;
use alloc::rc::Rc;

use crate::fifo::Fifo;
use crate::table::Table;

use super::entries::Entries;
use super::index::Index;

use super::resource::{
    push_back, push_front, unlink, Ends, Entry, Link, List, Member, Members, Node, Resource,
};
use super::types::{
    AbortOutcome, Action, ClientId, Flavor, LockInfo, Mode, ReleaseOutcome, RequestError,
    RequestId, RequestState, Snapshot, Stats,
};

/// The lock manager of one origin. See the [module docs](super) for how to drive it.
///
/// Scheduling is §2.5's for standard requests. A scope (a request of several names) follows
/// the draft's grantable rule, which for a single name is §2.5's: an exclusive request is
/// grantable when no lock is held on any of its names and no request queued before it names
/// any of them; a shared one when no exclusive lock is held on any of its names and no
/// exclusive request queued before it names any of them. A request waits in the queue of
/// every one of its names; each name keeps track of which of its queued requests it does not
/// hold back (see [`Resource::fence`]), and a request is granted when none of its names holds
/// it back, so no operation looks at names other than the ones it touches.
#[derive(Debug, Default)]
pub struct LockManager {
    /// §2.5 lock request queue map together with the held lock set, split by name: each
    /// name's [`Resource`] by its index in `slots`. A name is present only while it has a
    /// holder or a queued request; requests refer to their names' resources by index, so
    /// only `intern` and `find` hash a name.
    resources: Index,
    slots: Vec<Resource>,
    /// Indices of unused `slots`.
    free: Vec<u32>,
    /// Every pending or held request by id, with its links (see `resource.rs`).
    entries: Entries,
    /// Each client's live requests in request order, for §2.6 (contexts are few: a table).
    clients: Table<ClientId, Ends>,
    /// Every pending request in request order, and the held lock set in grant order.
    pending: Ends,
    held: Ends,
    /// Requests no name holds back any more, to be granted in this order.
    ready: Vec<RequestId>,
    actions: Fifo<Action>,
    /// Counts sweeps over names (§2.6, steals), to visit each affected name once.
    sweeps: u64,
}

/// A name's hash: FNV-1a over its code units, then mixed so that the low bits (an index's
/// bucket) depend on every unit.
fn name_hash(name: &[u16]) -> u32 {
    let mut hash = 0x811C_9DC5_u32;
    for &unit in name {
        hash = (hash ^ u32::from(unit)).wrapping_mul(0x0100_0193);
    }
    hash = (hash ^ (hash >> 15)).wrapping_mul(0x2C1B_3C6D);
    hash ^ (hash >> 12)
}

/// A request's node on the manager-wide and client lists.
fn whole(id: RequestId) -> Node {
    Node { id, slot: 0 }
}

impl LockManager {
    pub fn new() -> Self {
        Self::default()
    }

    // ----- Inputs --------------------------------------------------------------------------

    /// §4.1 request a lock (the steps enqueued on the lock task queue, step 3).
    /// The API-level checks of §3.2.1 (reserved names, option combinations, aborted signal)
    /// are the caller's ([`crate::protocol::flavor`] for the worker). A steal must be
    /// exclusive (step 7): a shared steal of a scope would make a request ready once per
    /// name it shares with the steal, granting it twice.
    pub fn request(
        &mut self,
        client: ClientId,
        id: RequestId,
        name: &[u16],
        mode: Mode,
        flavor: Flavor,
    ) -> Result<(), RequestError> {
        self.request_scope(client, id, &[name], mode, flavor)
    }

    /// §4.1 for a scope: `names` (each a name's code units) sorted by code units and distinct
    /// (else [`RequestError::InvalidScope`]), granted together. One name is a standard request.
    pub fn request_scope<N: AsRef<[u16]>>(
        &mut self,
        client: ClientId,
        id: RequestId,
        names: &[N],
        mode: Mode,
        flavor: Flavor,
    ) -> Result<(), RequestError> {
        debug_assert!(
            flavor != Flavor::Steal || mode == Mode::Exclusive,
            "§3.2.1 step 7: the caller refuses a shared steal"
        );
        self.check(id, names)?;
        let mut affected = Vec::new();
        match flavor {
            // Steps 3.5.2–3.6 for a request grantable at once: enqueued and granted by the
            // processing of the queue in the same step, so it goes straight to the held set.
            Flavor::IfAvailable | Flavor::Queue if self.grantable_now(names, mode) => {
                self.insert(client, id, names, mode);
                self.hold(id);
                self.actions.push_back(Action::Granted {
                    client,
                    request: id,
                });
                return Ok(());
            }
            // Step 3.5.1: ifAvailable and not grantable: callback gets null, nothing queued.
            Flavor::IfAvailable => {
                self.actions.push_back(Action::NotAvailable {
                    client,
                    request: id,
                });
                return Ok(());
            }
            Flavor::Queue => {}
            // Step 3.4.1: remove every held lock of these names (all of a stolen scope's);
            // reject its released promise.
            Flavor::Steal => {
                self.sweeps += 1;
                for name in names {
                    while let Some(holder) = self.find(name.as_ref()).and_then(|r| r.held.head) {
                        let gone = self.forget(holder.id);
                        self.mark_affected(&gone, &mut affected);
                        self.actions.push_back(Action::Stolen {
                            client: gone.client,
                            request: holder.id,
                        });
                    }
                }
            }
        }
        self.insert(client, id, names, mode);
        push_back(&mut self.entries, &mut self.pending, whole(id), List::Order);
        for slot in 0..names.len() {
            let index = self.entries[&id].members[slot].resource;
            let node = Node {
                id,
                slot: slot as u32,
            };
            let resource = &mut self.slots[index as usize];
            if mode == Mode::Exclusive {
                resource.queued_exclusive += 1;
            }
            if flavor == Flavor::Steal {
                // Step 3.4.2: prepend request in queue.
                push_front(&mut self.entries, &mut resource.queue, node, List::Name);
                self.reset(index);
            } else {
                // Step 3.5.2: enqueue request in queue.
                push_back(&mut self.entries, &mut resource.queue, node, List::Name);
                if resource.fence.is_none() {
                    resource.fence = Some(node);
                }
                // Step 3.6: process the lock request queue.
                self.grow(index);
            }
        }
        self.grant_ready();
        // The stolen locks' other names (§4.2 step 7 for each).
        self.process(affected.into_iter());
        Ok(())
    }

    /// §4.2 release the lock `id` (its waiting promise settled).
    pub fn release(&mut self, id: RequestId) -> ReleaseOutcome {
        match self.entries.get(&id) {
            None => return ReleaseOutcome::Unknown,
            Some(entry) if !entry.held => return ReleaseOutcome::NotHeld,
            Some(_) => {}
        }
        // Steps 2–6: remove lock from the held lock set.
        let entry = self.forget(id);
        // Step 7: process the lock request queue (of each name).
        self.process(entry.members.iter().map(|member| member.resource));
        ReleaseOutcome::Released
    }

    /// §4.3 abort the request `id` (its signal aborted before it was granted).
    pub fn abort(&mut self, id: RequestId) -> AbortOutcome {
        match self.entries.get(&id) {
            None => return AbortOutcome::Unknown,
            Some(entry) if entry.held => return AbortOutcome::AlreadyHeld,
            Some(_) => {}
        }
        // Steps 2–6: remove request from queue (of each name).
        let entry = self.forget(id);
        // Step 7: process the lock request queue (the next request may now be grantable).
        self.process(entry.members.iter().map(|member| member.resource));
        AbortOutcome::Removed
    }

    /// §2.6 terminate remaining locks and requests of `client`, as one step: step 1 (abort
    /// every request) and step 2 (release every lock) both happen before any queue is
    /// processed, so none of the client's own requests is granted on its way out. Affected
    /// queues are then processed in the order of the client's first request on each.
    pub fn client_gone(&mut self, client: ClientId) {
        let Some(of_client) = self.clients.remove(&client) else {
            return;
        };
        self.sweeps += 1;
        let mut affected = Vec::new();
        let mut next = of_client.head;
        while let Some(node) = next {
            next = self.entries[&node.id].next(List::Client, 0);
            // Step 1.1: abort the request (§4.3 step 6) / step 2.1: release the lock (§4.2
            // step 6). The client's own list is dropped whole.
            let entry = self.unlink_from_names_and_order(node.id);
            self.mark_affected(&entry, &mut affected);
        }
        // §4.3 step 7 / §4.2 step 7 for every affected queue.
        self.process(affected.into_iter());
    }

    // ----- Recovery after a restart of the driver (not in the spec) -----------------------

    /// Re-declares a lock `client` held before a restart: held at once if it is compatible
    /// with the current holders of each of its names (§2.5 steps 8–9), refused with
    /// [`RequestError::Conflict`] otherwise (the driver then tells the client its lock is
    /// lost, as for a steal). First come, first served.
    pub fn reclaim<N: AsRef<[u16]>>(
        &mut self,
        client: ClientId,
        id: RequestId,
        names: &[N],
        mode: Mode,
    ) -> Result<(), RequestError> {
        self.check(id, names)?;
        let compatible = |name: &N| {
            self.find(name.as_ref())
                .is_none_or(|resource| resource.compatible(mode))
        };
        if !names.iter().all(compatible) {
            return Err(RequestError::Conflict);
        }
        self.insert(client, id, names, mode);
        self.hold(id);
        // The new holder may hold back queued requests that were clear.
        for slot in 0..names.len() {
            self.reset(self.entries[&id].members[slot].resource);
        }
        self.grant_ready();
        Ok(())
    }

    // ----- Queries -------------------------------------------------------------------------

    /// §4.5 snapshot the lock state. The held lock set is an ordered set: `held` comes in
    /// grant order across names. Requests are enqueued as they are made: `pending` comes in
    /// request order across names (within a name that is queue order, since the only
    /// requests placed out of order, steals, are granted in the step that queues them).
    /// A scope is one entry per name, consecutive, its names in order.
    pub fn snapshot(&self) -> Snapshot<'_> {
        Snapshot {
            held: self.walk(self.held.head),
            pending: self.walk(self.pending.head),
        }
    }

    /// Whether request `id` is pending or held, and by which client.
    pub fn state(&self, id: RequestId) -> Option<(ClientId, RequestState)> {
        self.entries.get(&id).map(|entry| {
            let state = if entry.held {
                RequestState::Held
            } else {
                RequestState::Pending
            };
            (entry.client, state)
        })
    }

    /// Sizes of the tables: all zero once every lock is released and every client gone.
    pub fn stats(&self) -> Stats {
        Stats {
            names: self.resources.len(),
            requests: self.entries.len(),
            clients: self.clients.len(),
        }
    }

    // ----- Outputs -------------------------------------------------------------------------

    /// The next action the driver must carry out, in the order the inputs caused them.
    #[must_use]
    pub fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    // ----- Internals -----------------------------------------------------------------------

    /// The input checks of `request_scope` and `reclaim`.
    fn check<N: AsRef<[u16]>>(&self, id: RequestId, names: &[N]) -> Result<(), RequestError> {
        if self.entries.contains_key(&id) {
            return Err(RequestError::DuplicateId);
        }
        let unordered = |pair: &[N]| pair[0].as_ref() >= pair[1].as_ref();
        if names.is_empty() || names.windows(2).any(unordered) {
            return Err(RequestError::InvalidScope);
        }
        Ok(())
    }

    /// A new live request of `client` (steps 3.1–3.3: the lock request queue of each name),
    /// on its client's list, on no other list yet.
    fn insert<N: AsRef<[u16]>>(
        &mut self,
        client: ClientId,
        id: RequestId,
        names: &[N],
        mode: Mode,
    ) {
        let members = if let [name] = names {
            Members::One([Member::new(self.intern(name.as_ref()))])
        } else {
            let mut members = Vec::with_capacity(names.len());
            for name in names {
                members.push(Member::new(self.intern(name.as_ref())));
            }
            Members::Many(members.into_boxed_slice())
        };
        self.entries.insert(id, Entry::new(client, members, mode));
        let of_client = self.clients.get_or_default(client);
        push_back(&mut self.entries, of_client, whole(id), List::Client);
    }

    /// §2.5 get the lock request queue: the name's resource, created if missing.
    fn intern(&mut self, name: &[u16]) -> u32 {
        let hash = name_hash(name);
        if let Some(index) = self.lookup(hash, name) {
            return index;
        }
        let resource = Resource::new(Rc::from(name), hash);
        let index = match self.free.pop() {
            Some(index) => {
                self.slots[index as usize] = resource;
                index
            }
            None => {
                self.slots.push(resource);
                (self.slots.len() - 1) as u32
            }
        };
        self.resources.insert(hash, index);
        index
    }

    /// The index of the resource of `name`, whose hash is `hash`, if it has one.
    fn lookup(&self, hash: u32, name: &[u16]) -> Option<u32> {
        self.resources
            .find(hash, |index| *self.slots[index as usize].name == *name)
    }

    /// The name's resource, if it has one.
    fn find(&self, name: &[u16]) -> Option<&Resource> {
        let index = self.lookup(name_hash(name), name)?;
        Some(&self.slots[index as usize])
    }

    /// §4.1 step 3.5.1's "grantable" for a request not yet queued, on every name.
    fn grantable_now<N: AsRef<[u16]>>(&self, names: &[N], mode: Mode) -> bool {
        names.iter().all(|name| {
            self.find(name.as_ref())
                .is_none_or(|r| r.grantable_now(mode))
        })
    }

    /// The entries of an order list, from `head`, one per name.
    fn walk(&self, head: Link) -> Vec<LockInfo<'_>> {
        let mut infos = Vec::new();
        let mut next = head;
        while let Some(node) = next {
            let entry = &self.entries[&node.id];
            let last = entry.members.len() - 1;
            for (slot, member) in entry.members.iter().enumerate() {
                infos.push(LockInfo {
                    name: &self.slots[member.resource as usize].name,
                    mode: entry.mode,
                    client: entry.client,
                    request: node.id,
                    more: slot < last,
                });
            }
            next = entry.next(List::Order, 0);
        }
        infos
    }

    /// Notes, once per sweep, the names of a request just taken off its lists.
    fn mark_affected(&mut self, entry: &Entry, affected: &mut Vec<u32>) {
        for member in entry.members.iter() {
            let resource = &mut self.slots[member.resource as usize];
            if resource.swept != self.sweeps {
                resource.swept = self.sweeps;
                affected.push(member.resource);
            }
        }
    }

    /// Takes a live request off its names' lists and the manager-wide list (not its
    /// client's), updates the holder counts, and drops its entry.
    fn unlink_from_names_and_order(&mut self, id: RequestId) -> Entry {
        let entry = &self.entries[&id];
        let (held, mode, names) = (entry.held, entry.mode, entry.members.len());
        for slot in 0..names {
            let node = Node {
                id,
                slot: slot as u32,
            };
            let index = self.entries[&id].members[slot].resource;
            let resource = &mut self.slots[index as usize];
            if held {
                unlink(&mut self.entries, &mut resource.held, node, List::Name);
                resource.remove_holder();
            } else {
                if resource.fence == Some(node) {
                    resource.fence = self.entries[&id].next(List::Name, node.slot);
                }
                if mode == Mode::Exclusive {
                    resource.queued_exclusive -= 1;
                }
                unlink(&mut self.entries, &mut resource.queue, node, List::Name);
            }
        }
        let order = if held {
            &mut self.held
        } else {
            &mut self.pending
        };
        unlink(&mut self.entries, order, whole(id), List::Order);
        self.entries.remove(&id).expect("checked above")
    }

    /// Takes a live request off all its lists and drops its entry.
    fn forget(&mut self, id: RequestId) -> Entry {
        let client = self.entries[&id].client;
        if let Some(of_client) = self.clients.get_mut(&client) {
            unlink(&mut self.entries, of_client, whole(id), List::Client);
            if of_client.is_empty() {
                self.clients.remove(&client);
            }
        }
        self.unlink_from_names_and_order(id)
    }

    /// Steps 2.3–2.13 of §4.4 (or a reclaim): `id`, off its queues and the pending list,
    /// becomes a lock on each of its names, appended to the held lock set.
    fn hold(&mut self, id: RequestId) {
        let entry = self.entries.get_mut(&id).expect("a new lock has an entry");
        entry.held = true;
        let mode = entry.mode;
        for slot in 0..entry.members.len() {
            let index = self.entries[&id].members[slot].resource;
            let resource = &mut self.slots[index as usize];
            resource.add_holder(mode);
            let node = Node {
                id,
                slot: slot as u32,
            };
            push_back(&mut self.entries, &mut resource.held, node, List::Name);
        }
        push_back(&mut self.entries, &mut self.held, whole(id), List::Order);
    }

    /// §4.4 step 2.1 for the requests `name` holds back, from its fence: each that is now
    /// clear on `name` stops being held back by it; one clear on all its names is ready.
    fn grow(&mut self, index: u32) {
        let resource = &mut self.slots[index as usize];
        while let Some(node) = resource.fence {
            let head = resource.queue.head.expect("a fence is in the queue");
            let mode = self.entries[&node.id].mode;
            if !resource.admits(node, mode, || self.entries[&head.id].mode) {
                break;
            }
            let entry = self.entries.get_mut(&node.id).expect("queued");
            entry.members[node.slot as usize].clear = true;
            entry.blocked -= 1;
            if entry.blocked == 0 {
                self.ready.push(node.id);
            }
            resource.fence = entry.next(List::Name, node.slot);
        }
    }

    /// Recomputes from the head which queued requests `name` holds back, after a change
    /// that may hold back requests that were clear (a steal's request put first, a
    /// reclaimed lock).
    fn reset(&mut self, index: u32) {
        let resource = &mut self.slots[index as usize];
        let old_fence = resource.fence;
        let mut next = resource.queue.head;
        resource.fence = next;
        while next != old_fence {
            let node = next.expect("the old fence is further on");
            let entry = self.entries.get_mut(&node.id).expect("queued");
            let member = &mut entry.members[node.slot as usize];
            if member.clear {
                member.clear = false;
                entry.blocked += 1;
            }
            next = entry.next(List::Name, node.slot);
        }
        self.grow(index);
    }

    /// §4.4 steps 2.2–2.14 for every ready request, in the order they became ready.
    fn grant_ready(&mut self) {
        // Granting never makes another request ready: the list is walked in place and kept,
        // with its capacity, for the next time.
        let ready = core::mem::take(&mut self.ready);
        for &id in &ready {
            let entry = &self.entries[&id];
            debug_assert_eq!(entry.blocked, 0, "only requests clear on every name");
            let (client, mode) = (entry.client, entry.mode);
            // Step 2.2: remove it from the queue (of each name).
            for slot in 0..entry.members.len() {
                let index = self.entries[&id].members[slot].resource;
                let resource = &mut self.slots[index as usize];
                if mode == Mode::Exclusive {
                    resource.queued_exclusive -= 1;
                }
                let node = Node {
                    id,
                    slot: slot as u32,
                };
                unlink(&mut self.entries, &mut resource.queue, node, List::Name);
            }
            unlink(&mut self.entries, &mut self.pending, whole(id), List::Order);
            // Steps 2.3–2.13: a new lock, appended to the held lock set.
            self.hold(id);
            // Step 2.14: the driver runs the callback in the requesting context.
            self.actions.push_back(Action::Granted {
                client,
                request: id,
            });
        }
        self.ready = ready;
        self.ready.clear();
    }

    /// §4.4 process the lock request queues of `names`, in order; then drop each name with
    /// nothing left in it, so memory returns to zero.
    fn process(&mut self, names: impl Iterator<Item = u32> + Clone) {
        for index in names.clone() {
            self.grow(index);
        }
        self.grant_ready();
        for index in names {
            self.drop_if_empty(index);
        }
    }

    /// Drops the name at `index` if nothing is left in it. (Not inlined: `process` has one
    /// copy per kind of name list, this body one in all.)
    #[inline(never)]
    fn drop_if_empty(&mut self, index: u32) {
        let resource = &mut self.slots[index as usize];
        if resource.is_empty() && !resource.name.is_empty() {
            self.resources.remove(resource.hash, index);
            *resource = Resource::default();
            self.free.push(index);
        }
    }
}
