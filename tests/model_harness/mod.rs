//! What the two reference-model property tests share (`core_model.rs`: the spec's single
//! names; `core_scopes.rs`: the extension's scopes against the early draft): random operation
//! sequences run on the core and on a naive model side by side, compared after every step;
//! then whatever is held is released (no deadlock: every pending request gets through), every
//! client goes, and the core's memory returns to zero.

use proptest::prelude::*;
use web_locks::core::{
    AbortOutcome, Action, ClientId, Flavor, LockManager, Mode, ReleaseOutcome, RequestId, Stats,
};

pub const CLIENTS: u32 = 4;

#[derive(Clone, Debug)]
pub enum Op {
    Request {
        client: u32,
        /// Which names: the model reads it (an index, or a set as bits).
        names: u8,
        shared: bool,
        /// 0: steal; 1, 2: ifAvailable; otherwise queued.
        flavor: u8,
    },
    /// Release the k-th held lock (modulo), if any.
    Release(usize),
    /// Abort the k-th pending request (modulo), if any.
    Abort(usize),
    /// Release or abort an id that may be unknown.
    Stray(u64),
    ClientGone(u32),
}

/// Operations, a request `weight` times in 15 or so, its `names` in the given range, and
/// a steal once in `flavors`.
pub fn op(names: std::ops::Range<u8>, weight: u32, flavors: u8) -> impl Strategy<Value = Op> {
    prop_oneof![
        weight => (0..CLIENTS, names, any::<bool>(), 0..flavors).prop_map(|(client, names, shared, flavor)| Op::Request { client, names, shared, flavor }),
        5 => any::<usize>().prop_map(Op::Release),
        2 => any::<usize>().prop_map(Op::Abort),
        1 => (0u64..400).prop_map(Op::Stray),
        1 => (0..CLIENTS).prop_map(Op::ClientGone),
    ]
}

/// A naive model of the lock manager, driven beside the core.
pub trait Model {
    /// Makes request `id` on the core and on the model.
    fn request(
        &mut self,
        core: &mut LockManager,
        id: u64,
        client: u32,
        names: u8,
        mode: Mode,
        flavor: Flavor,
    );
    fn release(&mut self, id: u64) -> ReleaseOutcome;
    fn abort(&mut self, id: u64) -> AbortOutcome;
    fn client_gone(&mut self, client: u32);
    /// Ids of the held locks, and of the pending requests.
    fn held(&self) -> Vec<u64>;
    fn pending(&self) -> Vec<u64>;
    /// After each step: the core's actions of the step (in its order) and its state against
    /// the model's.
    fn check(&mut self, core: &LockManager, actions: Vec<Action>);
}

pub fn run(ops: Vec<Op>, model: &mut impl Model) {
    let mut core = LockManager::new();
    let mut next_id = 0u64;
    for op in ops {
        match op {
            Op::Request {
                client,
                names,
                shared,
                flavor,
            } => {
                next_id += 1;
                let flavor = match flavor {
                    0 => Flavor::Steal,
                    1 | 2 => Flavor::IfAvailable,
                    _ => Flavor::Queue,
                };
                // The API never sends a shared steal (§3.2.1 step 7).
                let mode = if shared && flavor != Flavor::Steal {
                    Mode::Shared
                } else {
                    Mode::Exclusive
                };
                model.request(&mut core, next_id, client, names, mode, flavor);
            }
            Op::Release(k) => {
                let held = model.held();
                if !held.is_empty() {
                    let id = held[k % held.len()];
                    assert_eq!(core.release(RequestId(id)), model.release(id));
                }
            }
            Op::Abort(k) => {
                let pending = model.pending();
                if !pending.is_empty() {
                    let id = pending[k % pending.len()];
                    assert_eq!(core.abort(RequestId(id)), model.abort(id));
                }
            }
            Op::Stray(id) => {
                assert_eq!(core.abort(RequestId(id)), model.abort(id));
                assert_eq!(core.release(RequestId(id)), model.release(id));
            }
            Op::ClientGone(c) => {
                core.client_gone(ClientId(c));
                model.client_gone(c);
            }
        }
        checked(&mut core, model);
    }
    // No deadlock: releasing whatever is held lets every pending request through.
    while let Some(&id) = model.held().first() {
        assert_eq!(core.release(RequestId(id)), model.release(id));
        checked(&mut core, model);
    }
    assert!(model.pending().is_empty(), "nothing left waiting");
    for c in 0..CLIENTS {
        core.client_gone(ClientId(c));
    }
    while core.poll_action().is_some() {}
    assert_eq!(core.stats(), Stats::default(), "memory returns to zero");
}

fn checked(core: &mut LockManager, model: &mut impl Model) {
    let actions: Vec<Action> = std::iter::from_fn(|| core.poll_action()).collect();
    model.check(core, actions);
    assert_eq!(
        core.stats().requests,
        model.held().len() + model.pending().len()
    );
}
