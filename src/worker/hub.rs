//! The worker's state: the core lock manager plus one client per connected port.
//!
//! A message is handled in two phases so that no `RefCell` borrow is ever held while
//! JavaScript runs: [`Hub::handle`] updates the state and returns the replies (an
//! [`Outbox`]); the caller posts them after the borrow has ended.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use rustc_hash::FxHashMap;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{MessageEvent, MessagePort};

use super::codec::{self, Refused};
use super::death_watch::DeathWatch;
use super::listener::Listener;
use crate::core::{Action, ClientId, LockManager, RequestError, RequestId};
use crate::protocol::{self, ClientMessage, LockInfo, WorkerMessage};

struct Client {
    port: MessagePort,
    /// The spec's clientId, from the client's `hello`.
    client_id: Option<String>,
    _on_message: Listener,
}

/// Replies to post once the state is no longer borrowed.
#[derive(Default)]
pub(crate) struct Outbox {
    messages: Vec<(MessagePort, JsValue)>,
    /// Clients and watches that ended; dropped (listeners removed) after the replies
    /// went out, never while their own listener runs inside a borrow.
    gone: Vec<Client>,
    watches_gone: Vec<DeathWatch>,
    /// A port handed over with `adopt`, to connect as a new client.
    adopted: Option<MessagePort>,
}

impl Outbox {
    pub(crate) fn send(self) {
        for (port, message) in self.messages {
            if let Err(e) = port.post_message(&message) {
                web_sys::console::error_2(&"web-locks worker: postMessage failed".into(), &e);
            }
        }
        drop(self.gone);
        drop(self.watches_gone);
    }
}

pub(crate) struct Hub {
    core: LockManager,
    clients: FxHashMap<ClientId, Client>,
    /// Death watches by client; each lives until it fires, even after a `goodbye`, so that
    /// the client's database is always cleaned up.
    watches: FxHashMap<ClientId, DeathWatch>,
    next_client: u32,
    me: Weak<RefCell<Hub>>,
}

/// A context's request id made unique across the worker: the client in the high half.
fn global(client: ClientId, id: u32) -> RequestId {
    RequestId(u64::from(client.0) << 32 | u64::from(id))
}

fn local(request: RequestId) -> u32 {
    request.0 as u32
}

impl Hub {
    pub(crate) fn new() -> Rc<RefCell<Hub>> {
        Rc::new_cyclic(|me| {
            RefCell::new(Hub {
                core: LockManager::new(),
                clients: FxHashMap::default(),
                watches: FxHashMap::default(),
                next_client: 0,
                me: me.clone(),
            })
        })
    }

    /// Registers `port` as a new client and starts listening to it.
    pub(crate) fn connect(hub: &Rc<RefCell<Hub>>, port: MessagePort) {
        let client = {
            let mut state = hub.borrow_mut();
            state.next_client += 1;
            ClientId(state.next_client)
        };
        let weak: Weak<RefCell<Hub>> = Rc::downgrade(hub);
        let on_message = Listener::new(&port, "message", move |event| {
            let Some(hub) = weak.upgrade() else { return };
            let event = event.unchecked_into::<MessageEvent>();
            let outbox = hub
                .borrow_mut()
                .handle(client, &event.data(), &event.ports());
            if let Some(port) = outbox.adopted.clone() {
                Hub::connect(&hub, port);
            }
            outbox.send();
        });
        port.start();
        hub.borrow_mut().clients.insert(
            client,
            Client {
                port,
                client_id: None,
                _on_message: on_message,
            },
        );
    }

    /// Applies one message from `client`; never panics on bad input. `ports` are the
    /// ports transferred with it.
    pub(crate) fn handle(
        &mut self,
        client: ClientId,
        data: &JsValue,
        ports: &js_sys::Array,
    ) -> Outbox {
        let mut outbox = Outbox::default();
        let result = codec::decode(data).and_then(|message| {
            if message == ClientMessage::Adopt {
                let port = ports
                    .get(0)
                    .dyn_into::<MessagePort>()
                    .map_err(|_| Refused {
                        id: None,
                        message: "adopt without a port".into(),
                    })?;
                outbox.adopted = Some(port);
                return Ok(());
            }
            self.apply(client, message, &mut outbox)
        });
        if let Err(refused) = result {
            web_sys::console::error_1(&format!("web-locks worker: {}", refused.message).into());
            self.reply(
                &mut outbox,
                client,
                WorkerMessage::Error {
                    id: refused.id,
                    message: refused.message,
                },
            );
        }
        self.carry_out(&mut outbox);
        outbox
    }

    fn apply(
        &mut self,
        client: ClientId,
        message: ClientMessage,
        outbox: &mut Outbox,
    ) -> Result<(), Refused> {
        let refuse = |id: Option<u32>, message: &str| Refused {
            id,
            message: message.to_string(),
        };
        let known = self
            .clients
            .get(&client)
            .is_some_and(|c| c.client_id.is_some());
        match message {
            ClientMessage::Hello { client_id } => {
                let entry = self
                    .clients
                    .get_mut(&client)
                    .ok_or_else(|| refuse(None, "unknown port"))?;
                if entry.client_id.is_some() {
                    return Err(refuse(None, "hello sent twice"));
                }
                entry.client_id = Some(client_id);
            }
            ClientMessage::Watch { db } => {
                if self.watches.contains_key(&client) {
                    return Err(refuse(None, "watch sent twice"));
                }
                let hub = self.me.clone();
                let watch = DeathWatch::start(&db, move || {
                    let Some(hub) = hub.upgrade() else { return };
                    let outbox = hub.borrow_mut().client_died(client);
                    outbox.send();
                })
                .map_err(|_| refuse(None, "cannot watch that database"))?;
                self.watches.insert(client, watch);
            }
            ClientMessage::Request { id, .. } | ClientMessage::Query { id } if !known => {
                return Err(refuse(Some(id), "hello must come first"));
            }
            ClientMessage::Request {
                id,
                name,
                mode,
                if_available,
                steal,
            } => {
                let flavor = protocol::flavor(&name, mode, if_available, steal)
                    .map_err(|e| refuse(Some(id), e))?;
                self.core
                    .request(client, global(client, id), &name, mode, flavor)
                    .map_err(|e: RequestError| refuse(Some(id), &e.to_string()))?;
            }
            ClientMessage::Release { id } => {
                self.core.release(global(client, id));
            }
            ClientMessage::Abort { id } => {
                self.core.abort(global(client, id));
            }
            ClientMessage::Query { id } => {
                let snapshot = self.snapshot(id);
                self.reply(outbox, client, snapshot);
            }
            ClientMessage::Goodbye => self.disconnect(client, outbox),
            ClientMessage::Adopt => unreachable!("handled with its port"),
        }
        Ok(())
    }

    /// The client's death watch fired: it is gone even if it never said goodbye.
    fn client_died(&mut self, client: ClientId) -> Outbox {
        let mut outbox = Outbox::default();
        self.disconnect(client, &mut outbox);
        outbox.watches_gone.extend(self.watches.remove(&client));
        self.carry_out(&mut outbox);
        outbox
    }

    /// §2.6 for a client whose context went away.
    pub(crate) fn disconnect(&mut self, client: ClientId, outbox: &mut Outbox) {
        self.core.client_gone(client);
        if let Some(gone) = self.clients.remove(&client) {
            gone.port.close();
            outbox.gone.push(gone);
        }
    }

    /// §4.5, with each lock's clientId as its context announced it.
    fn snapshot<'a>(&'a self, id: u32) -> WorkerMessage<'a> {
        let snapshot = self.core.snapshot();
        let info = |i: &crate::core::LockInfo<'a>| -> LockInfo<'a> {
            LockInfo {
                name: i.name,
                mode: i.mode,
                client_id: self
                    .clients
                    .get(&i.client)
                    .and_then(|c| c.client_id.as_deref())
                    .unwrap_or(""),
            }
        };
        WorkerMessage::Snapshot {
            id,
            held: snapshot.held.iter().map(info).collect(),
            pending: snapshot.pending.iter().map(info).collect(),
        }
    }

    /// Turns the core's actions into messages to the clients concerned.
    fn carry_out(&mut self, outbox: &mut Outbox) {
        while let Some(action) = self.core.poll_action() {
            let (client, message) = match action {
                Action::Granted { client, request } => {
                    (client, WorkerMessage::Granted { id: local(request) })
                }
                Action::NotAvailable { client, request } => {
                    (client, WorkerMessage::NotAvailable { id: local(request) })
                }
                Action::Stolen { client, request } => {
                    (client, WorkerMessage::Stolen { id: local(request) })
                }
            };
            self.reply(outbox, client, message);
        }
    }

    fn reply(&self, outbox: &mut Outbox, client: ClientId, message: WorkerMessage<'_>) {
        if let Some(c) = self.clients.get(&client) {
            outbox
                .messages
                .push((c.port.clone(), codec::encode(message)));
        }
    }
}
