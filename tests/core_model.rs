//! Property tests: random operation sequences against a literal, slow reference model of
//! the spec (vectors scanned end to end), with invariants checked after every step.
#![cfg(not(target_arch = "wasm32"))]

mod model_harness;

use std::collections::{BTreeMap, BTreeSet};

use model_harness::{op, run};
use proptest::prelude::*;
use web_locks::core::{
    AbortOutcome, Action, ClientId, Flavor, LockManager, Mode, ReleaseOutcome, RequestId,
};
/// Names are DOMStrings: sequences of UTF-16 code units, lone surrogates included ('a',
/// '\uD800', '\uDC00' are three distinct names).
const NAMES: [&[u16]; 3] = [&[0x61], &[0xD800], &[0xDC00]];

type Name = Vec<u16>;

#[derive(Clone, Debug)]
struct Req {
    id: u64,
    client: u32,
    name: Name,
    mode: Mode,
}

/// The spec, transcribed naively: a map of queues and an ordered held list.
#[derive(Default)]
struct Model {
    queues: BTreeMap<Name, Vec<Req>>,
    held: Vec<Req>,
    actions: Vec<Action>,
    /// Per name, ids of queued (non-steal) requests in request order: grants must follow it.
    fifo: BTreeMap<Name, Vec<u64>>,
    steals: BTreeSet<u64>,
}

fn act(kind: fn(ClientId, RequestId) -> Action, r: &Req) -> Action {
    kind(ClientId(r.client), RequestId(r.id))
}

fn granted(client: ClientId, request: RequestId) -> Action {
    Action::Granted { client, request }
}
fn stolen(client: ClientId, request: RequestId) -> Action {
    Action::Stolen { client, request }
}
fn not_available(client: ClientId, request: RequestId) -> Action {
    Action::NotAvailable { client, request }
}

impl Model {
    fn queue(&mut self, name: &[u16]) -> &mut Vec<Req> {
        self.queues.entry(name.to_vec()).or_default()
    }

    /// §2.5 grantable.
    fn grantable(&self, r: &Req) -> bool {
        let queue = self.queues.get(&r.name).map(Vec::as_slice).unwrap_or(&[]);
        if !queue.is_empty() && queue[0].id != r.id {
            return false;
        }
        let mut same = self.held.iter().filter(|l| l.name == r.name);
        match r.mode {
            Mode::Exclusive => same.next().is_none(),
            Mode::Shared => same.all(|l| l.mode == Mode::Shared),
        }
    }

    /// §4.4
    fn process(&mut self, name: &[u16]) {
        while let Some(head) = self.queue(name).first().cloned() {
            if !self.grantable(&head) {
                break;
            }
            self.queue(name).remove(0);
            self.actions.push(act(granted, &head));
            self.held.push(head);
        }
    }

    /// §4.1
    fn request(&mut self, r: Req, flavor: Flavor) {
        let name = r.name.clone();
        match flavor {
            Flavor::Steal => {
                let (gone, kept) = std::mem::take(&mut self.held)
                    .into_iter()
                    .partition(|l| l.name == name);
                self.held = kept;
                for l in gone {
                    self.actions.push(act(stolen, &l));
                }
                self.queue(&name).insert(0, r);
            }
            Flavor::IfAvailable if !self.grantable(&r) => {
                self.actions.push(act(not_available, &r));
                return;
            }
            _ => self.queue(&name).push(r),
        }
        self.process(&name);
    }

    fn pending(&self, id: u64) -> Option<(Name, usize)> {
        self.queues
            .iter()
            .find_map(|(n, q)| q.iter().position(|r| r.id == id).map(|i| (n.clone(), i)))
    }
}

/// Snapshot rows, compared in order (§4.5): held in grant order, pending in request order,
/// both across names.
type Rows = Vec<(Name, Mode, u32, u64)>;

fn core_rows(m: &LockManager) -> (Rows, Rows) {
    let s = m.snapshot();
    let row = |i: &web_locks::core::LockInfo| (i.name.to_vec(), i.mode, i.client.0, i.request.0);
    (
        s.held.iter().map(row).collect(),
        s.pending.iter().map(row).collect(),
    )
}

fn model_rows(m: &Model) -> (Rows, Rows) {
    let row = |r: &Req| (r.name.clone(), r.mode, r.client, r.id);
    // The model's held list is appended at each grant; requests are numbered as made.
    let held: Rows = m.held.iter().map(row).collect();
    let mut pending: Rows = m.queues.values().flatten().map(row).collect();
    pending.sort_by_key(|r| r.3);
    (held, pending)
}

fn check_invariants(held: &Rows, pending: &Rows) {
    for name in NAMES {
        let holders: Vec<_> = held.iter().filter(|h| h.0 == name).collect();
        if holders.iter().any(|h| h.1 == Mode::Exclusive) {
            assert_eq!(holders.len(), 1, "an exclusive holder is alone on {name:?}");
        }
    }
    let mut ids: Vec<u64> = held.iter().chain(pending).map(|r| r.3).collect();
    let n = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(
        ids.len(),
        n,
        "no request is both pending and held, nor listed twice"
    );
}

impl model_harness::Model for Model {
    fn request(
        &mut self,
        core: &mut LockManager,
        id: u64,
        client: u32,
        names: u8,
        mode: Mode,
        flavor: Flavor,
    ) {
        let r = Req {
            id,
            client,
            name: NAMES[usize::from(names)].to_vec(),
            mode,
        };
        if flavor == Flavor::Steal {
            self.steals.insert(id);
        } else {
            self.fifo.entry(r.name.clone()).or_default().push(id);
        }
        core.request(ClientId(client), RequestId(id), &r.name, mode, flavor)
            .unwrap();
        Model::request(self, r, flavor);
    }

    /// §4.2
    fn release(&mut self, id: u64) -> ReleaseOutcome {
        if let Some(i) = self.held.iter().position(|l| l.id == id) {
            let l = self.held.remove(i);
            self.process(&l.name);
            ReleaseOutcome::Released
        } else if self.pending(id).is_some() {
            ReleaseOutcome::NotHeld
        } else {
            ReleaseOutcome::Unknown
        }
    }

    /// §4.3
    fn abort(&mut self, id: u64) -> AbortOutcome {
        if let Some((name, i)) = self.pending(id) {
            self.queue(&name).remove(i);
            self.process(&name);
            AbortOutcome::Removed
        } else if self.held.iter().any(|l| l.id == id) {
            AbortOutcome::AlreadyHeld
        } else {
            AbortOutcome::Unknown
        }
    }

    /// §2.6, as one step: remove everything of the client, then process the affected
    /// queues in the order of the client's first request on each.
    fn client_gone(&mut self, client: u32) {
        let mut mine: Vec<(u64, Name)> = self
            .queues
            .values()
            .flatten()
            .chain(&self.held)
            .filter(|r| r.client == client)
            .map(|r| (r.id, r.name.clone()))
            .collect();
        mine.sort();
        let mut affected: Vec<Name> = Vec::new();
        for (_, name) in mine {
            if !affected.contains(&name) {
                affected.push(name);
            }
        }
        for q in self.queues.values_mut() {
            q.retain(|r| r.client != client);
        }
        self.held.retain(|l| l.client != client);
        for name in affected {
            self.process(&name);
        }
    }

    fn held(&self) -> Vec<u64> {
        self.held.iter().map(|l| l.id).collect()
    }

    fn pending(&self) -> Vec<u64> {
        self.queues.values().flatten().map(|r| r.id).collect()
    }

    fn check(&mut self, core: &LockManager, actions: Vec<Action>) {
        assert_eq!(
            actions,
            std::mem::take(&mut self.actions),
            "same actions, same order"
        );
        for a in &actions {
            if let Action::Granted { request, .. } = a {
                if self.steals.contains(&request.0) {
                    continue;
                }
                // FIFO: the grant is the oldest request of its name not yet granted or gone.
                let live: BTreeSet<u64> = model_harness::Model::pending(self)
                    .into_iter()
                    .chain(model_harness::Model::held(self))
                    .collect();
                let name = &self.held.iter().find(|l| l.id == request.0).unwrap().name;
                let order = self.fifo.get_mut(name).unwrap();
                order.retain(|id| live.contains(id));
                let held_ids: BTreeSet<u64> = self.held.iter().map(|l| l.id).collect();
                let first_waiting = order
                    .iter()
                    .find(|id| !held_ids.contains(id) || **id == request.0);
                assert_eq!(first_waiting, Some(&request.0), "grant out of FIFO order");
            }
        }
        let (held, pending) = core_rows(core);
        assert_eq!(
            (&held, &pending),
            (&model_rows(self).0, &model_rows(self).1)
        );
        check_invariants(&held, &pending);
    }
}

proptest! {
    // 256 cases × ~4,000 operations ≈ 10^6 operations per `cargo test`.
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn core_matches_the_reference_model(ops in prop::collection::vec(op(0..NAMES.len() as u8, 6, 10), 3000..5000)) {
        run(ops, &mut Model::default());
    }
}
