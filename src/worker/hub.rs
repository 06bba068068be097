//! The worker's state: the core lock manager plus one client per connected port.
//!
//! A message is handled in two phases so that no `RefCell` borrow is ever held while
//! JavaScript runs: [`Hub::handle`] updates the state and returns the replies (an
//! [`Outbox`]); the caller posts them after the borrow has ended.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use std::any::Any;

use rustc_hash::{FxHashMap, FxHashSet};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{MessageEvent, MessagePort};

use super::codec::{self, Refused};
use super::death_watch::DeathWatch;
use super::listener::Listener;
use super::timer::Timer;
use crate::core::{Action, ClientId, LockManager, RequestError, RequestId, RequestState};
use crate::protocol::{self, ClientMessage, LockInfo, WorkerMessage};

struct Client {
    port: MessagePort,
    /// The spec's clientId, from the client's `hello`.
    client_id: Option<String>,
    /// The database it keeps open for as long as it lives, from its `watch`.
    db: Option<String>,
    _on_message: Listener,
}

/// A context's database under watch, and the client it belongs to once that client has
/// said so (after a restart, watches start before their clients reconnect).
pub(super) struct Watched {
    _watch: DeathWatch,
    pub(super) client: Option<ClientId>,
}

/// Replies to post once the state is no longer borrowed.
#[derive(Default)]
pub(crate) struct Outbox {
    messages: Vec<(MessagePort, JsValue)>,
    /// Clients, watches and timers that ended: dropped (listeners removed) after the
    /// replies went out, never while their own listener runs inside a borrow.
    dropped: Vec<Box<dyn Any>>,
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
        drop(self.dropped);
    }
}

pub(crate) struct Hub {
    pub(super) core: LockManager,
    clients: FxHashMap<ClientId, Client>,
    /// Death watches by database; each lives until it fires, even after a `goodbye`, so
    /// that every context's database is cleaned up.
    pub(super) watches: FxHashMap<String, Watched>,
    /// Recovery (see `recovery.rs`): databases of contexts that lived before this worker
    /// started and have neither re-declared their locks nor died yet.
    pub(super) expected: FxHashSet<String>,
    pub(super) recovery_deadline: Option<Timer>,
    /// Whether the survey of surviving contexts has been done (see `recovery.rs`).
    pub(super) surveyed: bool,
    /// This worker's identity and the database its clients watch (`welcome`), once open.
    epoch: String,
    lifeline: Option<String>,
    /// Connected clients by the clientId they announced.
    by_client_id: FxHashMap<String, ClientId>,
    /// Ports that took over an existing client (see [`Hub::rebind`]) → that client.
    aliases: FxHashMap<ClientId, ClientId>,
    next_client: u32,
    pub(super) me: Weak<RefCell<Hub>>,
}

fn message_id(message: &ClientMessage) -> Option<u32> {
    match message {
        ClientMessage::Request { id, .. }
        | ClientMessage::Reclaim { id, .. }
        | ClientMessage::Release { id }
        | ClientMessage::Abort { id }
        | ClientMessage::Query { id } => Some(*id),
        _ => None,
    }
}

/// A context's request id made unique across the worker: the client in the high half.
fn global(client: ClientId, id: u32) -> RequestId {
    RequestId(u64::from(client.0) << 32 | u64::from(id))
}

fn local(request: RequestId) -> u32 {
    request.0 as u32
}

impl Hub {
    pub(crate) fn new(epoch: String) -> Rc<RefCell<Hub>> {
        Rc::new_cyclic(|me| {
            RefCell::new(Hub {
                core: LockManager::new(),
                clients: FxHashMap::default(),
                watches: FxHashMap::default(),
                expected: FxHashSet::default(),
                recovery_deadline: None,
                surveyed: false,
                epoch,
                lifeline: None,
                by_client_id: FxHashMap::default(),
                aliases: FxHashMap::default(),
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
                db: None,
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
        let client = self.aliases.get(&client).copied().unwrap_or(client);
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
                entry.client_id = Some(client_id.clone());
                let client = match self.by_client_id.get(&client_id) {
                    Some(&existing) => self.rebind(existing, client, outbox),
                    None => {
                        self.by_client_id.insert(client_id, client);
                        client
                    }
                };
                self.welcome(outbox, client);
            }
            ClientMessage::Watch { .. }
            | ClientMessage::Reclaim { .. }
            | ClientMessage::Request { .. }
            | ClientMessage::Query { .. }
                if !known =>
            {
                return Err(refuse(message_id(&message), "hello must come first"));
            }
            ClientMessage::Watch { db } => {
                let entry = self.clients.get_mut(&client).expect("known");
                if entry.db.as_ref() == Some(&db) {
                    return Ok(()); // re-sent after a reconnection
                }
                if entry.db.is_some() {
                    return Err(refuse(None, "watch sent twice"));
                }
                entry.db = Some(db.clone());
                self.watch(db, Some(client))
                    .map_err(|_| refuse(None, "cannot watch that database"))?;
            }
            ClientMessage::Reclaim { id, name, mode } => {
                match self.core.reclaim(client, global(client, id), &name, mode) {
                    Ok(()) => {}
                    // Still held: the worker never lost it (see `rebind`).
                    Err(RequestError::DuplicateId)
                        if self.core.state(global(client, id))
                            == Some((client, RequestState::Held)) => {}
                    // Held by another survivor meanwhile: this lock is lost, as to a steal.
                    Err(RequestError::Conflict) => {
                        self.reply(outbox, client, WorkerMessage::Stolen { id })
                    }
                    Err(e) => return Err(refuse(Some(id), &e.to_string())),
                }
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
                let request = global(client, id);
                match self.core.request(client, request, &name, mode, flavor) {
                    Ok(()) => {}
                    // Re-sent after a reconnection (see `rebind`): still waiting, or granted
                    // with the grant lost on the old port.
                    Err(RequestError::DuplicateId) => match self.core.state(request) {
                        Some((owner, RequestState::Pending)) if owner == client => {}
                        Some((owner, RequestState::Held)) if owner == client => {
                            self.reply(outbox, client, WorkerMessage::Granted { id })
                        }
                        _ => return Err(refuse(Some(id), "request id already in use")),
                    },
                    Err(e) => return Err(refuse(Some(id), &e.to_string())),
                }
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

    /// A context that believed this worker dead reconnected with a new port while its old
    /// port is still registered here: the new port takes over the existing client, state
    /// and all, and the old port is dropped. What it re-declares is already here.
    fn rebind(&mut self, existing: ClientId, port: ClientId, outbox: &mut Outbox) -> ClientId {
        let mut taking_over = self.clients.remove(&port).expect("the port is a client");
        if let Some(old) = self.clients.remove(&existing) {
            taking_over.db = old.db.clone();
            old.port.close();
            outbox.dropped.push(Box::new(old));
        }
        self.clients.insert(existing, taking_over);
        self.aliases.retain(|_, target| *target != existing);
        self.aliases.insert(port, existing);
        existing
    }

    /// The lifeline database is open (`None`: it cannot be): welcome the clients so far.
    pub(crate) fn lifeline_ready(&mut self, db: Option<String>) -> Outbox {
        self.lifeline = Some(db.unwrap_or_default());
        let mut outbox = Outbox::default();
        let greeted: Vec<ClientId> = self
            .clients
            .iter()
            .filter(|(_, c)| c.client_id.is_some())
            .map(|(id, _)| *id)
            .collect();
        for client in greeted {
            self.welcome(&mut outbox, client);
        }
        outbox
    }

    /// Tells `client` this worker's epoch and lifeline, once the lifeline is open.
    fn welcome(&self, outbox: &mut Outbox, client: ClientId) {
        if let Some(db) = &self.lifeline {
            let welcome = WorkerMessage::Welcome {
                epoch: &self.epoch,
                db,
            };
            self.reply(outbox, client, welcome);
        }
    }

    /// Watches the database `db`; `client` is its context if already connected (its
    /// `watch` also ends any wait for it: it has re-declared its locks).
    pub(crate) fn watch(&mut self, db: String, client: Option<ClientId>) -> Result<(), JsValue> {
        if client.is_some() {
            self.expected.remove(&db);
        }
        if let Some(watched) = self.watches.get_mut(&db) {
            watched.client = client.or(watched.client);
        } else {
            let hub = self.me.clone();
            let name = db.clone();
            let watch = DeathWatch::start(&db, move || {
                let Some(hub) = hub.upgrade() else { return };
                let outbox = hub.borrow_mut().db_died(&name);
                outbox.send();
            })?;
            self.watches.insert(
                db,
                Watched {
                    _watch: watch,
                    client,
                },
            );
        }
        self.resume_if_recovered();
        Ok(())
    }

    /// A context's database was closed by the browser: the context is gone, whether or
    /// not it said goodbye.
    fn db_died(&mut self, db: &str) -> Outbox {
        let mut outbox = Outbox::default();
        self.expected.remove(db);
        if let Some(watched) = self.watches.remove(db) {
            if let Some(client) = watched.client {
                self.disconnect(client, &mut outbox);
            }
            outbox.dropped.push(Box::new(watched));
        }
        self.resume_if_recovered();
        self.carry_out(&mut outbox);
        outbox
    }

    /// §2.6 for a client whose context went away.
    pub(crate) fn disconnect(&mut self, client: ClientId, outbox: &mut Outbox) {
        self.core.client_gone(client);
        self.aliases.retain(|_, target| *target != client);
        if let Some(gone) = self.clients.remove(&client) {
            if let Some(client_id) = &gone.client_id {
                self.by_client_id.remove(client_id);
            }
            gone.port.close();
            outbox.dropped.push(Box::new(gone));
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
    pub(crate) fn carry_out(&mut self, outbox: &mut Outbox) {
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
