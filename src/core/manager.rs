//! [`LockManager`]: the spec's lock manager (§2.2) and its algorithms (§4).

use crate::prelude::*;
use alloc::collections::VecDeque;
use alloc::rc::Rc;

use crate::FxHashMap;

use super::id_hash::IdMap;

use super::resource::{push_back, push_front, unlink, Ends, Entry, List, Resource};
use super::types::{
    AbortOutcome, Action, ClientId, Flavor, LockInfo, Mode, ReleaseOutcome, RequestError,
    RequestId, RequestState, Snapshot, Stats,
};

/// The lock manager of one origin. See the [module docs](super) for how to drive it.
#[derive(Debug, Default)]
pub struct LockManager {
    /// §2.5 lock request queue map together with the held lock set, split by name.
    /// A name is present only while it has a holder or a queued request.
    resources: FxHashMap<Rc<[u16]>, Resource>,
    /// Every pending or held request by id, with its links (see `resource.rs`).
    entries: IdMap<Entry>,
    /// Each client's live requests in request order, for §2.6.
    clients: FxHashMap<ClientId, Ends>,
    /// Every pending request in request order, and the held lock set in grant order.
    pending: Ends,
    held: Ends,
    actions: VecDeque<Action>,
    /// Counts §2.6 sweeps, to visit each affected name once without a set.
    sweeps: u64,
}

impl LockManager {
    pub fn new() -> Self {
        Self::default()
    }

    // ----- Inputs --------------------------------------------------------------------------

    /// §4.1 request a lock (the steps enqueued on the lock task queue, step 3).
    /// The API-level checks of §3.2.1 (reserved names, option combinations, aborted signal)
    /// are the caller's: every combination is well defined here.
    pub fn request(
        &mut self,
        client: ClientId,
        id: RequestId,
        name: &[u16],
        mode: Mode,
        flavor: Flavor,
    ) -> Result<(), RequestError> {
        if self.entries.contains_key(&id) {
            return Err(RequestError::DuplicateId);
        }
        // Steps 3.1–3.3: get the lock request queue for name (and its held locks).
        let name = self.intern(name);
        let resource = self.resources.get_mut(&name).expect("interned");
        match flavor {
            Flavor::Steal => {
                // Step 3.4.1: remove every held lock of this name; reject its released promise.
                let mut next = resource.held.head;
                resource.clear_holders();
                while let Some(holder) = next {
                    next = self.entries[&holder].next(List::Name);
                    let gone = self.forget(holder);
                    self.actions.push_back(Action::Stolen {
                        client: gone.client,
                        request: holder,
                    });
                }
            }
            // Step 3.5.1: ifAvailable and not grantable: callback gets null, nothing queued.
            Flavor::IfAvailable if !resource.grantable_now(mode) => {
                self.actions.push_back(Action::NotAvailable {
                    client,
                    request: id,
                });
                return Ok(());
            }
            Flavor::IfAvailable | Flavor::Queue => {}
        }
        self.entries
            .insert(id, Entry::new(client, name.clone(), mode));
        let resource = self.resources.get_mut(&name).expect("interned");
        if flavor == Flavor::Steal {
            // Step 3.4.2: prepend request in queue.
            push_front(&mut self.entries, &mut resource.queue, id, List::Name);
        } else {
            // Step 3.5.2: enqueue request in queue.
            push_back(&mut self.entries, &mut resource.queue, id, List::Name);
        }
        push_back(&mut self.entries, &mut self.pending, id, List::Order);
        let of_client = self.clients.entry(client).or_default();
        push_back(&mut self.entries, of_client, id, List::Client);
        // Step 3.6: process the lock request queue.
        self.process(&name);
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
        self.resource(&entry.name).remove_holder();
        // Step 7: process the lock request queue.
        self.process(&entry.name);
        ReleaseOutcome::Released
    }

    /// §4.3 abort the request `id` (its signal aborted before it was granted).
    pub fn abort(&mut self, id: RequestId) -> AbortOutcome {
        match self.entries.get(&id) {
            None => return AbortOutcome::Unknown,
            Some(entry) if entry.held => return AbortOutcome::AlreadyHeld,
            Some(_) => {}
        }
        // Steps 2–6: remove request from queue.
        let entry = self.forget(id);
        // Step 7: process the lock request queue (the next request may now be grantable).
        self.process(&entry.name);
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
        while let Some(id) = next {
            next = self.entries[&id].next(List::Client);
            // Step 1.1: abort the request (§4.3 step 6) / step 2.1: release the lock (§4.2
            // step 6). The client's own list is dropped whole.
            let entry = self.unlink_from_name_and_order(id);
            let sweep = self.sweeps;
            let resource = self.resource(&entry.name);
            if entry.held {
                resource.remove_holder();
            }
            if resource.swept != sweep {
                resource.swept = sweep;
                affected.push(entry.name);
            }
        }
        // §4.3 step 7 / §4.2 step 7 for every affected queue.
        for name in affected {
            self.process(&name);
        }
    }

    // ----- Recovery after a restart of the driver (not in the spec) -----------------------

    /// Re-declares a lock `client` held before a restart: held at once if it is compatible
    /// with the name's current holders (§2.5 steps 8–9), refused with
    /// [`RequestError::Conflict`] otherwise (the driver then tells the client its lock is
    /// lost, as for a steal). First come, first served.
    pub fn reclaim(
        &mut self,
        client: ClientId,
        id: RequestId,
        name: &[u16],
        mode: Mode,
    ) -> Result<(), RequestError> {
        if self.entries.contains_key(&id) {
            return Err(RequestError::DuplicateId);
        }
        let name = self.intern(name);
        if !self.resources[&name].compatible(mode) {
            return Err(RequestError::Conflict);
        }
        self.entries
            .insert(id, Entry::new(client, name.clone(), mode));
        let of_client = self.clients.entry(client).or_default();
        push_back(&mut self.entries, of_client, id, List::Client);
        self.hold(id, &name);
        Ok(())
    }

    // ----- Queries -------------------------------------------------------------------------

    /// §4.5 snapshot the lock state. The held lock set is an ordered set: `held` comes in
    /// grant order across names. Requests are enqueued as they are made: `pending` comes in
    /// request order across names (within a name that is queue order, since the only
    /// requests placed out of order, steals, are granted in the step that queues them).
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

    /// §2.5 get the lock request queue: the name's entry, created if missing.
    fn intern(&mut self, name: &[u16]) -> Rc<[u16]> {
        if let Some((key, _)) = self.resources.get_key_value(name) {
            return key.clone();
        }
        let key: Rc<[u16]> = Rc::from(name);
        self.resources.insert(key.clone(), Resource::default());
        key
    }

    fn resource(&mut self, name: &[u16]) -> &mut Resource {
        self.resources
            .get_mut(name)
            .expect("a live request's name has a resource")
    }

    /// The entries of an order list, from `head`.
    fn walk(&self, head: Option<RequestId>) -> Vec<LockInfo<'_>> {
        let mut infos = Vec::new();
        let mut next = head;
        while let Some(id) = next {
            let entry = &self.entries[&id];
            infos.push(LockInfo {
                name: &entry.name,
                mode: entry.mode,
                client: entry.client,
                request: id,
            });
            next = entry.next(List::Order);
        }
        infos
    }

    /// Takes a live request off its name's list and the manager-wide list (not its
    /// client's) and drops its entry.
    fn unlink_from_name_and_order(&mut self, id: RequestId) -> Entry {
        let (held, name) = {
            let entry = &self.entries[&id];
            (entry.held, entry.name.clone())
        };
        let resource = self
            .resources
            .get_mut(&name)
            .expect("a live request's name has a resource");
        let (of_name, order) = if held {
            (&mut resource.held, &mut self.held)
        } else {
            (&mut resource.queue, &mut self.pending)
        };
        unlink(&mut self.entries, of_name, id, List::Name);
        unlink(&mut self.entries, order, id, List::Order);
        self.entries.remove(&id).expect("checked above")
    }

    /// Takes a live request off all its lists and drops its entry (holder counts are the
    /// caller's).
    fn forget(&mut self, id: RequestId) -> Entry {
        let client = self.entries[&id].client;
        if let Some(of_client) = self.clients.get_mut(&client) {
            unlink(&mut self.entries, of_client, id, List::Client);
            if of_client.is_empty() {
                self.clients.remove(&client);
            }
        }
        self.unlink_from_name_and_order(id)
    }

    /// Steps 2.3–2.13 of §4.4 (or a reclaim): `id`, unlisted on its name and the order lists,
    /// becomes a lock, appended to the held lock set.
    fn hold(&mut self, id: RequestId, name: &[u16]) {
        let entry = self.entries.get_mut(&id).expect("a new lock has an entry");
        entry.held = true;
        let mode = entry.mode;
        let resource = self
            .resources
            .get_mut(name)
            .expect("a live request's name has a resource");
        resource.add_holder(mode);
        push_back(&mut self.entries, &mut resource.held, id, List::Name);
        push_back(&mut self.entries, &mut self.held, id, List::Order);
    }

    /// §4.4 process the lock request queue of `name`; then drop the name if nothing is
    /// left in it, so memory returns to zero.
    fn process(&mut self, name: &[u16]) {
        loop {
            let resource = self.resources.get_mut(name).expect("processed names exist");
            // Step 2.1: stop at the first request that is not grantable (only a head can be).
            let Some(head) = resource.queue.head else {
                break;
            };
            let entry = &self.entries[&head];
            if !resource.compatible(entry.mode) {
                break;
            }
            let client = entry.client;
            // Step 2.2: remove it from the queue.
            unlink(&mut self.entries, &mut resource.queue, head, List::Name);
            unlink(&mut self.entries, &mut self.pending, head, List::Order);
            // Steps 2.3–2.13: a new lock, appended to the held lock set.
            self.hold(head, name);
            // Step 2.14: the driver runs the callback in the requesting context.
            self.actions.push_back(Action::Granted {
                client,
                request: head,
            });
        }
        if self.resources.get(name).is_some_and(Resource::is_empty) {
            self.resources.remove(name);
        }
    }
}
