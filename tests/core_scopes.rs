//! Property tests for scopes (the extension's atomic multi-name requests): random operation
//! sequences mixing scopes and single names, against a literal transcription of the early
//! draft's grantable rule (one origin-wide queue, scanned end to end; ../shared/spec/
//! early-draft-lock-scopes.md "Lock Requests"), with invariants checked after every step.
#![cfg(not(target_arch = "wasm32"))]

mod model_harness;

use model_harness::{op, run};
use proptest::prelude::*;
use web_locks::core::{
    AbortOutcome, Action, ClientId, Flavor, LockManager, Mode, ReleaseOutcome, RequestId,
};
/// Sorted by code units, as scopes are: "a", "b", "c", "\uD800".
const NAMES: [&[u16]; 4] = [&[0x61], &[0x62], &[0x63], &[0xD800]];

type Name = Vec<u16>;

#[derive(Clone, Debug)]
struct Req {
    id: u64,
    client: u32,
    /// Sorted, distinct.
    names: Vec<Name>,
    mode: Mode,
}

impl Req {
    fn meets(&self, other: &Req) -> bool {
        self.names.iter().any(|n| other.names.contains(n))
    }
}

/// The draft, transcribed naively: one queue for the origin, steals at its front.
#[derive(Default)]
struct Model {
    queue: Vec<Req>,
    held: Vec<Req>,
    actions: Vec<Action>,
}

fn action(kind: u8, r: &Req) -> Action {
    let (client, request) = (ClientId(r.client), RequestId(r.id));
    match kind {
        0 => Action::Granted { client, request },
        1 => Action::NotAvailable { client, request },
        _ => Action::Stolen { client, request },
    }
}

impl Model {
    /// The draft's "grantable", for `r` with the queue entries `earlier` before it.
    fn grantable(&self, r: &Req, earlier: &[Req]) -> bool {
        match r.mode {
            Mode::Exclusive => {
                !self.held.iter().any(|l| l.meets(r)) && !earlier.iter().any(|q| q.meets(r))
            }
            Mode::Shared => {
                let exclusive = |q: &&Req| q.mode == Mode::Exclusive && q.meets(r);
                !self.held.iter().any(|l| exclusive(&l)) && !earlier.iter().any(|q| exclusive(&q))
            }
        }
    }

    /// "Wait until request is grantable", for every queued request: grant each that is.
    fn settle(&mut self) {
        loop {
            let ready =
                (0..self.queue.len()).find(|&i| self.grantable(&self.queue[i], &self.queue[..i]));
            let Some(i) = ready else { break };
            let r = self.queue.remove(i);
            self.actions.push(action(0, &r));
            self.held.push(r);
        }
    }

    fn request(&mut self, r: Req, flavor: Flavor) {
        match flavor {
            Flavor::Steal => {
                let (gone, kept) = std::mem::take(&mut self.held)
                    .into_iter()
                    .partition(|l| l.meets(&r));
                self.held = kept;
                let gone: Vec<Req> = gone;
                for l in &gone {
                    self.actions.push(action(2, l));
                }
                self.queue.insert(0, r);
            }
            Flavor::IfAvailable if !self.grantable(&r, &self.queue) => {
                self.actions.push(action(1, &r));
                return;
            }
            _ => self.queue.push(r),
        }
        self.settle();
    }
}

/// A snapshot's entries regrouped by request: (id, client, names, mode), a scope's names
/// being consecutive entries linked by `more`.
type Rows = Vec<(u64, u32, Vec<Name>, Mode)>;

fn group(infos: &[web_locks::core::LockInfo<'_>]) -> Rows {
    let mut rows: Rows = Vec::new();
    let mut open = false;
    for info in infos {
        if open {
            let row = rows.last_mut().unwrap();
            assert_eq!(
                (row.0, row.1, row.3),
                (info.request.0, info.client.0, info.mode)
            );
            row.2.push(info.name.to_vec());
        } else {
            rows.push((
                info.request.0,
                info.client.0,
                vec![info.name.to_vec()],
                info.mode,
            ));
        }
        open = info.more;
    }
    assert!(!open, "the last entry ends its request");
    rows
}

fn model_rows(reqs: &[Req]) -> Rows {
    reqs.iter()
        .map(|r| (r.id, r.client, r.names.clone(), r.mode))
        .collect()
}

/// Held locks by id (grant order within a step is the draft's to leave open).
fn by_id(rows: &Rows) -> Rows {
    let mut rows = rows.clone();
    rows.sort_by_key(|row| row.0);
    rows
}

fn key(a: &Action) -> (u8, u64) {
    match a {
        Action::Granted { request, .. } => (0, request.0),
        Action::NotAvailable { request, .. } => (1, request.0),
        Action::Stolen { request, .. } => (2, request.0),
    }
}

/// Never an exclusive holder next to another holder of one of its names; and no deadlock:
/// with nothing held, nothing waits (the queue's first request is always grantable).
fn check_invariants(held: &Rows, pending: &Rows) {
    for name in NAMES {
        let holders: Vec<_> = held
            .iter()
            .filter(|h| h.2.iter().any(|n| n == name))
            .collect();
        if holders.iter().any(|h| h.3 == Mode::Exclusive) {
            assert_eq!(holders.len(), 1, "an exclusive holder is alone on {name:?}");
        }
    }
    assert!(
        !held.is_empty() || pending.is_empty(),
        "requests wait while nothing is held"
    );
    // Names are sorted and distinct in every entry.
    for row in held.iter().chain(pending) {
        assert!(row.2.windows(2).all(|w| w[0] < w[1]));
    }
}

impl model_harness::Model for Model {
    /// `names`: a non-empty subset of NAMES, as bits.
    fn request(
        &mut self,
        core: &mut LockManager,
        id: u64,
        client: u32,
        names: u8,
        mode: Mode,
        flavor: Flavor,
    ) {
        let names: Vec<Name> = (0..NAMES.len())
            .filter(|i| names & (1 << i) != 0)
            .map(|i| NAMES[i].to_vec())
            .collect();
        let refs: Vec<&[u16]> = names.iter().map(Vec::as_slice).collect();
        core.request_scope(ClientId(client), RequestId(id), &refs, mode, flavor)
            .unwrap();
        let r = Req {
            id,
            client,
            names,
            mode,
        };
        Model::request(self, r, flavor);
    }

    fn release(&mut self, id: u64) -> ReleaseOutcome {
        if let Some(i) = self.held.iter().position(|l| l.id == id) {
            self.held.remove(i);
            self.settle();
            ReleaseOutcome::Released
        } else if self.queue.iter().any(|r| r.id == id) {
            ReleaseOutcome::NotHeld
        } else {
            ReleaseOutcome::Unknown
        }
    }

    fn abort(&mut self, id: u64) -> AbortOutcome {
        if let Some(i) = self.queue.iter().position(|r| r.id == id) {
            self.queue.remove(i);
            self.settle();
            AbortOutcome::Removed
        } else if self.held.iter().any(|l| l.id == id) {
            AbortOutcome::AlreadyHeld
        } else {
            AbortOutcome::Unknown
        }
    }

    fn client_gone(&mut self, client: u32) {
        self.queue.retain(|r| r.client != client);
        self.held.retain(|l| l.client != client);
        self.settle();
    }

    fn held(&self) -> Vec<u64> {
        self.held.iter().map(|l| l.id).collect()
    }

    fn pending(&self) -> Vec<u64> {
        self.queue.iter().map(|r| r.id).collect()
    }

    /// The same grants, refusals and steals in each step (several requests that become
    /// grantable in one step are independent: the draft leaves their order open).
    fn check(&mut self, core: &LockManager, mut actions: Vec<Action>) {
        let mut expected = std::mem::take(&mut self.actions);
        actions.sort_by_key(key);
        expected.sort_by_key(key);
        assert_eq!(actions, expected, "same actions in each step");
        let snapshot = core.snapshot();
        let (held, pending) = (group(&snapshot.held), group(&snapshot.pending));
        assert_eq!(by_id(&held), by_id(&model_rows(&self.held)));
        // Pending in request order (the model's queue: steals are never left pending).
        assert_eq!(pending, model_rows(&self.queue));
        check_invariants(&held, &pending);
    }
}

proptest! {
    // 256 cases × ~4,000 operations ≈ 10^6 operations per `cargo test`.
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn scopes_match_the_drafts_rule(ops in prop::collection::vec(op(1..16, 7, 12), 3000..5000)) {
        run(ops, &mut Model::default());
    }
}
