//! The I/O around the lock service: ports, death watches, timers. Every decision is the
//! service's (src/service/); this file only performs its outputs.
//!
//! An event is handled in two phases so that no `RefCell` borrow is ever held while
//! JavaScript runs: the service is fed and its outputs performed into an [`Outbox`]; the
//! messages are posted after the borrow has ended.

use crate::prelude::*;
use alloc::boxed::Box;
use core::cell::RefCell;

use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{MessageEvent, MessagePort};

use super::codec::{encode_text, Codec, Decoded};
use super::death_watch::DeathWatch;
use super::listener::Listener;
use super::timer::Timer as JsTimer;
use crate::protocol::Text;
use crate::service::{Output, PortId, Service, Timer};
use crate::table::Table;

struct Connected {
    port: MessagePort,
    _on_message: Listener,
}

/// A port the service closed is closed when dropped: after the outbox's messages went out,
/// its last one (`evicted`) among them (a message posted to a closed port is lost).
impl Drop for Connected {
    fn drop(&mut self) {
        self.port.close();
    }
}

/// Messages to post once the state is no longer borrowed.
#[derive(Default)]
pub(crate) struct Outbox {
    messages: Vec<(MessagePort, JsValue)>,
    /// Ports, watches and timers that ended: dropped (listeners removed) after the
    /// messages went out, never while their own listener runs inside a borrow.
    dropped: Vec<Ended>,
}

#[wasm_bindgen]
extern "C" {
    /// The loader's claim of the origin and survey of its databases (`Output::Claim`).
    #[wasm_bindgen(js_namespace = wasm_bindgen)]
    fn claim(over: &JsValue);
    /// The loader posts this on the lock workers' channel (`Output::Tabs`): 1 asks, 2 says
    /// this worker's tab is visible.
    #[wasm_bindgen(js_namespace = wasm_bindgen)]
    fn tabs(signal: u32);
    /// The loader ends this worker (`Output::Resign`).
    #[wasm_bindgen(js_namespace = wasm_bindgen)]
    fn resign();

    #[wasm_bindgen(js_name = MessagePort)]
    type Port;
    /// `postMessage` without web-sys's `catch`: the codec's messages (plain objects, strings,
    /// numbers) always clone, and a closed port throws nothing.
    #[wasm_bindgen(method, js_name = postMessage)]
    fn post(this: &Port, message: &JsValue);
}

/// A port, watch or timer that ended, kept until it can be dropped.
#[allow(dead_code)] // (held only to be dropped)
enum Ended {
    Port(Connected),
    Watch(DeathWatch),
    Timer(JsTimer),
}

impl Outbox {
    pub(crate) fn send(self) {
        for (port, message) in self.messages {
            port.unchecked_ref::<Port>().post(&message);
        }
        drop(self.dropped);
    }
}

pub(crate) struct Driver {
    service: Service,
    codec: Codec,
    ports: Table<PortId, Connected>,
    watches: Table<Text, DeathWatch>,
    timers: Table<Timer, JsTimer>,
    next_port: u32,
    /// Watches and timers whose own callback is running: dropped with the next outbox.
    ended: Vec<Ended>,
    /// This driver, for the callbacks it registers (set by [`Driver::new`]).
    me: Option<Handle>,
}

/// A driver serves for its realm's life: it is never dropped (so no code to drop one is in
/// the module), and callbacks refer to it directly.
pub(crate) type Handle = &'static RefCell<Driver>;

/// Feeds `driver` and posts what that produced.
pub(crate) fn with(driver: Handle, f: impl FnOnce(&mut Driver)) {
    let outbox = {
        let mut driver = driver.borrow_mut();
        f(&mut driver);
        driver.perform()
    };
    outbox.send();
}

impl Driver {
    pub(crate) fn new(service: Service) -> Handle {
        let driver: Handle = Box::leak(Box::new(RefCell::new(Driver {
            service,
            codec: Codec::new(),
            ports: Table::new(),
            watches: Table::new(),
            timers: Table::new(),
            next_port: 0,
            ended: Vec::new(),
            me: None,
        })));
        driver.borrow_mut().me = Some(driver);
        driver
    }

    fn me(&self) -> Handle {
        self.me.unwrap_or_else(|| unreachable!())
    }

    pub(crate) fn service(&mut self) -> &mut Service {
        &mut self.service
    }

    /// Listens to `port` as a new connection.
    pub(crate) fn connect(&mut self, port: MessagePort) {
        self.next_port += 1;
        let id = PortId(self.next_port);
        let me = self.me();
        let on_message = Listener::new(&port, "message", move |event| {
            let event = event.unchecked_into::<MessageEvent>();
            with(me, |driver| driver.receive(id, &event));
        });
        port.start();
        self.ports.insert(
            id,
            Connected {
                port,
                _on_message: on_message,
            },
        );
        self.service.handle_connect(id);
    }

    fn receive(&mut self, port: PortId, event: &MessageEvent) {
        match self.codec.decode(&event.data()) {
            Ok(Decoded::Message(message)) => self.service.handle_message(port, message),
            // (A message's `ports` hold only MessagePorts: no class check, which would fail
            // where a test environment replaced the global MessagePort class.)
            Ok(Decoded::Adopt) => match event.ports().get(0) {
                adopted if adopted.is_undefined() => {
                    self.refuse(port, None, "adopt without a port")
                }
                adopted => self.connect(adopted.unchecked_into()),
            },
            Err((id, message)) => self.refuse(port, id, message),
        }
    }

    fn refuse(&mut self, port: PortId, id: Option<u32>, message: &'static str) {
        web_sys::console::error_2(&"web-locks worker: refused:".into(), &message.into());
        self.service.handle_malformed(port, id, message);
    }

    /// Carries out the service's outputs; the messages go out with the returned outbox.
    fn perform(&mut self) -> Outbox {
        let mut outbox = Outbox {
            dropped: core::mem::take(&mut self.ended),
            ..Outbox::default()
        };
        while let Some(output) = self.service.poll_output() {
            match output {
                Output::Send(port, message) => {
                    if let Some(connected) = self.ports.get(&port) {
                        let message = self.codec.encode(&message);
                        outbox.messages.push((connected.port.clone(), message));
                    }
                }
                Output::Close(port) => {
                    if let Some(connected) = self.ports.remove(&port) {
                        outbox.dropped.push(Ended::Port(connected));
                    }
                }
                Output::Watch(db) => self.watch(db, &mut outbox),
                Output::SetTimer(timer, millis) => {
                    let me = self.me();
                    let js = JsTimer::once(millis, move || {
                        with(me, |driver| {
                            if let Some(fired) = driver.timers.remove(&timer) {
                                driver.ended.push(Ended::Timer(fired));
                            }
                            driver.service.handle_timer(timer);
                        })
                    });
                    if let Some(old) = self.timers.insert(timer, js) {
                        outbox.dropped.push(Ended::Timer(old));
                    }
                }
                Output::CancelTimer(timer) => {
                    if let Some(old) = self.timers.remove(&timer) {
                        outbox.dropped.push(Ended::Timer(old));
                    }
                }
                // The loader's (js/worker/worker-entry.js), which answers later, through `claimed`.
                Output::Claim(over) => claim(&encode_text(&over)),
                Output::Tabs(signal) => tabs(signal as u32 + 1),
                Output::Resign => resign(),
            }
        }
        outbox
    }

    fn watch(&mut self, db: Text, outbox: &mut Outbox) {
        let me = self.me();
        let name = db.clone();
        let started = DeathWatch::start(encode_text(&db).into(), move |end| {
            with(me, |driver| {
                if let Some(ended) = driver.watches.remove(&name) {
                    driver.ended.push(Ended::Watch(ended));
                }
                driver.service.handle_watch_end(&name, end);
            })
        });
        match started {
            Ok(watch) => {
                if let Some(old) = self.watches.insert(db, watch) {
                    outbox.dropped.push(Ended::Watch(old));
                }
            }
            // No IndexedDB in this worker: its context is served unwatched (its goodbye
            // remains), as one that has no database.
            Err(e) => web_sys::console::error_2(&"web-locks worker: cannot watch".into(), &e),
        }
    }
}
