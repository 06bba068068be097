//! Unit tests of the service's clients: takeovers by a context's newer port.

use super::*;
use crate::protocol::text;

fn leader(epoch: &str) -> Leader {
    Leader {
        epoch: text(epoch),
        url: text("build"),
        lifeline: text(&("web-locks-worker-".to_owned() + epoch)),
    }
}

/// A serving worker, welcoming, that awaits the survivors `survey` names.
fn serving(survey: &[&str]) -> Service {
    let mut s = Service::new(&text("me"));
    s.handle_lifeline(Some(&text("web-locks-worker-me")));
    s.handle_claimed(leader("me"), survey.iter().map(|db| text(db)).collect());
    s
}

/// What the service sent since, but welcomes.
fn sent(s: &mut Service) -> Vec<(PortId, WorkerMessage)> {
    core::iter::from_fn(|| s.poll_output())
        .filter_map(|output| match output {
            Output::Send(_, WorkerMessage::Welcome { .. }) => None,
            Output::Send(port, message) => Some((port, message)),
            _ => None,
        })
        .collect()
}

fn hello(port: u32, client_id: &str, db: &str, n: u32) -> (PortId, ClientMessage) {
    let db = Some(text(db));
    (
        PortId(port),
        ClientMessage::Hello {
            client_id: text(client_id),
            db,
            n,
        },
    )
}

fn watch(port: u32, db: &str) -> (PortId, ClientMessage) {
    (PortId(port), ClientMessage::Watch { db: Some(text(db)) })
}

fn request(port: u32, id: u32, name: &str, steal: bool) -> (PortId, ClientMessage) {
    let request = ClientMessage::Request {
        id,
        names: vec![text(name)],
        mode: Mode::Exclusive,
        if_available: false,
        steal,
        at: 0,
    };
    (PortId(port), request)
}

fn feed(s: &mut Service, messages: Vec<(PortId, ClientMessage)>) {
    for (port, message) in messages {
        if matches!(message, ClientMessage::Hello { .. }) {
            s.handle_connect(port);
        }
        s.handle_message(port, message);
    }
}

#[test]
fn a_takeover_drops_what_waits_from_the_replaced_port_but_its_releases_and_aborts() {
    // Recovering: the survivor "a" is awaited, so everything waits.
    let mut s = serving(&["db-a"]);
    feed(
        &mut s,
        vec![
            // "a" holds "z" and releases it, and asks for "x", on its first port.
            hello(1, "a", "db-a", 1),
            (
                PortId(1),
                ClientMessage::Reclaim {
                    id: 1,
                    names: vec![text("z")],
                    mode: Mode::Exclusive,
                },
            ),
            (PortId(1), ClientMessage::Release { id: 1 }),
            request(1, 2, "x", false),
            // "b" steals "x" meanwhile.
            hello(2, "b", "db-b", 1),
            request(2, 1, "x", true),
            watch(2, "db-b"),
            // "a" reconnects: "x" declared anew, then its watch ends the wait.
            hello(3, "a", "db-a", 2),
            request(3, 2, "x", false),
            watch(3, "db-a"),
        ],
    );
    assert!(!s.is_recovering());
    // One request of "a" for "x", queued behind the steal; "z" released.
    assert_eq!(
        sent(&mut s),
        [(PortId(2), WorkerMessage::Granted { id: 1 })]
    );
    let (held, pending) = s.locks();
    assert_eq!(held.len(), 1);
    assert_eq!(
        (held[0].name.clone(), held[0].client_id.clone()),
        (text("x"), text("b"))
    );
    assert_eq!(pending.len(), 1);
    // Granted once, when "b" releases it.
    s.handle_message(PortId(2), ClientMessage::Release { id: 1 });
    assert_eq!(
        sent(&mut s),
        [(PortId(3), WorkerMessage::Granted { id: 2 })]
    );
}

#[test]
fn a_newer_hello_with_another_database_starts_a_new_life() {
    let mut s = serving(&[]);
    feed(
        &mut s,
        vec![
            // A stale hello, bridged after its link closed, names the database of then.
            hello(1, "a", "db-a-1", 1),
            // The context came back with a new database, on a newer port.
            hello(2, "a", "db-a-2", 2),
            watch(2, "db-a-2"),
            request(2, 1, "x", false),
        ],
    );
    assert_eq!(
        sent(&mut s),
        [(PortId(2), WorkerMessage::Granted { id: 1 })]
    );
    // The old database's end is not this life's.
    s.handle_watch_end(&text("db-a-1"), WatchEnd::Died);
    assert_eq!(sent(&mut s), []);
    assert_eq!(s.locks().0.len(), 1);
}

/// `request` made at `t` (its context's clock).
fn made_at((port, mut message): (PortId, ClientMessage), t: u64) -> (PortId, ClientMessage) {
    if let ClientMessage::Request { at, .. } = &mut message {
        *at = t;
    }
    (port, message)
}

/// The client `client` (database `db-<client>`) reconnects on `port`: hello, `message` (what
/// it declares again), watch.
fn rejoins(
    port: u32,
    client: &str,
    message: (PortId, ClientMessage),
) -> [(PortId, ClientMessage); 3] {
    let db = format!("db-{client}");
    [hello(port, client, &db, 1), message, watch(port, &db)]
}

/// Recovering, awaiting "a", "b" and "c": "a" has reclaimed "x".
fn x_reclaimed_by_a() -> Service {
    let mut s = serving(&["db-a", "db-b", "db-c"]);
    let reclaim = ClientMessage::Reclaim {
        id: 1,
        names: vec![text("x")],
        mode: Mode::Exclusive,
    };
    feed(&mut s, rejoins(1, "a", (PortId(1), reclaim)).to_vec());
    s
}

#[test]
fn requests_declared_again_after_a_workers_end_are_queued_as_they_were_made() {
    // Recovering: "a" holds "x"; "b" asked for it at 10, then "c" at 20 (or at no said time:
    // an older build); "c" reconnects first.
    for (b_made, c_made, first) in [(10, 20, PortId(3)), (10, 0, PortId(2))] {
        let mut s = x_reclaimed_by_a();
        let c = rejoins(2, "c", made_at(request(2, 1, "x", false), c_made));
        let b = rejoins(3, "b", made_at(request(3, 1, "x", false), b_made));
        feed(&mut s, [c, b].concat());
        assert!(!s.is_recovering());
        s.handle_message(PortId(1), ClientMessage::Release { id: 1 });
        assert_eq!(sent(&mut s), [(first, WorkerMessage::Granted { id: 1 })]);
    }
}

#[test]
fn a_query_declared_again_sees_the_requests_made_before_it() {
    // Recovering: "a" holds "x"; "c" asked for it at 20, then "b" queried at 30 (or at no
    // said time: an older build's query, answered as it came); "b" reconnects first.
    for (b_made, pending) in [(30, 2), (0, 0)] {
        let mut s = x_reclaimed_by_a();
        let query = ClientMessage::Query { id: 1, at: b_made };
        let b = rejoins(2, "b", (PortId(2), query));
        let c = rejoins(3, "c", made_at(request(3, 1, "x", false), 20));
        feed(&mut s, [b, c].concat());
        let snapshot = sent(&mut s)
            .into_iter()
            .find_map(|(_, message)| match message {
                WorkerMessage::Snapshot { pending, .. } => Some(pending.len()),
                _ => None,
            });
        // (Two numbers per lock: its name's length, then its client and mode.)
        assert_eq!(snapshot, Some(pending));
    }
}
