//! The worker's codec, driver, service and core, in wasm, inside a real SharedWorker
//! (`wasm-bindgen-test-runner`, as scripts/test.sh runs it). Each test talks to a driver through
//! MessageChannels, as contexts do through their SharedWorker ports.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use js_sys::{Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use web_sys::{MessageChannel, MessageEvent, MessagePort};

use super::driver::{with, Driver, Handle};
use super::listener::Listener;
use crate::protocol::{text, VERSION};
use crate::service::{Leader, Service};

wasm_bindgen_test_configure!(run_in_shared_worker);

#[derive(Default)]
struct Inbox {
    messages: VecDeque<JsValue>,
    waiter: Option<js_sys::Function>,
}

/// The context's end of a channel whose other end is connected to the driver.
struct Context {
    port: MessagePort,
    inbox: Rc<RefCell<Inbox>>,
    _listener: Listener,
}

impl Context {
    fn connect(driver: Handle) -> Context {
        let channel = MessageChannel::new().unwrap();
        with(driver, |d| d.connect(channel.port1()));
        let port = channel.port2();
        let inbox = Rc::new(RefCell::new(Inbox::default()));
        let sink = inbox.clone();
        let listener = Listener::new(&port, "message", move |event| {
            let data = event.unchecked_into::<MessageEvent>().data();
            let waiter = {
                let mut inbox = sink.borrow_mut();
                inbox.messages.push_back(data);
                inbox.waiter.take()
            };
            if let Some(wake) = waiter {
                wake.call0(&JsValue::NULL).unwrap();
            }
        });
        port.start();
        Context {
            port,
            inbox,
            _listener: listener,
        }
    }

    /// A client without a liveness database: hello, then `watch` without `db`.
    async fn hello(driver: Handle, client_id: &str) -> Context {
        let context = Context::connect(driver);
        context.send(&[("type", "hello".into()), ("clientId", client_id.into())]);
        let welcome = context.recv().await;
        assert_eq!(get(&welcome, "type").as_string().unwrap(), "welcome");
        assert_eq!(get(&welcome, "epoch").as_string().unwrap(), "test-epoch");
        assert_eq!(get(&welcome, "db").as_string().unwrap(), "test-lifeline");
        context.send(&[("type", "watch".into())]);
        context
    }

    fn send(&self, fields: &[(&str, JsValue)]) {
        let message = Object::new();
        Reflect::set(&message, &"v".into(), &VERSION.into()).unwrap();
        for (key, value) in fields {
            Reflect::set(&message, &(*key).into(), value).unwrap();
        }
        self.port.post_message(&message).unwrap();
    }

    /// `reclaim`: an exclusive lock on `name` this context held before it reconnected.
    fn reclaim(&self, id: u32, name: &str) {
        self.send(&[
            ("type", "reclaim".into()),
            ("id", id.into()),
            ("name", name.into()),
            ("mode", "exclusive".into()),
        ]);
    }

    fn request(&self, id: u32, name: &str, extra: &[(&str, JsValue)]) {
        let mut fields = vec![
            ("type", "request".into()),
            ("id", id.into()),
            ("name", name.into()),
            ("mode", "exclusive".into()),
        ];
        fields.extend(extra.iter().cloned());
        self.send(&fields);
    }

    async fn recv(&self) -> JsValue {
        loop {
            let wait = {
                let mut inbox = self.inbox.borrow_mut();
                if let Some(message) = inbox.messages.pop_front() {
                    return message;
                }
                let (promise, wake) = pending_promise();
                inbox.waiter = Some(wake);
                promise
            };
            JsFuture::from(wait).await.unwrap();
        }
    }

    /// The next message's (type, id, message text).
    async fn recv_kind(&self) -> (String, Option<u32>) {
        let message = self.recv().await;
        let kind = get(&message, "type").as_string().unwrap();
        let id = get(&message, "id").as_f64().map(|id| id as u32);
        assert_eq!(
            get(&message, "v").as_f64(),
            Some(f64::from(VERSION)),
            "replies carry the version"
        );
        (kind, id)
    }

    /// (name, mode, clientId) of the held and pending lists of a query.
    async fn query(&self, id: u32) -> (Vec<String>, Vec<String>) {
        self.send(&[("type", "query".into()), ("id", id.into())]);
        let (held, pending) = snapshot_rows(&self.recv().await);
        let mut held: Vec<String> = held
            .into_iter()
            .map(|(name, mode, client)| {
                format!("{} {mode} {client}", String::from_utf16_lossy(&name))
            })
            .collect();
        held.sort(); // compared as a set here (the order is tested in the core)
        let pending = pending
            .into_iter()
            .map(|(name, mode, client)| {
                format!("{} {mode} {client}", String::from_utf16_lossy(&name))
            })
            .collect();
        (held, pending)
    }
}

type Row = (Vec<u16>, &'static str, String);

/// A `snapshot` reply decoded as the glue does (js/client/lock-manager.js): (name code units,
/// mode, clientId) of its held and pending requests.
fn snapshot_rows(reply: &JsValue) -> (Vec<Row>, Vec<Row>) {
    assert_eq!(get(reply, "type").as_string().unwrap(), "snapshot");
    let names: Vec<u16> = js_sys::JsString::from(get(reply, "names")).iter().collect();
    let clients = js_sys::Array::from(&get(reply, "clientIds"));
    let mut offset = 0;
    let mut rows = |key: &str| -> Vec<Row> {
        let codes = js_sys::Uint32Array::from(get(reply, key)).to_vec();
        codes
            .chunks(2)
            .map(|pair| {
                let end = offset + pair[0] as usize;
                let name = names[offset..end].to_vec();
                offset = end;
                let mode = if pair[1] & 1 == 1 {
                    "shared"
                } else {
                    "exclusive"
                };
                let client = clients.get(pair[1] >> 2).as_string().unwrap();
                (name, mode, client)
            })
            .collect()
    };
    let held = rows("held");
    (held, rows("pending"))
}

fn strings(names: &[&str]) -> JsValue {
    names
        .iter()
        .map(|name| JsValue::from(*name))
        .collect::<js_sys::Array>()
        .into()
}

fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &key.into()).unwrap()
}

fn pending_promise() -> (Promise, js_sys::Function) {
    let mut wake = None;
    let promise = Promise::new(&mut |resolve, _| wake = Some(resolve));
    (promise, wake.unwrap())
}

/// Contexts `a` and `b` of a new driver, `a` holding `x` (its request 1).
async fn a_holding_x() -> (Handle, Context, Context) {
    let driver = new_driver();
    let a = Context::hello(driver, "a").await;
    let b = Context::hello(driver, "b").await;
    a.request(1, "x", &[]);
    assert_eq!(a.recv_kind().await, ("granted".into(), Some(1)));
    (driver, a, b)
}

async fn sleep(ms: i32) {
    let wait = Promise::new(&mut |done, _| {
        let global = js_sys::global();
        let set_timeout: js_sys::Function = get(&global, "setTimeout").unchecked_into();
        set_timeout.call2(&global, &done, &ms.into()).unwrap();
    });
    JsFuture::from(wait).await.unwrap();
}

/// A new worker's driver, whose first claim of the origin is still under way (the tests
/// answer for it: [`won`]).
fn electing_driver() -> Handle {
    let driver = Driver::new(Service::new(&text("test-epoch")));
    with(driver, |d| {
        d.service().handle_lifeline(Some(&text("test-lifeline")))
    });
    driver
}

/// The driver's claim won, with these survivors' databases surveyed.
fn won(driver: Handle, survey: &[&str]) {
    let leader = Leader {
        epoch: text("test-epoch"),
        url: text("test-url"),
        lifeline: text("test-lifeline"),
    };
    let survey = survey.iter().map(|db| text(db)).collect();
    with(driver, |d| d.service().handle_claimed(leader, survey));
}

/// A driver whose lifeline is open and whose survey found no survivors.
fn new_driver() -> Handle {
    let driver = electing_driver();
    won(driver, &[]);
    driver
}

#[wasm_bindgen_test]
fn runs_inside_a_shared_worker() {
    let global = js_sys::global();
    let name = get(&get(&global, "constructor"), "name")
        .as_string()
        .unwrap();
    assert_eq!(name, "SharedWorkerGlobalScope");
}

#[wasm_bindgen_test]
async fn grants_hands_over_and_snapshots_across_clients() {
    let driver = new_driver();
    let a = Context::hello(driver, "client-a").await;
    let b = Context::hello(driver, "client-b").await;
    a.request(1, "res", &[]);
    assert_eq!(a.recv_kind().await, ("granted".into(), Some(1)));
    b.request(7, "res", &[]);
    assert_eq!(
        b.query(8).await,
        (
            vec!["res exclusive client-a".into()],
            vec!["res exclusive client-b".into()]
        )
    );
    a.send(&[("type", "release".into()), ("id", 1.into())]);
    assert_eq!(b.recv_kind().await, ("granted".into(), Some(7)));
    assert_eq!(
        a.query(2).await,
        (vec!["res exclusive client-b".into()], vec![])
    );
}

#[wasm_bindgen_test]
async fn if_available_steal_and_abort() {
    let (_, a, b) = a_holding_x().await;
    b.request(1, "x", &[("ifAvailable", true.into())]);
    assert_eq!(b.recv_kind().await, ("notAvailable".into(), Some(1)));
    b.request(2, "x", &[]);
    b.send(&[("type", "abort".into()), ("id", 2.into())]);
    b.request(3, "x", &[("steal", true.into())]);
    assert_eq!(a.recv_kind().await, ("stolen".into(), Some(1)));
    assert_eq!(b.recv_kind().await, ("granted".into(), Some(3)));
    assert_eq!(b.query(4).await, (vec!["x exclusive b".into()], vec![]));
}

#[wasm_bindgen_test]
async fn scopes_are_granted_on_all_their_names_at_once() {
    let driver = new_driver();
    let a = Context::hello(driver, "a").await;
    let b = Context::hello(driver, "b").await;
    a.request(1, "y", &[]);
    assert_eq!(a.recv_kind().await, ("granted".into(), Some(1)));
    b.send(&[
        ("type", "request".into()),
        ("id", 1.into()),
        ("names", strings(&["x", "y"])),
        ("mode", "exclusive".into()),
    ]);
    let pending = vec!["x exclusive b".into(), "y exclusive b".into()];
    assert_eq!(b.query(2).await, (vec!["y exclusive a".into()], pending));
    // The snapshot marks a scope's entries: all but its last say "more".
    b.send(&[("type", "query".into()), ("id", 3.into())]);
    let codes = js_sys::Uint32Array::from(get(&b.recv().await, "pending")).to_vec();
    assert_eq!(
        codes
            .iter()
            .skip(1)
            .step_by(2)
            .map(|c| c & 2)
            .collect::<Vec<_>>(),
        [2, 0]
    );
    a.send(&[("type", "release".into()), ("id", 1.into())]);
    assert_eq!(b.recv_kind().await, ("granted".into(), Some(1)));
    let held = vec!["x exclusive b".into(), "y exclusive b".into()];
    assert_eq!(a.query(2).await, (held, vec![]));
}

#[wasm_bindgen_test]
async fn goodbye_releases_held_locks_and_drops_requests() {
    let (_, a, b) = a_holding_x().await;
    a.request(2, "y", &[]);
    assert_eq!(a.recv_kind().await, ("granted".into(), Some(2)));
    b.request(1, "x", &[]);
    a.request(3, "x", &[]);
    a.send(&[("type", "goodbye".into())]);
    assert_eq!(b.recv_kind().await, ("granted".into(), Some(1)));
    assert_eq!(b.query(2).await, (vec!["x exclusive b".into()], vec![]));
}

#[wasm_bindgen_test]
async fn malformed_messages_are_refused_and_others_keep_working() {
    let driver = new_driver();
    let a = Context::hello(driver, "a").await;
    let bad = Context::hello(driver, "bad").await;
    a.request(1, "shared-state", &[]);
    assert_eq!(a.recv_kind().await, ("granted".into(), Some(1)));

    let garbage: Vec<JsValue> = vec![
        JsValue::NULL,
        42.into(),
        "text".into(),
        js_sys::Array::new().into(),
        Object::new().into(),
        // A tuple as serde-wasm-bindgen writes it: an array, not a message.
        serde_wasm_bindgen::to_value(&(2u32, "request")).unwrap(),
    ];
    for value in garbage {
        bad.port.post_message(&value).unwrap();
        assert_eq!(bad.recv_kind().await, ("error".into(), None));
    }
    // Read fields are echoed back as the id of the refusal.
    let cases: Vec<Vec<(&str, JsValue)>> = vec![
        vec![("type", "launch".into()), ("id", 5.into())],
        vec![("type", "request".into()), ("id", 6.into())],
        vec![
            ("type", "request".into()),
            ("id", 7.into()),
            ("name", "n".into()),
            ("mode", "write".into()),
        ],
        vec![
            ("type", "request".into()),
            ("id", 8.into()),
            ("name", 3.into()),
            ("mode", "shared".into()),
        ],
        vec![
            ("type", "request".into()),
            ("id", 9.into()),
            ("name", "-reserved".into()),
            ("mode", "shared".into()),
        ],
        // A reclaim is a request made before a restart: the same checks.
        vec![
            ("type", "reclaim".into()),
            ("id", 30.into()),
            ("name", "-reserved".into()),
            ("mode", "exclusive".into()),
        ],
        // Scopes: an array of strings, sorted, distinct, not empty, none reserved.
        vec![
            ("type", "request".into()),
            ("id", 20.into()),
            ("names", "n".into()),
            ("mode", "shared".into()),
        ],
        vec![
            ("type", "request".into()),
            ("id", 21.into()),
            ("names", strings(&["b", "a"])),
            ("mode", "shared".into()),
        ],
        vec![
            ("type", "request".into()),
            ("id", 22.into()),
            ("names", strings(&["a", "a"])),
            ("mode", "shared".into()),
        ],
        vec![
            ("type", "request".into()),
            ("id", 23.into()),
            ("names", strings(&[])),
            ("mode", "shared".into()),
        ],
        vec![
            ("type", "request".into()),
            ("id", 24.into()),
            ("names", js_sys::Array::of2(&"a".into(), &3.into()).into()),
            ("mode", "shared".into()),
        ],
        vec![
            ("type", "request".into()),
            ("id", 25.into()),
            ("names", strings(&["a", "-b"])),
            ("mode", "shared".into()),
        ],
        // A sparse array's length is whatever its sender set: nothing is reserved from it.
        vec![
            ("type", "request".into()),
            ("id", 26.into()),
            ("names", js_sys::Array::new_with_length(u32::MAX).into()),
            ("mode", "shared".into()),
        ],
        vec![
            ("type", "request".into()),
            ("id", 10.into()),
            ("name", "n".into()),
            ("mode", "shared".into()),
            ("steal", true.into()),
        ],
        vec![
            ("type", "request".into()),
            ("id", 11.into()),
            ("name", "n".into()),
            ("mode", "exclusive".into()),
            ("steal", true.into()),
            ("ifAvailable", true.into()),
        ],
    ];
    for fields in cases {
        let id = fields[1].1.as_f64().map(|id| id as u32);
        bad.send(&fields);
        assert_eq!(bad.recv_kind().await, ("error".into(), id));
    }
    // Another version is refused even when well formed.
    let old = Object::new();
    for (k, v) in [
        ("v", JsValue::from(1)),
        ("type", "query".into()),
        ("id", 12.into()),
    ] {
        Reflect::set(&old, &k.into(), &v).unwrap();
    }
    bad.port.post_message(&old).unwrap();
    assert_eq!(bad.recv_kind().await, ("error".into(), Some(12)));
    // The compatibility contract (docs/protocol.md): a later version's message, with a field
    // this version does not know, is read as this version's.
    let later = Object::new();
    for (k, v) in [
        ("v", JsValue::from(VERSION + 1)),
        ("type", "request".into()),
        ("id", 13.into()),
        ("name", "later".into()),
        ("mode", "shared".into()),
        ("addedLater", true.into()),
    ] {
        Reflect::set(&later, &k.into(), &v).unwrap();
    }
    bad.port.post_message(&later).unwrap();
    assert_eq!(bad.recv_kind().await, ("granted".into(), Some(13)));
    // Re-sending a live request is idempotent (its grant is repeated); hello twice is refused.
    bad.request(20, "d", &[]);
    assert_eq!(bad.recv_kind().await, ("granted".into(), Some(20)));
    bad.request(20, "d", &[]);
    assert_eq!(bad.recv_kind().await, ("granted".into(), Some(20)));
    bad.send(&[("type", "hello".into()), ("clientId", "again".into())]);
    assert_eq!(bad.recv_kind().await, ("error".into(), None));

    // Nothing leaked into the state; the other client is unharmed.
    let (held, pending) = a.query(2).await;
    assert_eq!(
        held,
        vec![
            "d exclusive bad".to_string(),
            "later shared bad".to_string(),
            "shared-state exclusive a".to_string()
        ]
    );
    assert!(pending.is_empty());
    a.send(&[("type", "release".into()), ("id", 1.into())]);
    a.request(3, "shared-state", &[]);
    assert_eq!(a.recv_kind().await, ("granted".into(), Some(3)));
}

#[wasm_bindgen_test]
async fn requests_before_hello_are_refused() {
    let driver = new_driver();
    let anonymous = Context::connect(driver);
    anonymous.request(1, "x", &[]);
    assert_eq!(anonymous.recv_kind().await, ("error".into(), Some(1)));
}

#[wasm_bindgen_test]
async fn a_second_port_with_the_same_client_id_takes_over_the_client() {
    let (driver, first, b) = a_holding_x().await;
    b.request(1, "x", &[]);
    first.request(2, "y", &[]);
    assert_eq!(first.recv_kind().await, ("granted".into(), Some(2)));
    // The context believed the worker dead and reconnects, re-declaring everything.
    let second = Context::hello(driver, "a").await;
    second.reclaim(1, "x");
    second.request(2, "y", &[]); // its grant may have been lost: it is sent again
    assert_eq!(second.recv_kind().await, ("granted".into(), Some(2)));
    let state = second.query(3).await;
    assert_eq!(
        state,
        (
            vec!["x exclusive a".into(), "y exclusive a".into()],
            vec!["x exclusive b".into()]
        )
    );
    second.send(&[("type", "release".into()), ("id", 1.into())]);
    assert_eq!(b.recv_kind().await, ("granted".into(), Some(1)));
}

#[wasm_bindgen_test]
async fn a_reclaim_of_a_lock_given_away_meanwhile_is_answered_stolen() {
    let (driver, _, b) = a_holding_x().await;
    // b steals x and gives it back; the context learns nothing of it (that reply went to a
    // port it gives up), reconnects and reclaims x, now free: not taken back unnoticed.
    b.request(1, "x", &[("steal", true.into())]);
    assert_eq!(b.recv_kind().await, ("granted".into(), Some(1)));
    b.send(&[("type", "release".into()), ("id", 1.into())]);
    let second = Context::hello(driver, "a").await;
    second.reclaim(1, "x");
    assert_eq!(second.recv_kind().await, ("stolen".into(), Some(1)));
    assert_eq!(second.query(2).await, (vec![], vec![]));
}

#[wasm_bindgen_test]
async fn a_port_given_up_before_it_arrived_neither_takes_replies_nor_makes_requests() {
    let driver = new_driver();
    // The context's second port arrives first (its first went to a busy courier).
    let second = Context::connect(driver);
    second.send(&[
        ("type", "hello".into()),
        ("clientId", "s".into()),
        ("n", 2.into()),
    ]);
    assert_eq!(second.recv_kind().await, ("welcome".into(), None));
    second.send(&[("type", "watch".into())]);
    second.request(1, "x", &[]);
    assert_eq!(second.recv_kind().await, ("granted".into(), Some(1)));
    let b = Context::hello(driver, "b").await;
    b.request(1, "x", &[]);
    // The first port, handed on late, carries what the context said before giving it up:
    // a steal (declared anew on the second port, since granted and released there) is not
    // heard again; a release is.
    let first = Context::connect(driver);
    first.send(&[
        ("type", "hello".into()),
        ("clientId", "s".into()),
        ("n", 1.into()),
    ]);
    first.request(2, "y", &[("steal", true.into())]);
    first.send(&[("type", "release".into()), ("id", 1.into())]);
    assert_eq!(b.recv_kind().await, ("granted".into(), Some(1)));
    // Replies still go to the second port: nothing was welcomed or granted on the first.
    assert_eq!(
        second.query(3).await,
        (vec!["x exclusive b".into()], vec![])
    );
    assert!(first.inbox.borrow().messages.is_empty());
}

/// Each of `names` requested by one context, then its query: the held names come back
/// exactly, code unit for code unit.
async fn names_come_back_exact(names: &[&[u16]]) {
    let driver = new_driver();
    let a = Context::hello(driver, "a").await;
    for (i, units) in names.iter().enumerate() {
        let name: JsValue = js_sys::JsString::from_char_code(units).into();
        a.send(&[
            ("type", "request".into()),
            ("id", (i as u32 + 1).into()),
            ("name", name),
            ("mode", "exclusive".into()),
        ]);
        assert_eq!(a.recv_kind().await, ("granted".into(), Some(i as u32 + 1)));
    }
    a.send(&[("type", "query".into()), ("id", 99.into())]);
    let (held, _) = snapshot_rows(&a.recv().await);
    let held: Vec<Vec<u16>> = held.into_iter().map(|(name, ..)| name).collect();
    assert_eq!(held, names.iter().map(|n| n.to_vec()).collect::<Vec<_>>());
}

#[wasm_bindgen_test]
async fn names_keep_lone_surrogates_both_ways() {
    names_come_back_exact(&[&[0xD800], &[0xDC00], &[0x61, 0xDC00, 0x62]]).await;
}

#[wasm_bindgen_test]
async fn snapshot_names_come_back_exact_whether_well_formed_or_not() {
    // Well formed (decoded in one call): U+FEFF first (not taken for a byte order mark), a
    // pair, U+FFFD, ASCII; then two lone halves whose concatenation in the snapshot is a pair.
    names_come_back_exact(&[
        &[0xFEFF, 0x61],
        &[0xD83D, 0xDE00],
        &[0xFFFD],
        &[0xFEFF],
        &[0x62],
    ])
    .await;
    names_come_back_exact(&[&[0xD83D], &[0xDE00]]).await;
}

#[wasm_bindgen_test]
async fn requests_wait_for_the_claim_and_its_survey() {
    let driver = electing_driver();
    let a = Context::connect(driver);
    a.send(&[("type", "hello".into()), ("clientId", "a".into())]);
    a.request(1, "x", &[("ifAvailable", true.into())]);
    a.send(&[("type", "query".into()), ("id", 2.into())]);
    a.send(&[("type", "watch".into())]);
    // Nothing is decided before the claim and its survey answer; then in arrival order.
    sleep(50).await;
    assert!(
        a.inbox.borrow().messages.is_empty(),
        "nothing answered while electing"
    );
    won(driver, &[]);
    assert_eq!(a.recv_kind().await, ("welcome".into(), None));
    assert_eq!(a.recv_kind().await, ("granted".into(), Some(1)));
    let (held, _) = snapshot_rows(&a.recv().await);
    assert_eq!(held.len(), 1);
}

#[wasm_bindgen_test]
async fn abort_of_a_granted_request_releases_it_and_old_ports_still_count() {
    let (driver, a, b) = a_holding_x().await;
    b.request(1, "x", &[]);
    // a's signal aborted before it saw the grant (which its replaced port may have lost).
    a.send(&[("type", "abort".into()), ("id", 1.into())]);
    assert_eq!(b.recv_kind().await, ("granted".into(), Some(1)));
    // b reconnects on a new port; a release it had posted on the old port arrives after.
    let b2 = Context::hello(driver, "b").await;
    b.send(&[("type", "release".into()), ("id", 1.into())]);
    a.request(2, "x", &[]);
    assert_eq!(a.recv_kind().await, ("granted".into(), Some(2)));
    assert_eq!(b2.query(3).await, (vec!["x exclusive a".into()], vec![]));
}

#[wasm_bindgen_test]
async fn a_live_context_taken_for_dead_is_told_so_before_its_port_closes() {
    let driver = new_driver();
    // a names a database it never opened: its watch finds none, looks again, and gives up.
    let a = Context::connect(driver);
    let db = JsValue::from(format!("test-never-opened-{}", js_sys::Math::random()));
    a.send(&[
        ("type", "hello".into()),
        ("clientId", "a".into()),
        ("db", db.clone()),
    ]);
    assert_eq!(a.recv_kind().await, ("welcome".into(), None));
    a.send(&[("type", "watch".into()), ("db", db)]);
    a.request(1, "x", &[]);
    assert_eq!(a.recv_kind().await, ("granted".into(), Some(1)));
    let b = Context::hello(driver, "b").await;
    b.request(1, "x", &[]);
    // Taken for dead: its lock goes to b, and it hears `evicted` (so that, alive, it
    // connects again) before the worker closes the port.
    assert_eq!(b.recv_kind().await, ("granted".into(), Some(1)));
    assert_eq!(a.recv_kind().await, ("evicted".into(), None));
}

#[wasm_bindgen_test]
async fn a_goodbye_takes_the_contexts_dedicated_workers_with_it() {
    let driver = new_driver();
    let page = Context::hello(driver, "page").await;
    let worker = Context::hello(driver, "worker").await;
    let shared = Context::hello(driver, "shared").await;
    let other = Context::hello(driver, "other").await;
    worker.request(1, "w", &[]);
    assert_eq!(worker.recv_kind().await, ("granted".into(), Some(1)));
    shared.request(1, "s", &[]);
    assert_eq!(shared.recv_kind().await, ("granted".into(), Some(1)));
    other.request(1, "w", &[]);
    other.request(2, "s", &[]);
    // The page enters the back/forward cache, freezing its dedicated worker with it: its
    // goodbye names the worker (and one that ended before), whose client goes too, told so
    // (to connect again once thawed); its lock goes to the waiter. A shared worker the page
    // handed on is no dedicated worker of it, and lives on.
    page.send(&[
        ("type", "goodbye".into()),
        ("names", strings(&["worker", "ended-before"])),
    ]);
    assert_eq!(worker.recv_kind().await, ("evicted".into(), None));
    assert_eq!(other.recv_kind().await, ("granted".into(), Some(1)));
    assert_eq!(
        other.query(3).await,
        (
            vec!["s exclusive shared".into(), "w exclusive other".into()],
            vec!["s exclusive other".into()]
        )
    );
}

/// Opens the IndexedDB database `name` (version 1) and keeps it open for the test's life,
/// as a living context keeps its liveness database.
async fn open_database(name: &str) {
    let open = js_sys::Function::new_with_args(
        "name",
        "return new Promise((done) => { const q = indexedDB.open(name, 1); \
         q.onsuccess = () => { (self.kept ||= []).push(q.result); done(); }; })",
    );
    let opened = open.call1(&JsValue::NULL, &name.into()).unwrap();
    JsFuture::from(opened.unchecked_into::<Promise>())
        .await
        .unwrap();
}

#[wasm_bindgen_test]
async fn a_replaced_ports_watch_does_not_end_the_wait_for_a_survivor() {
    // A restarted worker whose survey found a context's database: it waits for that survivor.
    let db = format!("test-survivor-{}", js_sys::Math::random());
    open_database(&db).await;
    let driver = electing_driver();
    won(driver, &[&db]);
    let b = Context::hello(driver, "b").await;
    b.request(1, "x", &[]);
    // The survivor held x. Its second port's hello arrives; then its first port's whole
    // batch (given up for lost, handed on late by a courier): that reclaim and that watch
    // are not heard from a replaced port, and the wait goes on.
    let hello = |n: u32| {
        [
            ("type", "hello".into()),
            ("clientId", "s".into()),
            ("db", JsValue::from(&db)),
            ("n", n.into()),
        ]
    };
    let second = Context::connect(driver);
    second.send(&hello(2));
    assert_eq!(second.recv_kind().await, ("welcome".into(), None));
    let first = Context::connect(driver);
    first.send(&hello(1));
    first.reclaim(1, "x");
    first.send(&[("type", "watch".into()), ("db", JsValue::from(&db))]);
    first.send(&[("type", "unknown".into())]); // answered `error`: the batch was read
    assert_eq!(first.recv_kind().await, ("error".into(), None));
    // The second port's own re-declaration: x is still the survivor's, b still waits.
    second.reclaim(1, "x");
    second.send(&[("type", "watch".into()), ("db", JsValue::from(&db))]);
    assert_eq!(
        second.query(2).await,
        (vec!["x exclusive s".into()], vec!["x exclusive b".into()])
    );
    second.send(&[("type", "release".into()), ("id", 1.into())]);
    assert_eq!(b.recv_kind().await, ("granted".into(), Some(1)));
}

#[wasm_bindgen_test]
async fn a_survivor_that_gives_up_its_database_is_awaited_no_more() {
    // A restarted worker whose survey found a context's database waits for that survivor; the
    // survivor re-declares, then says it watches no database (it failed to open it, or gave
    // it up after the site's storage was cleared): the wait ends then, not at its 3 s limit.
    let db = format!("test-survivor-{}", js_sys::Math::random());
    open_database(&db).await;
    let driver = electing_driver();
    won(driver, &[&db]);
    let b = Context::hello(driver, "b").await;
    b.request(1, "y", &[]);
    let s = Context::connect(driver);
    s.send(&[
        ("type", "hello".into()),
        ("clientId", "s".into()),
        ("db", JsValue::from(&db)),
        ("n", 1.into()),
    ]);
    s.reclaim(1, "x");
    s.send(&[("type", "watch".into())]);
    s.send(&[("type", "unknown".into())]); // answered `error`: the batch was read
    assert_eq!(s.recv_kind().await, ("welcome".into(), None));
    assert_eq!(s.recv_kind().await, ("error".into(), None));
    with(driver, |d| assert!(!d.service().is_recovering()));
    assert_eq!(b.recv_kind().await, ("granted".into(), Some(1)));
}
