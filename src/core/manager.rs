//! [`LockManager`]: the spec's lock manager (§2.2) and its algorithms (§4).

use std::collections::VecDeque;
use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::id_hash::IdMap;

use super::resource::{GrantSeq, QueueKey, Resource, Slot};
use super::types::{
    AbortOutcome, Action, ClientId, Flavor, LockInfo, Mode, ReleaseOutcome, RequestError,
    RequestId, RequestState, Snapshot, Stats,
};

/// Where a live request is: in its name's queue, or in the held lock set.
#[derive(Clone, Copy, Debug)]
enum Place {
    Pending(QueueKey),
    Held(GrantSeq),
}

#[derive(Debug)]
struct Entry {
    client: ClientId,
    name: Rc<[u16]>,
    place: Place,
}

/// The lock manager of one origin. See the [module docs](super) for how to drive it.
#[derive(Debug)]
pub struct LockManager {
    /// §2.5 lock request queue map together with the held lock set, split by name.
    /// A name is present only while it has a holder or a queued request.
    resources: FxHashMap<Rc<[u16]>, Resource>,
    /// Every pending or held request by id, so release and abort find it without a scan.
    entries: IdMap<Entry>,
    /// Each client's live requests, for §2.6.
    clients: FxHashMap<ClientId, FxHashSet<RequestId>>,
    actions: VecDeque<Action>,
    next_back: QueueKey,
    next_front: QueueKey,
    next_grant: GrantSeq,
}

impl Default for LockManager {
    fn default() -> Self {
        Self::new()
    }
}

impl LockManager {
    pub fn new() -> Self {
        LockManager {
            resources: FxHashMap::default(),
            entries: IdMap::default(),
            clients: FxHashMap::default(),
            actions: VecDeque::new(),
            next_back: 0,
            next_front: -1,
            next_grant: 0,
        }
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
        let slot = Slot {
            request: id,
            client,
            mode,
        };
        let key = match flavor {
            Flavor::Steal => {
                // Step 3.4.1: remove every held lock of this name; reject its released promise.
                for (_, holder) in std::mem::take(&mut resource.held) {
                    self.entries.remove(&holder.request);
                    forget(&mut self.clients, holder.client, holder.request);
                    self.actions.push_back(Action::Stolen {
                        client: holder.client,
                        request: holder.request,
                    });
                }
                // Step 3.4.2: prepend request in queue.
                let key = self.next_front;
                self.next_front -= 1;
                key
            }
            // Step 3.5.1: ifAvailable and not grantable: callback gets null, nothing queued.
            Flavor::IfAvailable if !resource.grantable_now(mode) => {
                self.actions.push_back(Action::NotAvailable {
                    client,
                    request: id,
                });
                return Ok(());
            }
            Flavor::IfAvailable | Flavor::Queue => {
                // Step 3.5.2: enqueue request in queue.
                let key = self.next_back;
                self.next_back += 1;
                key
            }
        };
        resource.queue.insert(key, slot);
        self.track(id, client, name.clone(), Place::Pending(key));
        // Step 3.6: process the lock request queue.
        self.process(&name);
        Ok(())
    }

    /// §4.2 release the lock `id` (its waiting promise settled).
    pub fn release(&mut self, id: RequestId) -> ReleaseOutcome {
        let seq = match self.entries.get(&id) {
            None => return ReleaseOutcome::Unknown,
            Some(Entry {
                place: Place::Pending(_),
                ..
            }) => return ReleaseOutcome::NotHeld,
            Some(Entry {
                place: Place::Held(seq),
                ..
            }) => *seq,
        };
        let entry = self.take_entry(id);
        // Steps 2–6: remove lock from the held lock set.
        self.resource(&entry.name).held.remove(&seq);
        // Step 7: process the lock request queue.
        self.process(&entry.name);
        ReleaseOutcome::Released
    }

    /// §4.3 abort the request `id` (its signal aborted before it was granted).
    pub fn abort(&mut self, id: RequestId) -> AbortOutcome {
        let key = match self.entries.get(&id) {
            None => return AbortOutcome::Unknown,
            Some(Entry {
                place: Place::Held(_),
                ..
            }) => return AbortOutcome::AlreadyHeld,
            Some(Entry {
                place: Place::Pending(key),
                ..
            }) => *key,
        };
        let entry = self.take_entry(id);
        // Steps 2–6: remove request from queue.
        self.resource(&entry.name).queue.remove(&key);
        // Step 7: process the lock request queue (the next request may now be grantable).
        self.process(&entry.name);
        AbortOutcome::Removed
    }

    /// §2.6 terminate remaining locks and requests of `client`, as one step: step 1 (abort
    /// every request) and step 2 (release every lock) both happen before any queue is
    /// processed, so none of the client's own requests is granted on its way out. Affected
    /// queues are then processed in name order.
    pub fn client_gone(&mut self, client: ClientId) {
        let Some(ids) = self.clients.remove(&client) else {
            return;
        };
        let mut ids: Vec<RequestId> = ids.into_iter().collect();
        ids.sort_unstable();
        let mut affected = Vec::with_capacity(ids.len());
        for id in ids {
            let entry = self
                .entries
                .remove(&id)
                .expect("client's request has an entry");
            let resource = self.resource(&entry.name);
            match entry.place {
                // Step 1.1: abort the request (§4.3 step 6).
                Place::Pending(key) => resource.queue.remove(&key),
                // Step 2.1: release the lock (§4.2 step 6).
                Place::Held(seq) => resource.held.remove(&seq),
            };
            affected.push(entry.name);
        }
        affected.sort_unstable();
        affected.dedup();
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
        let resource = self.resources.get_mut(&name).expect("interned");
        if !resource.compatible(mode) {
            return Err(RequestError::Conflict);
        }
        let seq = self.next_grant;
        self.next_grant += 1;
        resource.held.insert(
            seq,
            Slot {
                request: id,
                client,
                mode,
            },
        );
        self.track(id, client, name, Place::Held(seq));
        Ok(())
    }

    // ----- Queries -------------------------------------------------------------------------

    /// §4.5 snapshot the lock state. The held lock set is an ordered set: `held` comes in
    /// grant order across names. Requests are enqueued as they are made: `pending` comes in
    /// request order across names (within a name that is queue order, since the only
    /// requests placed out of order, steals, are granted in the step that queues them).
    pub fn snapshot(&self) -> Snapshot<'_> {
        let mut held = Vec::new();
        let mut pending = Vec::new();
        for (name, resource) in &self.resources {
            let info = |slot: &Slot| LockInfo {
                name,
                mode: slot.mode,
                client: slot.client,
                request: slot.request,
            };
            // Step 3: each queue's requests.
            pending.extend(resource.queue.iter().map(|(key, slot)| (*key, info(slot))));
            // Step 5: the held lock set.
            held.extend(resource.held.iter().map(|(seq, slot)| (*seq, info(slot))));
        }
        held.sort_unstable_by_key(|(seq, _)| *seq);
        pending.sort_unstable_by_key(|(key, _)| *key);
        Snapshot {
            held: held.into_iter().map(|(_, info)| info).collect(),
            pending: pending.into_iter().map(|(_, info)| info).collect(),
        }
    }

    /// Whether request `id` is pending or held, and by which client.
    pub fn state(&self, id: RequestId) -> Option<(ClientId, RequestState)> {
        self.entries.get(&id).map(|entry| {
            let state = match entry.place {
                Place::Pending(_) => RequestState::Pending,
                Place::Held(_) => RequestState::Held,
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

    /// Indexes a new live request by id and by client.
    fn track(&mut self, id: RequestId, client: ClientId, name: Rc<[u16]>, place: Place) {
        self.entries.insert(
            id,
            Entry {
                client,
                name,
                place,
            },
        );
        self.clients.entry(client).or_default().insert(id);
    }

    fn take_entry(&mut self, id: RequestId) -> Entry {
        let entry = self.entries.remove(&id).expect("checked by caller");
        forget(&mut self.clients, entry.client, id);
        entry
    }

    /// §4.4 process the lock request queue of `name`; then drop the name if nothing is
    /// left in it, so memory returns to zero.
    fn process(&mut self, name: &[u16]) {
        let resource = self.resources.get_mut(name).expect("processed names exist");
        // Step 2.1: stop at the first request that is not grantable (only a head can be).
        // Step 2.2: remove it from the queue.
        while let Some(slot) = resource.pop_grantable() {
            // Steps 2.3–2.13: a new lock, appended to the held lock set.
            let seq = self.next_grant;
            self.next_grant += 1;
            resource.held.insert(seq, slot);
            if let Some(entry) = self.entries.get_mut(&slot.request) {
                entry.place = Place::Held(seq);
            }
            // Step 2.14: the driver runs the callback in the requesting context.
            self.actions.push_back(Action::Granted {
                client: slot.client,
                request: slot.request,
            });
        }
        self.drop_if_empty(name);
    }

    /// Forgets `name` once nothing is held or queued under it, so memory returns to zero.
    fn drop_if_empty(&mut self, name: &[u16]) {
        if self.resources.get(name).is_some_and(Resource::is_empty) {
            self.resources.remove(name);
        }
    }
}

fn forget(
    clients: &mut FxHashMap<ClientId, FxHashSet<RequestId>>,
    client: ClientId,
    id: RequestId,
) {
    if let Some(ids) = clients.get_mut(&client) {
        ids.remove(&id);
    }
}
