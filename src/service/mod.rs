//! The lock service: everything the SharedWorker decides, as a deterministic sans-IO state
//! machine in the style of the core.
//!
//! The driver (the wasm worker, or a simulation) feeds inputs — a port connected
//! ([`Service::handle_connect`]), a message decoded from a port
//! ([`Service::handle_message`]) or refused by the decoder ([`Service::handle_malformed`]),
//! the worker's lifeline database opened ([`Service::handle_lifeline`]), a claim of the
//! origin answered, with the survey of its databases ([`Service::handle_claimed`]), a death
//! watch ended
//! ([`Service::handle_watch_end`]), a timer fired ([`Service::handle_timer`]) — and carries
//! out the [`Output`]s it drains with [`Service::poll_output`]: post to a port, close a
//! port, watch a database, set or cancel a timer, claim the origin. No clock, no
//! JavaScript.
//!
//! What it decides:
//! - **Which worker serves the origin** (`election.rs`): one, whatever the URLs of the
//!   origin's lock workers; the others send their contexts to it.
//! - **Clients.** A port becomes a client with its `hello`; a second port announcing the same
//!   clientId takes the client over (a context that reconnected): replies go to the new
//!   port, and what still arrives on the old one counts as the client's.
//! - **Liveness** (`liveness.rs`). A context names its database in `hello`; the service
//!   watches it from then on, so a context that dies at any point after its `hello` is
//!   noticed and its locks released.
//! - **When requests are served** (`recovery.rs`). A client's `request`, `release`, `abort`
//!   and `query` wait until its `watch` confirms its database is open (so that every lock
//!   holder can be found by a restarted worker's survey), and everyone's wait while a new
//!   worker recovers from a restart. Waiting inputs keep their arrival order and are then
//!   given to the core exactly as they would have been: recovery never changes what a
//!   request means.

use crate::prelude::*;

mod election;
mod liveness;
mod recovery;
mod tabs;
#[cfg(test)]
mod tests;

use crate::fifo::Fifo;
use crate::table::Table;

use crate::core::{
    AbortOutcome, Action, ClientId, LockManager, Mode, RequestError, RequestId, RequestState,
};
use crate::protocol::{self, ClientMessage, LockInfo, Text, WorkerMessage};

pub use election::Leader;
pub use liveness::REWATCH_MS;
pub use recovery::RECOVERY_LIMIT_MS;
pub use tabs::{Signal, HIDDEN_CLAIM_MS};

/// A port, numbered by the driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PortId(pub u32);

/// The service's timers: the end of the wait for survivors, and the next look at a
/// database that did not exist yet (by the number of its watch).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Timer {
    Recovery,
    Rewatch(u32),
    /// A follower in a hidden tab claims over a dead leader only after [`HIDDEN_CLAIM_MS`].
    Claim,
}

/// How a death watch on a context's database ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchEnd {
    /// The database was open and its last connection closed: its context is gone.
    Died,
    /// The database did not exist (its context has not opened it yet, or never will).
    Absent,
}

/// What the driver must carry out, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    Send(PortId, WorkerMessage),
    Close(PortId),
    /// Start a death watch on this database; its end comes back as
    /// [`Service::handle_watch_end`].
    Watch(Text),
    SetTimer(Timer, u32),
    CancelTimer(Timer),
    /// Record this worker as the origin's leader over the one with this epoch (found dead:
    /// or none, if none is recorded), and list the origin's databases: both come back as
    /// [`Service::handle_claimed`].
    Claim(Text),
    /// Post this on the channel of the origin's lock workers (tabs.rs).
    Tabs(Signal),
    /// This worker gives the service up (tabs.rs): it serves nothing more; the driver ends
    /// it, which ends its lifeline, and another worker claims over it.
    Resign,
}

/// Sizes of the service's tables: all zero once every context has gone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub core: crate::core::Stats,
    pub ports: usize,
    pub clients: usize,
    pub watches: usize,
    pub deferred: usize,
}

struct Client {
    port: PortId,
    client_id: Text,
    /// The database it keeps open for as long as it lives, if it has one.
    db: Option<Text>,
    /// Its `watch` arrived: its requests are served.
    confirmed: bool,
    /// Its port's number among the context's (`hello`'s `n`).
    n: u32,
}

enum Recovery {
    /// The survey of existing databases has not answered yet.
    Surveying,
    /// Databases of surviving contexts that have neither re-declared nor died yet.
    Awaiting(Table<Text, ()>),
    Done,
}

pub struct Service {
    core: LockManager,
    epoch: Text,
    /// The database clients watch to notice this worker's death, once open ("" if none).
    lifeline: Option<Text>,
    /// Connected ports and the client each speaks for (after its `hello`).
    ports: Table<PortId, Option<ClientId>>,
    clients: Table<ClientId, Client>,
    by_client_id: Table<Text, ClientId>,
    watches: Table<Text, liveness::Watched>,
    recovery: Recovery,
    role: election::Role,
    /// The tab hosting this worker is hidden (tabs.rs; a SharedWorker's never is).
    hidden: bool,
    /// The dead leader a follower claims over once its delay has passed (election.rs).
    over: Option<Text>,
    /// Inputs waiting to be served, in arrival order (see the module docs).
    deferred: Vec<(ClientId, ClientMessage)>,
    next_client: u32,
    /// The last watch's number (see [`Timer::Rewatch`]).
    next_watch: u32,
    outputs: Fifo<Output>,
}

/// A context's request id made unique across the service: the client in the high half.
fn global(client: ClientId, id: u32) -> RequestId {
    RequestId(u64::from(client.0) << 32 | u64::from(id))
}

fn local(request: RequestId) -> u32 {
    request.0 as u32
}

impl Service {
    /// A new worker's service. Its first claim of the origin (unless another worker is
    /// recorded) is the driver's to make as it starts (in the worker, its loader's, while
    /// the wasm loads); until its answer comes ([`Service::handle_claimed`]) nothing is
    /// served. Its lifeline opens meanwhile.
    pub fn new(epoch: &[u16]) -> Service {
        Service {
            core: LockManager::new(),
            epoch: epoch.into(),
            lifeline: None,
            ports: Table::new(),
            clients: Table::new(),
            by_client_id: Table::new(),
            watches: Table::new(),
            recovery: Recovery::Surveying,
            role: election::Role::Electing(Vec::new()),
            hidden: false,
            over: None,
            deferred: Vec::new(),
            next_client: 0,
            next_watch: 0,
            outputs: Fifo::default(),
        }
    }

    // ----- Inputs ------------------------------------------------------------------------

    pub fn handle_connect(&mut self, port: PortId) {
        self.ports.insert(port, None);
        self.connected(port);
    }

    /// A message the driver could not decode: answered with `error`, nothing changes.
    pub fn handle_malformed(&mut self, port: PortId, id: Option<u32>, message: &'static str) {
        if self.ports.contains_key(&port) {
            let error = WorkerMessage::Error { id, message };
            self.outputs.push_back(Output::Send(port, error));
        }
    }

    pub fn handle_message(&mut self, port: PortId, message: ClientMessage) {
        // A closed port's late messages are dropped: its context is gone or took a new port.
        let Some(&speaker) = self.ports.get(&port) else {
            return;
        };
        let Some(message) = self.elsewhere(port, message) else {
            return;
        };
        match (speaker, message) {
            (None, ClientMessage::Hello { client_id, db, n }) => self.hello(port, client_id, db, n),
            (Some(_), ClientMessage::Hello { .. }) => {
                self.handle_malformed(port, None, "hello sent twice")
            }
            (None, ClientMessage::Goodbye { .. }) => {
                self.ports.remove(&port);
                self.outputs.push_back(Output::Close(port));
            }
            (None, message) => self.handle_malformed(port, message.id(), "hello must come first"),
            // A port its context has replaced (it reconnected, or a courier handed on its
            // older port late): every request the context still had was declared anew on
            // the newer one, so only releases and aborts are heard from it. What would make
            // or end a request or a client is not (a steal would steal again), nor its
            // `watch`: the newer port sends its own after its re-declarations, and one heard
            // before them would end a restarted worker's wait for this survivor early (its
            // reclaims then answered `stolen`).
            (Some(client), ref message)
                if !matches!(
                    message,
                    ClientMessage::Release { .. } | ClientMessage::Abort { .. }
                ) && self.clients.get(&client).is_some_and(|c| c.port != port) => {}
            (Some(client), ClientMessage::Watch { db }) => self.confirm(client, db),
            (Some(client), ClientMessage::Reclaim { id, names, mode }) => {
                self.reclaim(client, id, &names, mode)
            }
            (Some(client), ClientMessage::Goodbye { children }) => {
                // Its dedicated workers go with it: frozen with it in the back/forward cache,
                // they are told so and connect again once thawed.
                for child in children.iter().flatten() {
                    if let Some(child) = self.by_client_id.get(&child[..]).copied() {
                        self.disconnect(child, false);
                    }
                }
                self.disconnect(client, true)
            }
            (Some(client), message) => {
                if self.serving(client) {
                    self.apply(client, message);
                } else {
                    self.defer(client, message);
                }
            }
        }
        self.carry_out();
    }

    /// The lifeline database is open (`None`: it cannot be): welcome the clients so far.
    pub fn handle_lifeline(&mut self, db: Option<&[u16]>) {
        self.lifeline = Some(db.unwrap_or_default().into());
        let clients: Vec<ClientId> = self.clients.keys().copied().collect();
        for client in clients {
            self.welcome(client);
        }
    }

    pub fn handle_timer(&mut self, timer: Timer) {
        match timer {
            Timer::Recovery => self.end_recovery(),
            Timer::Claim => self.claim_now(),
            Timer::Rewatch(number) => {
                if let Some(db) = self.watches.key_where(|w| w.number == number) {
                    self.outputs.push_back(Output::Watch(db.clone()));
                }
            }
        }
        self.carry_out();
    }

    // ----- Outputs and inspection --------------------------------------------------------

    #[must_use]
    pub fn poll_output(&mut self) -> Option<Output> {
        // A worker that resigned carries out nothing more but its end: a grant it made now
        // could be its successor's too.
        if self.is_resigned() {
            while let Some(output) = self.outputs.pop_front() {
                if output == Output::Resign {
                    return Some(output);
                }
            }
            return None;
        }
        self.outputs.pop_front()
    }

    /// §4.5 as contexts see it: held in grant order, pending in request order, each with the
    /// clientId its context announced.
    pub fn locks(&self) -> (Vec<LockInfo>, Vec<LockInfo>) {
        let snapshot = self.core.snapshot();
        let info = |i: &crate::core::LockInfo<'_>| LockInfo {
            name: i.name.to_vec(),
            mode: i.mode,
            client_id: self.client_id(i.client),
        };
        (
            snapshot.held.iter().map(info).collect(),
            snapshot.pending.iter().map(info).collect(),
        )
    }

    /// The clientId `client` announced.
    fn client_id(&self, client: ClientId) -> Text {
        self.clients
            .get(&client)
            .map_or_else(Text::new, |c| c.client_id.clone())
    }

    /// §4.5 for a `query`, in the compact form of [`WorkerMessage::Snapshot`].
    fn snapshot(&self, id: u32) -> WorkerMessage {
        let snapshot = self.core.snapshot();
        let mut names = Vec::new();
        let mut clients: Vec<ClientId> = Vec::new();
        let mut encode = |infos: &[crate::core::LockInfo<'_>]| {
            let mut codes = Vec::with_capacity(2 * infos.len());
            for info in infos {
                names.extend_from_slice(info.name);
                // Contexts are few and a context's locks tend to come together: the last
                // client is checked first, then the others.
                let at = match clients.iter().rposition(|c| *c == info.client) {
                    Some(at) => at,
                    None => {
                        clients.push(info.client);
                        clients.len() - 1
                    }
                };
                codes.push(info.name.len() as u32);
                let more = u32::from(info.more) << 1;
                codes.push((at as u32) << 2 | more | u32::from(info.mode == Mode::Shared));
            }
            codes
        };
        let held = encode(&snapshot.held);
        let pending = encode(&snapshot.pending);
        WorkerMessage::Snapshot {
            id,
            names,
            client_ids: clients.iter().map(|c| self.client_id(*c)).collect(),
            held,
            pending,
        }
    }

    pub fn stats(&self) -> Stats {
        Stats {
            core: self.core.stats(),
            ports: self.ports.len(),
            clients: self.clients.len(),
            watches: self.watches.len(),
            deferred: self.deferred.len(),
        }
    }

    pub fn is_recovering(&self) -> bool {
        !matches!(self.recovery, Recovery::Done)
    }

    // ----- Clients -----------------------------------------------------------------------

    fn hello(&mut self, port: PortId, client_id: Text, db: Option<Text>, n: u32) {
        // A newer port naming another database starts a new life of its context, and the
        // old life ends as at a goodbye: a context takes a new database only once it holds
        // nothing it got before (evicted, back from the back/forward cache, or its lock
        // worker failed while it held nothing). Taken over instead, a client registered by a
        // stale hello (bridged after its link closed) kept a database that is gone, and
        // refused the context's `watch`.
        if let Some(&known) = self.by_client_id.get(&client_id[..]) {
            let entry = self.clients.get(&known).expect("indexed client");
            if n > entry.n && db.is_some() && entry.db.is_some() && db != entry.db {
                self.disconnect(known, true);
            }
        }
        let client = match self.by_client_id.get(&client_id[..]) {
            // A context that believed its port dead reconnected while this worker still
            // knows it: the new port takes the client over, state and all; replies go to
            // it from now on. The old port stays the client's until the client ends: what
            // the context posted on it before it reconnected may still be on its way (a
            // release overtaken by the new hello must not be lost).
            Some(&existing) => {
                let entry = self.clients.get_mut(&existing).expect("indexed client");
                // A port the context gave up before its hello got here (handed on late by
                // a busy courier, after the context had tried another): it speaks for the
                // client as an old port does, and replies keep going to the newer port.
                if n < entry.n {
                    self.ports.insert(port, Some(existing));
                    return;
                }
                entry.port = port;
                entry.n = n;
                // What still waits from the replaced port counts as what comes on it from
                // now on: only its releases and aborts. The context declares its requests
                // and queries anew on this port; a waiting copy would be a second request
                // (granted then stolen at the flush, the copy would be granted again, to a
                // context that has forgotten it).
                self.drop_deferred(existing, true);
                existing
            }
            None => {
                self.next_client += 1;
                let client = ClientId(self.next_client);
                self.by_client_id.insert(client_id.clone(), client);
                let entry = Client {
                    port,
                    client_id,
                    db: None,
                    confirmed: false,
                    n,
                };
                self.clients.insert(client, entry);
                if let Some(db) = db {
                    self.watch_client(client, db);
                }
                client
            }
        };
        self.ports.insert(port, Some(client));
        self.welcome(client);
    }

    /// Tells `client` this worker's epoch and lifeline, once the lifeline is open.
    fn welcome(&mut self, client: ClientId) {
        if let Some(db) = self.lifeline.clone() {
            let epoch = self.epoch.clone();
            self.reply(client, WorkerMessage::Welcome { epoch, db });
        }
    }

    /// §2.6 for a client whose context went away: it said goodbye, or its database died.
    /// In the second case the port is told `evicted` before it is closed: should the context
    /// still live (its database was deleted under it, or opened too late), it connects
    /// again instead of waiting forever on a closed port.
    fn disconnect(&mut self, client: ClientId, said_goodbye: bool) {
        let Some(gone) = self.clients.remove(&client) else {
            return;
        };
        self.core.client_gone(client);
        self.by_client_id.remove(&gone.client_id);
        self.drop_deferred(client, false);
        if !said_goodbye {
            self.outputs
                .push_back(Output::Send(gone.port, WorkerMessage::Evicted));
        }
        let mut ports: Vec<PortId> = Vec::new();
        self.ports.retain(|port, speaker| {
            let mine = *speaker == Some(client);
            if mine {
                ports.push(*port);
            }
            !mine
        });
        for port in ports {
            self.outputs.push_back(Output::Close(port));
        }
        // Its watch stays until it fires, so that its database is cleaned up.
    }

    /// Keeps an input to be served later, in arrival order but for a request or query made
    /// earlier (its `at`) than the requests and queries of other contexts that wait, which it
    /// goes before: after a worker's end, contexts re-declare them as they reconnect, and this
    /// queues them again in the order they were made (recovery.rs). Never before anything
    /// else that waits (its own context's inputs, a release, an abort, one made at no said
    /// time).
    fn defer(&mut self, client: ClientId, message: ClientMessage) {
        let at = match message {
            ClientMessage::Request { at, .. } | ClientMessage::Query { at, .. } if at > 0 => at,
            _ => u64::MAX,
        };
        self.deferred.push((client, message));
        let waiting = &mut self.deferred[..];
        for i in (1..waiting.len()).rev() {
            match &waiting[i - 1] {
                (
                    c,
                    ClientMessage::Request { at: made, .. } | ClientMessage::Query { at: made, .. },
                ) if *c != client && *made > at => waiting.swap(i - 1, i),
                _ => break,
            }
        }
    }

    /// Drops what waits from `client`, but (`settling`) its releases and aborts. (One
    /// `retain` for its callers: each closure would be a copy of it in the module.)
    fn drop_deferred(&mut self, client: ClientId, settling: bool) {
        self.deferred.retain(|(c, message)| {
            *c != client
                || settling
                    && matches!(
                        message,
                        ClientMessage::Release { .. } | ClientMessage::Abort { .. }
                    )
        });
    }

    fn serving(&self, client: ClientId) -> bool {
        !self.is_recovering() && self.clients.get(&client).is_some_and(|c| c.confirmed)
    }

    // ----- The core ----------------------------------------------------------------------

    /// §3.2.1/§3.2.2 requests as the core takes them.
    fn apply(&mut self, client: ClientId, message: ClientMessage) {
        match message {
            ClientMessage::Request {
                id,
                names,
                mode,
                if_available,
                steal,
                ..
            } => {
                let flavor = match protocol::flavor(&names, mode, if_available, steal) {
                    Ok(flavor) => flavor,
                    Err(message) => return self.refuse(client, id, message),
                };
                let request = global(client, id);
                match self
                    .core
                    .request_scope(client, request, &names, mode, flavor)
                {
                    Ok(()) => {}
                    // Re-sent after a reconnection: still waiting, or granted with the grant
                    // lost on the old port.
                    Err(RequestError::DuplicateId) => match self.core.state(request) {
                        Some((_, RequestState::Pending)) => {}
                        _ => self.reply(client, WorkerMessage::Granted { id }),
                    },
                    Err(e) => self.refuse(client, id, e.message()),
                }
            }
            ClientMessage::Release { id } => {
                self.core.release(global(client, id));
            }
            // §4.3. The context aborts only before it has seen the grant; if the lock was
            // granted meanwhile, the context would release it when the grant arrives — and
            // that grant may be lost with a replaced port — so it is released here.
            ClientMessage::Abort { id } => {
                let request = global(client, id);
                if self.core.abort(request) == AbortOutcome::AlreadyHeld {
                    self.core.release(request);
                }
            }
            ClientMessage::Query { id, .. } => {
                let snapshot = self.snapshot(id);
                self.reply(client, snapshot);
            }
            // Handled as they arrive (see `handle_message`), never deferred.
            ClientMessage::Hello { .. }
            | ClientMessage::Watch { .. }
            | ClientMessage::Reclaim { .. }
            | ClientMessage::Goodbye { .. } => {}
        }
    }

    /// After a restart: a lock `client` held before it. Taken at once while the state is
    /// being rebuilt (recovery.rs); a conflict with another survivor's claim loses it, as to
    /// a steal. Once this worker serves, it may have granted the lock to another context and
    /// had it back since (a survivor later than the wait for survivors; a stolen lock whose
    /// reply went to a port the context had given up): lost too, rather than two critical
    /// sections unnoticed. A lock this worker still knows as the client's stays its own
    /// (the port was taken over).
    fn reclaim(&mut self, client: ClientId, id: u32, names: &[Vec<u16>], mode: Mode) {
        // (Checked as its request was: no reserved name, whoever sends it.)
        if let Err(message) = protocol::flavor(names, mode, false, false) {
            return self.refuse(client, id, message);
        }
        let request = global(client, id);
        if self.core.state(request) == Some((client, RequestState::Held)) {
            return;
        }
        if !self.is_recovering() {
            return self.reply(client, WorkerMessage::Stolen { id });
        }
        match self.core.reclaim(client, request, names, mode) {
            Ok(()) => {}
            Err(RequestError::Conflict) => self.reply(client, WorkerMessage::Stolen { id }),
            Err(e) => self.refuse(client, id, e.message()),
        }
    }

    /// Turns the core's actions into messages to the clients concerned.
    fn carry_out(&mut self) {
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
            self.send(client, message);
        }
    }

    /// Sends `message` to `client` after the core's pending actions, so that each port
    /// sees its replies in the order they were caused.
    fn reply(&mut self, client: ClientId, message: WorkerMessage) {
        self.carry_out();
        self.send(client, message);
    }

    fn refuse(&mut self, client: ClientId, id: u32, message: &'static str) {
        let error = WorkerMessage::Error {
            id: Some(id),
            message,
        };
        self.reply(client, error);
    }

    fn send(&mut self, client: ClientId, message: WorkerMessage) {
        if let Some(c) = self.clients.get(&client) {
            self.outputs.push_back(Output::Send(c.port, message));
        }
    }
}
