//! The core against the spec's observable steps and the explainer's scenarios.
#![cfg(not(target_arch = "wasm32"))]

use web_locks::core::{
    AbortOutcome, Action, ClientId, Flavor, LockManager, Mode, ReleaseOutcome, RequestError,
    RequestId, Stats,
};

use Flavor::{IfAvailable, Queue, Steal};
use Mode::{Exclusive as X, Shared as S};

const A: ClientId = ClientId(1);
const B: ClientId = ClientId(2);
const C: ClientId = ClientId(3);

fn r(n: u64) -> RequestId {
    RequestId(n)
}

fn drain(m: &mut LockManager) -> Vec<Action> {
    std::iter::from_fn(|| m.poll_action()).collect()
}

/// A name's UTF-16 code units.
fn u(name: &str) -> Vec<u16> {
    name.encode_utf16().collect()
}

fn req(
    m: &mut LockManager,
    c: ClientId,
    id: u64,
    name: &str,
    mode: Mode,
    f: Flavor,
) -> Vec<Action> {
    m.request(c, r(id), &u(name), mode, f).unwrap();
    drain(m)
}

fn granted(c: ClientId, id: u64) -> Action {
    Action::Granted {
        client: c,
        request: r(id),
    }
}

/// (name, mode, client) of held (grant order) and pending (request order).
type Rows = Vec<(String, Mode, u32)>;

fn state(m: &LockManager) -> (Rows, Rows) {
    let snap = m.snapshot();
    let row =
        |i: &web_locks::core::LockInfo| (String::from_utf16_lossy(i.name), i.mode, i.client.0);
    (
        snap.held.iter().map(row).collect(),
        snap.pending.iter().map(row).collect(),
    )
}

fn release_all(m: &mut LockManager, ids: &[u64]) {
    for &id in ids {
        m.release(r(id));
    }
}

#[test]
fn uncontended_exclusive_is_granted_at_once_and_memory_returns_to_zero() {
    let mut m = LockManager::new();
    assert_eq!(req(&mut m, A, 1, "res", X, Queue), vec![granted(A, 1)]);
    assert_eq!(
        m.stats(),
        Stats {
            names: 1,
            requests: 1,
            clients: 1
        }
    );
    assert_eq!(m.release(r(1)), ReleaseOutcome::Released);
    assert!(drain(&mut m).is_empty());
    assert_eq!(m.stats().names, 0);
    assert_eq!(m.stats().requests, 0);
    m.client_gone(A);
    assert_eq!(m.stats(), Stats::default());
}

#[test]
fn exclusive_waits_for_exclusive_then_fifo_handoff() {
    let mut m = LockManager::new();
    req(&mut m, A, 1, "res", X, Queue);
    assert!(req(&mut m, B, 2, "res", X, Queue).is_empty());
    assert!(req(&mut m, C, 3, "res", X, Queue).is_empty());
    m.release(r(1));
    assert_eq!(drain(&mut m), vec![granted(B, 2)]);
    m.release(r(2));
    assert_eq!(drain(&mut m), vec![granted(C, 3)]);
}

#[test]
fn shared_holders_coexist_and_a_writer_waits_for_all_of_them() {
    let mut m = LockManager::new();
    assert_eq!(req(&mut m, A, 1, "res", S, Queue), vec![granted(A, 1)]);
    assert_eq!(req(&mut m, B, 2, "res", S, Queue), vec![granted(B, 2)]);
    assert!(req(&mut m, C, 3, "res", X, Queue).is_empty());
    m.release(r(1));
    assert!(drain(&mut m).is_empty(), "one reader still holds");
    m.release(r(2));
    assert_eq!(drain(&mut m), vec![granted(C, 3)]);
}

#[test]
fn no_reader_barges_past_a_queued_writer() {
    let mut m = LockManager::new();
    req(&mut m, A, 1, "res", S, Queue);
    assert!(req(&mut m, B, 2, "res", X, Queue).is_empty());
    assert!(
        req(&mut m, C, 3, "res", S, Queue).is_empty(),
        "§2.5 step 7: not first in queue"
    );
}

#[test]
fn processing_grants_consecutive_shared_heads_in_one_pass() {
    let mut m = LockManager::new();
    req(&mut m, A, 1, "res", X, Queue);
    req(&mut m, B, 2, "res", S, Queue);
    req(&mut m, C, 3, "res", S, Queue);
    req(&mut m, A, 4, "res", X, Queue);
    req(&mut m, B, 5, "res", S, Queue);
    m.release(r(1));
    assert_eq!(drain(&mut m), vec![granted(B, 2), granted(C, 3)]);
    let (_, pending) = state(&m);
    assert_eq!(pending, vec![("res".into(), X, 1), ("res".into(), S, 2)]);
}

/// The explainer's scenario (held #1 exclusive and #2 shared on different resources,
/// then requests #3–#6), adapted to single names.
#[test]
fn explainer_scenario_adapted_to_single_names() {
    let mut m = LockManager::new();
    assert_eq!(req(&mut m, A, 1, "a", X, Queue), vec![granted(A, 1)]);
    assert_eq!(req(&mut m, B, 2, "b", S, Queue), vec![granted(B, 2)]);
    assert!(
        req(&mut m, C, 3, "a", S, Queue).is_empty(),
        "#3 blocked by #1"
    );
    assert_eq!(
        req(&mut m, C, 4, "b", S, Queue),
        vec![granted(C, 4)],
        "#4 shares with #2"
    );
    assert!(
        req(&mut m, A, 5, "b", X, Queue).is_empty(),
        "#5 waits for both readers"
    );
    assert!(
        req(&mut m, B, 6, "b", S, Queue).is_empty(),
        "#6 queued behind writer #5"
    );
    m.release(r(1));
    assert_eq!(drain(&mut m), vec![granted(C, 3)]);
    m.release(r(2));
    assert!(drain(&mut m).is_empty());
    m.release(r(4));
    assert_eq!(drain(&mut m), vec![granted(A, 5)]);
    m.release(r(5));
    assert_eq!(drain(&mut m), vec![granted(B, 6)]);
    release_all(&mut m, &[3, 6]);
    assert_eq!(m.stats().names, 0);
}

#[test]
fn names_are_independent() {
    let mut m = LockManager::new();
    req(&mut m, A, 1, "a", X, Queue);
    assert_eq!(req(&mut m, B, 2, "b", X, Queue), vec![granted(B, 2)]);
    assert_eq!(
        req(&mut m, B, 3, "", X, Queue),
        vec![granted(B, 3)],
        "the empty name is a name"
    );
}

#[test]
fn if_available_grants_when_free_and_reports_not_available_otherwise() {
    let mut m = LockManager::new();
    assert_eq!(
        req(&mut m, A, 1, "res", X, IfAvailable),
        vec![granted(A, 1)]
    );
    assert_eq!(
        req(&mut m, B, 2, "res", X, IfAvailable),
        vec![Action::NotAvailable {
            client: B,
            request: r(2)
        }]
    );
    assert_eq!(m.stats().requests, 1, "nothing queued");
    assert_eq!(m.abort(r(2)), AbortOutcome::Unknown);
}

#[test]
fn if_available_shared_joins_shared_holders() {
    let mut m = LockManager::new();
    req(&mut m, A, 1, "res", S, Queue);
    assert_eq!(
        req(&mut m, B, 2, "res", S, IfAvailable),
        vec![granted(B, 2)]
    );
}

#[test]
fn if_available_is_not_grantable_behind_a_non_empty_queue_even_if_compatible() {
    let mut m = LockManager::new();
    req(&mut m, A, 1, "res", S, Queue);
    req(&mut m, B, 2, "res", X, Queue); // queued writer
    assert_eq!(
        req(&mut m, C, 3, "res", S, IfAvailable),
        vec![Action::NotAvailable {
            client: C,
            request: r(3)
        }]
    );
}

#[test]
fn steal_releases_every_holder_and_jumps_the_queue() {
    let mut m = LockManager::new();
    req(&mut m, A, 1, "res", S, Queue);
    req(&mut m, B, 2, "res", S, Queue);
    req(&mut m, C, 3, "res", X, Queue);
    assert_eq!(
        req(&mut m, C, 4, "res", X, Steal),
        vec![
            Action::Stolen {
                client: A,
                request: r(1)
            },
            Action::Stolen {
                client: B,
                request: r(2)
            },
            granted(C, 4),
        ]
    );
    assert_eq!(
        m.release(r(1)),
        ReleaseOutcome::Unknown,
        "a stolen lock is gone"
    );
    let (held, pending) = state(&m);
    assert_eq!(held, vec![("res".into(), X, 3)]);
    assert_eq!(pending, vec![("res".into(), X, 3)]);
    m.release(r(4));
    assert_eq!(
        drain(&mut m),
        vec![granted(C, 3)],
        "the waiter keeps its place"
    );
}

#[test]
fn steal_of_a_free_name_is_a_plain_grant() {
    let mut m = LockManager::new();
    assert_eq!(req(&mut m, A, 1, "res", X, Steal), vec![granted(A, 1)]);
}

#[test]
#[should_panic(expected = "step 7")]
fn a_shared_steal_is_the_callers_to_refuse() {
    // The API rejects it (§3.2.1 step 7; protocol::flavor in the worker); the core, given
    // one, says so where assertions are on (a scope's shared steal would grant a request
    // twice).
    let mut m = LockManager::new();
    req(&mut m, A, 1, "res", X, Queue);
    req(&mut m, B, 2, "res", S, Steal);
}

#[test]
fn abort_of_the_head_makes_the_next_grantable() {
    let mut m = LockManager::new();
    req(&mut m, A, 1, "res", S, Queue);
    req(&mut m, B, 2, "res", X, Queue);
    req(&mut m, C, 3, "res", S, Queue);
    assert_eq!(m.abort(r(2)), AbortOutcome::Removed);
    assert_eq!(
        drain(&mut m),
        vec![granted(C, 3)],
        "§4.3 step 7 re-processes the queue"
    );
}

#[test]
fn abort_in_the_middle_keeps_the_order_of_the_rest() {
    let mut m = LockManager::new();
    req(&mut m, A, 1, "res", X, Queue);
    for id in 2..=5 {
        req(&mut m, B, id, "res", X, Queue);
    }
    assert_eq!(m.abort(r(3)), AbortOutcome::Removed);
    m.release(r(1));
    assert_eq!(drain(&mut m), vec![granted(B, 2)]);
    m.release(r(2));
    assert_eq!(drain(&mut m), vec![granted(B, 4)]);
}

#[test]
fn abort_after_grant_and_unknown_abort_are_harmless() {
    let mut m = LockManager::new();
    req(&mut m, A, 1, "res", X, Queue);
    assert_eq!(m.abort(r(1)), AbortOutcome::AlreadyHeld);
    assert_eq!(m.abort(r(99)), AbortOutcome::Unknown);
    assert!(drain(&mut m).is_empty());
    assert_eq!(m.stats().requests, 1);
}

#[test]
fn release_of_a_pending_or_unknown_id_changes_nothing() {
    let mut m = LockManager::new();
    req(&mut m, A, 1, "res", X, Queue);
    req(&mut m, B, 2, "res", X, Queue);
    assert_eq!(m.release(r(2)), ReleaseOutcome::NotHeld);
    assert_eq!(m.release(r(7)), ReleaseOutcome::Unknown);
    assert!(drain(&mut m).is_empty());
    assert_eq!(m.stats().requests, 2);
}

#[test]
fn duplicate_ids_are_refused_without_side_effects() {
    let mut m = LockManager::new();
    req(&mut m, A, 1, "res", X, Queue);
    assert_eq!(
        m.request(B, r(1), &u("other"), X, Queue),
        Err(RequestError::DuplicateId)
    );
    assert_eq!(m.stats().names, 1);
    assert!(drain(&mut m).is_empty());
}

#[test]
fn client_gone_drops_pending_releases_held_across_names_in_one_step() {
    let mut m = LockManager::new();
    req(&mut m, A, 1, "a", X, Queue); // A holds a
    req(&mut m, B, 2, "b", X, Queue); // B holds b
    req(&mut m, A, 3, "b", X, Queue); // A waits for b
    req(&mut m, C, 4, "a", X, Queue); // C waits for a
    req(&mut m, A, 5, "a", S, Queue); // A waits for a, behind C
    req(&mut m, C, 6, "b", S, Queue); // C waits for b, behind A
    m.client_gone(A);
    assert_eq!(
        drain(&mut m),
        vec![granted(C, 4)],
        "a goes to C; A's requests never granted"
    );
    let (held, pending) = state(&m);
    assert_eq!(held, vec![("b".into(), X, 2), ("a".into(), X, 3)]);
    assert_eq!(pending, vec![("b".into(), S, 3)]);
    m.release(r(2));
    assert_eq!(drain(&mut m), vec![granted(C, 6)]);
    m.client_gone(C);
    assert_eq!(
        m.stats(),
        Stats::default(),
        "B released its last lock: nothing of it is kept"
    );
    m.client_gone(B);
    assert_eq!(m.stats(), Stats::default());
}

#[test]
fn client_gone_does_not_grant_its_own_queued_requests() {
    let mut m = LockManager::new();
    req(&mut m, A, 1, "res", X, Queue);
    req(&mut m, A, 2, "res", X, Queue);
    req(&mut m, B, 3, "res", X, Queue);
    m.client_gone(A);
    assert_eq!(drain(&mut m), vec![granted(B, 3)]);
    m.client_gone(ClientId(42)); // unknown: no-op
    assert!(drain(&mut m).is_empty());
}

#[test]
fn snapshot_lists_pending_per_name_in_request_order_with_client_ids() {
    let mut m = LockManager::new();
    req(&mut m, A, 1, "x", X, Queue);
    req(&mut m, B, 2, "x", S, Queue);
    req(&mut m, C, 3, "y", S, Queue);
    req(&mut m, C, 4, "x", X, Queue);
    let snap = m.snapshot();
    let x_pending: Vec<_> = snap
        .pending
        .iter()
        .filter(|i| i.name == u("x"))
        .map(|i| i.request)
        .collect();
    assert_eq!(x_pending, vec![r(2), r(4)]);
    let (held, _) = state(&m);
    assert_eq!(held, vec![("x".into(), X, 1), ("y".into(), S, 3)]);
}

#[test]
fn same_inputs_give_same_actions_and_snapshots() {
    let run = || {
        let mut m = LockManager::new();
        let mut out = Vec::new();
        for i in 0..200u64 {
            let name = format!("n{}", i % 7);
            let mode = if i % 3 == 0 { X } else { S };
            m.request(ClientId((i % 5) as u32), r(i), &u(&name), mode, Queue)
                .unwrap();
            if i % 4 == 0 {
                m.release(r(i / 2));
            }
            out.extend(drain(&mut m));
        }
        let snap: Vec<_> = m.snapshot().held.iter().map(|i| i.request).collect();
        (out, snap)
    };
    assert_eq!(run(), run());
}

#[test]
fn reclaim_restores_compatible_holders_and_refuses_conflicts() {
    let mut m = LockManager::new();
    m.reclaim(A, r(1), &[&u("x")], S).unwrap();
    m.reclaim(B, r(2), &[&u("x")], S).unwrap();
    assert_eq!(
        m.reclaim(C, r(3), &[&u("x")], X),
        Err(RequestError::Conflict)
    );
    assert_eq!(
        m.reclaim(A, r(1), &[&u("y")], X),
        Err(RequestError::DuplicateId)
    );
    m.reclaim(A, r(4), &[&u("y")], X).unwrap();
    assert!(drain(&mut m).is_empty(), "reclaims are not grants");
    assert!(
        req(&mut m, C, 9, "x", X, Queue).is_empty(),
        "a writer waits for the reclaimed readers"
    );
    let (held, pending) = state(&m);
    assert_eq!(
        held,
        vec![("x".into(), S, 1), ("x".into(), S, 2), ("y".into(), X, 1)]
    );
    assert_eq!(pending, vec![("x".into(), X, 3)]);
    release_all(&mut m, &[1, 2]);
    assert_eq!(drain(&mut m), vec![granted(C, 9)]);
}

#[test]
fn state_tells_pending_from_held() {
    use web_locks::core::RequestState;
    let mut m = LockManager::new();
    req(&mut m, A, 1, "x", X, Queue);
    req(&mut m, B, 2, "x", X, Queue);
    assert_eq!(m.state(r(1)), Some((A, RequestState::Held)));
    assert_eq!(m.state(r(2)), Some((B, RequestState::Pending)));
    assert_eq!(m.state(r(3)), None);
}

#[test]
fn snapshot_orders_held_by_grant_and_pending_by_request_across_names() {
    let mut m = LockManager::new();
    req(&mut m, A, 1, "z", X, Queue);
    req(&mut m, A, 2, "a", X, Queue);
    req(&mut m, A, 3, "m", S, Queue);
    req(&mut m, B, 4, "m", X, Queue);
    req(&mut m, B, 5, "a", S, Queue);
    req(&mut m, B, 6, "z", X, Queue);
    req(&mut m, C, 7, "m", S, Queue); // a reader may not pass the queued writer
    let (held, pending) = state(&m);
    assert_eq!(
        held,
        vec![("z".into(), X, 1), ("a".into(), X, 1), ("m".into(), S, 1)]
    );
    assert_eq!(
        pending,
        vec![
            ("m".into(), X, 2),
            ("a".into(), S, 2),
            ("z".into(), X, 2),
            ("m".into(), S, 3)
        ]
    );
    // A steal is granted in the step that queues it; the held set keeps grant order.
    m.request(C, r(8), &u("a"), X, Steal).unwrap();
    drain(&mut m);
    let (held, _) = state(&m);
    assert_eq!(
        held,
        vec![("z".into(), X, 1), ("m".into(), S, 1), ("a".into(), X, 3)]
    );
}

#[test]
fn names_are_utf16_code_units_lone_surrogates_included() {
    let mut m = LockManager::new();
    let names: [&[u16]; 4] = [&[0xD800], &[0xDC00], &[0x61, 0xDC00, 0x62], &[0xFFFD]];
    for (i, name) in names.iter().enumerate() {
        m.request(A, r(i as u64), name, X, Queue).unwrap();
    }
    assert_eq!(drain(&mut m).len(), 4, "four distinct names, all free");
    m.request(B, r(9), &[0xD800], X, Queue).unwrap();
    assert!(drain(&mut m).is_empty());
    let snap = m.snapshot();
    let held: Vec<&[u16]> = snap.held.iter().map(|i| i.name).collect();
    assert_eq!(held, names);
    assert_eq!(snap.pending[0].name, &[0xD800]);
}
