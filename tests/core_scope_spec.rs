//! Scopes (the extension's atomic multi-name requests) against the early draft's rule,
//! scenario by scenario (../shared/spec/early-draft-lock-scopes.md "Lock Requests").
#![cfg(not(target_arch = "wasm32"))]

use web_locks::core::{
    Action, ClientId, Flavor, LockManager, Mode, RequestError, RequestId, Stats,
};

use Flavor::{IfAvailable, Queue, Steal};
use Mode::{Exclusive as X, Shared as S};

const A: ClientId = ClientId(1);
const B: ClientId = ClientId(2);
const C: ClientId = ClientId(3);
const D: ClientId = ClientId(4);

fn u(name: &str) -> Vec<u16> {
    name.encode_utf16().collect()
}

/// Requests the scope `names` (sorted here) and returns the actions it caused.
fn take(
    m: &mut LockManager,
    c: ClientId,
    id: u64,
    names: &[&str],
    mode: Mode,
    f: Flavor,
) -> Vec<Action> {
    let units: Vec<Vec<u16>> = names.iter().map(|n| u(n)).collect();
    let refs: Vec<&[u16]> = units.iter().map(Vec::as_slice).collect();
    m.request_scope(c, RequestId(id), &refs, mode, f).unwrap();
    drain(m)
}

fn drain(m: &mut LockManager) -> Vec<Action> {
    std::iter::from_fn(|| m.poll_action()).collect()
}

fn granted(client: ClientId, id: u64) -> Action {
    Action::Granted {
        client,
        request: RequestId(id),
    }
}

fn stolen(client: ClientId, id: u64) -> Action {
    Action::Stolen {
        client,
        request: RequestId(id),
    }
}

fn release(m: &mut LockManager, id: u64) -> Vec<Action> {
    m.release(RequestId(id));
    drain(m)
}

/// (name, request id, more) of held (grant order) and pending (request order).
type Rows = Vec<(String, u64, bool)>;

fn state(m: &LockManager) -> (Rows, Rows) {
    let snap = m.snapshot();
    let row =
        |i: &web_locks::core::LockInfo| (String::from_utf16_lossy(i.name), i.request.0, i.more);
    (
        snap.held.iter().map(row).collect(),
        snap.pending.iter().map(row).collect(),
    )
}

#[test]
fn a_scope_is_granted_when_its_last_name_frees() {
    let mut m = LockManager::new();
    take(&mut m, A, 1, &["x"], X, Queue);
    take(&mut m, A, 2, &["y"], X, Queue);
    assert!(take(&mut m, B, 3, &["x", "y"], X, Queue).is_empty());
    assert!(release(&mut m, 1).is_empty(), "x alone is not enough");
    assert_eq!(
        state(&m).1,
        vec![("x".into(), 3, true), ("y".into(), 3, false)]
    );
    assert_eq!(release(&mut m, 2), vec![granted(B, 3)]);
    assert_eq!(
        state(&m).0,
        vec![("x".into(), 3, true), ("y".into(), 3, false)]
    );
}

#[test]
fn a_request_queued_behind_a_scope_is_not_granted_early() {
    let mut m = LockManager::new();
    take(&mut m, A, 1, &["y"], X, Queue);
    // x is free, but B's scope waits for y in x's queue too.
    assert!(take(&mut m, B, 2, &["x", "y"], X, Queue).is_empty());
    assert!(take(&mut m, C, 3, &["x"], X, Queue).is_empty());
    assert!(take(&mut m, C, 4, &["x"], S, IfAvailable)
        .iter()
        .all(|a| matches!(a, Action::NotAvailable { .. })));
    assert_eq!(release(&mut m, 1), vec![granted(B, 2)]);
    assert_eq!(release(&mut m, 2), vec![granted(C, 3)]);
}

#[test]
fn shared_requests_pass_shared_ones_but_never_an_exclusive_one() {
    let mut m = LockManager::new();
    take(&mut m, A, 1, &["y"], X, Queue);
    assert!(take(&mut m, B, 2, &["x", "y"], S, Queue).is_empty());
    // Shared on x: the only earlier request on x is shared, nothing exclusive holds x.
    assert_eq!(take(&mut m, C, 3, &["x"], S, Queue), vec![granted(C, 3)]);
    // An exclusive request on x waits for both; a later shared one waits behind it.
    assert!(take(&mut m, D, 4, &["x"], X, Queue).is_empty());
    assert!(take(&mut m, C, 5, &["x"], S, Queue).is_empty());
    assert_eq!(release(&mut m, 1), vec![granted(B, 2)]);
    assert!(release(&mut m, 3).is_empty());
    assert_eq!(release(&mut m, 2), vec![granted(D, 4)]);
    assert_eq!(release(&mut m, 4), vec![granted(C, 5)]);
}

#[test]
fn opposite_orders_never_deadlock() {
    let mut m = LockManager::new();
    assert_eq!(
        take(&mut m, A, 1, &["x", "y"], X, Queue),
        vec![granted(A, 1)]
    );
    assert!(take(&mut m, B, 2, &["x", "y"], X, Queue).is_empty());
    assert!(take(&mut m, A, 3, &["x", "y"], X, Queue).is_empty());
    assert_eq!(release(&mut m, 1), vec![granted(B, 2)]);
    assert_eq!(release(&mut m, 2), vec![granted(A, 3)]);
}

#[test]
fn steal_releases_every_lock_on_any_of_its_names() {
    let mut m = LockManager::new();
    take(&mut m, A, 1, &["x"], X, Queue);
    take(&mut m, B, 2, &["y", "z"], S, Queue);
    take(&mut m, C, 3, &["z"], S, Queue);
    assert!(take(&mut m, D, 4, &["z"], X, Queue).is_empty());
    assert!(take(&mut m, A, 5, &["x", "y"], S, Queue).is_empty());
    let actions = take(&mut m, C, 6, &["x", "y"], X, Steal);
    assert_eq!(actions, vec![stolen(A, 1), stolen(B, 2), granted(C, 6)]);
    // B's scope is gone from z too; C's shared lock on z still holds D back.
    assert_eq!(release(&mut m, 3), vec![granted(D, 4)]);
    // A's pending scope waits behind the steal (it went first in x's and y's queues).
    assert_eq!(release(&mut m, 6), vec![granted(A, 5)]);
}

#[test]
fn if_available_scopes_take_all_or_nothing() {
    let mut m = LockManager::new();
    take(&mut m, A, 1, &["y"], S, Queue);
    let refused = take(&mut m, B, 2, &["x", "y"], X, IfAvailable);
    assert_eq!(
        refused,
        vec![Action::NotAvailable {
            client: B,
            request: RequestId(2)
        }]
    );
    assert_eq!(m.stats().names, 1, "nothing was queued or created");
    assert_eq!(
        take(&mut m, B, 3, &["x", "y"], S, IfAvailable),
        vec![granted(B, 3)]
    );
}

#[test]
fn a_reclaimed_lock_holds_back_a_scope_that_was_clear() {
    let mut m = LockManager::new();
    m.reclaim(A, RequestId(1), &[&u("y")], X).unwrap();
    // B's scope is clear on x, held back by y.
    assert!(take(&mut m, B, 2, &["x", "y"], X, Queue).is_empty());
    m.reclaim(C, RequestId(3), &[&u("x")], X).unwrap();
    assert!(release(&mut m, 1).is_empty(), "x is held again");
    assert_eq!(release(&mut m, 3), vec![granted(B, 2)]);
}

#[test]
fn a_context_going_away_takes_its_scopes_with_it() {
    let mut m = LockManager::new();
    take(&mut m, A, 1, &["x", "y"], X, Queue);
    take(&mut m, B, 2, &["y"], S, Queue);
    take(&mut m, C, 3, &["x"], X, Queue);
    take(&mut m, A, 4, &["x", "z"], X, Queue);
    m.client_gone(A);
    assert_eq!(drain(&mut m), vec![granted(C, 3), granted(B, 2)]);
    m.client_gone(B);
    m.client_gone(C);
    assert_eq!(m.stats(), Stats::default());
}

#[test]
fn scopes_are_sorted_distinct_and_not_empty() {
    let mut m = LockManager::new();
    let (a, b) = (u("a"), u("b"));
    for names in [vec![], vec![&b[..], &a[..]], vec![&a[..], &a[..]]] {
        assert_eq!(
            m.request_scope(A, RequestId(1), &names, X, Queue),
            Err(RequestError::InvalidScope)
        );
        assert_eq!(
            m.reclaim(A, RequestId(1), &names, X),
            Err(RequestError::InvalidScope)
        );
    }
    assert_eq!(m.stats(), Stats::default());
}
