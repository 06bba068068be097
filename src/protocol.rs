//! The one protocol between a context's glue (js/client/connection.js) and the worker, version 4:
//! the first of its compatibility contract (below). docs/protocol.md says the same for
//! users.
//!
//! Every message is a plain object `{ v: 4, type: "...", ... }` sent over the context's
//! MessagePort. Request ids (`id`) are chosen by the context, unique among its live
//! requests, below 2^32; a granted request's id is also its lock's id.
//!
//! Context → worker ([`ClientMessage`]):
//! | type      | fields                                   | meaning                                  |
//! |-----------|------------------------------------------|------------------------------------------|
//! | `hello`   | `clientId`, `db`?, `n`?                  | first message: this port is that client; `db` is the context's liveness database, whose `indexedDB.open(db, 1)` was called before this message (absent: no IndexedDB); `n` counts the context's ports, this one included (a port whose `n` is below its client's newest port's is heard only for `release` and `abort`: the context declared anew on the newer port what it still had, and sends `watch` there; a hello with a lower `n` than that port's, from a port the context gave up before it got here, leaves replies going to the newer port); a newer port naming another `db` than its client's starts the context anew (a context takes a new database only when it holds nothing: its client's locks and requests end as at `goodbye`) |
//! | `watch`   | `db`?                                    | the context holds `db` open at version 1 for as long as it lives (absent: it could not open one, or gave it up, e.g. after the site's storage was cleared: watched no more, nor awaited by a restarted worker); also ends a re-declaration; may come again |
//! | `request` | `id`, `name` or `names`, `mode`, `ifAvailable`, `steal`, `t`? | §4.1 request a lock; `names` (an array of strings, sorted by code units, distinct, not empty) asks for a scope, granted on all its names at once (the extension's `requestAll`); `t`, when it was made (`Date.now()`; the same when re-declared), orders the requests and queries of several contexts that wait to be served (after a worker's end: recovery.rs); absent or not a non-negative integer: not said |
//! | `release` | `id`                                     | §4.2 the waiting promise settled         |
//! | `abort`   | `id`                                     | §4.3 the signal aborted before the grant (a lock granted meanwhile is released) |
//! | `query`   | `id`, `t`?                               | §4.5 snapshot; `t` as a request's        |
//! | `reclaim` | `id`, `name` or `names`, `mode`          | after a worker restart: this lock was held before it |
//! | `goodbye` | `names`?                                 | §2.6 the page enters the back/forward cache, or goes away with no database to watch, or with one its worker may not see the end of (the worker's lifeline was missing: the site's storage was cleared) (otherwise a context with one ends when the browser closes it); `names`: the clientIds of its dedicated workers (nested ones too: their ports come through the page), which go with it (frozen with it in the cache; they are told `evicted`, and connect again once thawed) |
//! | `adopt`   | a transferred MessagePort                | connect that port as a new client (a worker that asked this context for its link: a dedicated worker below it, or a shared or service worker) |
//! | `via`     | `c`, `m` (and `m`'s transferred ports)   | from a page's port: message `m` of the client whose clientId is `c` (a frame of the page, or in WebKit a dedicated worker it relays: docs/protocol.md), as if it came on a port of that client's own; the worker's loader (js/worker/worker-entry.js) makes that port, and the worker's messages to it go back on the page's port with `c` added. One port keeps the order the page and its frames asked in |
//!
//! Worker → context ([`WorkerMessage`]):
//! | type           | fields                     | meaning                                     |
//! |----------------|----------------------------|---------------------------------------------|
//! | `welcome`      | `epoch`, `db`              | reply to hello, once the worker's lifeline `db` is open (other replies may come first): watch it to notice the worker's death |
//! | `granted`      | `id`                       | run the callback with a Lock                |
//! | `notAvailable` | `id`                       | run the callback with null (ifAvailable)    |
//! | `stolen`       | `id`                       | reject the released promise with AbortError |
//! | `snapshot`     | `id`, `names`, `clientIds`, `held`, `pending` | resolve query(): see [`WorkerMessage::Snapshot`] |
//! | `error`        | `id` (if known), `message` | the message was refused; state unchanged    |
//! | `evicted`      |                            | the worker took this context for dead, released its locks and closes the port: its locks are lost (reject with AbortError); connect again and re-declare its requests and queries |
//! | `redirect`     | `url`                      | this lock worker does not serve the origin (election.rs): connect to the one at `url` (its SharedWorker is constructed with that URL and the name `web-locks-polyfill <url>`) and declare everything there; this port is closed. A worker context (whose port comes through a window) asks for a port again |
//! | `fatal`        | `message`                  | from the worker's loader: the wasm failed to load (it loads it again when a port next connects); or from the context a port was asked of or handed on by (`adopt`), which cannot reach a lock worker (none constructible, or its last one failed to start): the requests reject, and the next connection tries again |
//!
//! Re-sending a live `request` (same `id`) is idempotent: a pending one stays as it is, a
//! held one is answered with `granted` again; a `reclaim` of a lock the worker still knows
//! as held by the sender is accepted silently. Both happen when a context reconnects. Any
//! other `reclaim` rebuilds a restarted worker's state while it waits for survivors, and is
//! answered `stolen` once it serves (the lock may have been another's meanwhile; its scope's
//! names are then checked no further than for a reserved name).
//!
//! Names are DOMStrings: JS strings carried as they are, read and written by the worker as
//! UTF-16 code units (lone surrogates included, nothing replaced).
//!
//! The worker serves a context's `request`, `release`, `abort` and `query` only once its
//! `watch` has arrived (so every lock holder has a database a restarted worker can find),
//! and none while it recovers from a restart (see `service`); they wait, in arrival order,
//! and are then processed as the spec would have processed them at that moment.
//!
//! A message with a `v` below 4, an unknown `type`, or missing/mistyped fields is answered
//! with `error` (carrying its `id` when one could be read) and changes nothing.
//!
//! **Compatibility contract.** The serving worker may be of another build than a context
//! (an older or newer deploy, another copy of the package): every build from version 4 on
//! meets every other through this protocol. Each side reads a message whose `v` is 4 or
//! above as this version's: a later version may add optional fields (ignored by older
//! readers) and message types that it sends only to a peer whose `v` says it knows them,
//! or whose refusal by an older reader (`error` without an id, nothing changed) is harmless
//! (`via`: a frame then takes a port of its own);
//! it never changes what a field or type of version 4 means, nor the election's record
//! (`web-locks-election`, store `leader`, key 0: `{ epoch, url, lifeline }`) or the database
//! names (`web-locks-client-*`, `web-locks-worker-*`). A build that cannot keep to this
//! must not claim the origin while a worker of version 4 serves it: it waits until that
//! worker is gone. Builds before version 4 (never published) take no part in the election.

use crate::prelude::*;

use crate::core::{Flavor, Mode};

pub const VERSION: u32 = 4;

/// The first version of the compatibility contract (see the module docs): a message whose
/// `v` is this or above is read as this version's.
pub const OLDEST: u32 = 4;

/// A DOMString other than a lock name (a client id, a database name, the worker's epoch),
/// as its UTF-16 code units, like names: the worker reads every string the same way.
pub type Text = Vec<u16>;

/// A Rust string as [`Text`].
pub fn text(s: &str) -> Text {
    s.encode_utf16().collect()
}

/// What a context sends, decoded (by the worker's codec, or built by a test).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientMessage {
    Hello {
        client_id: Text,
        db: Option<Text>,
        /// The context's count of its ports so far, this one included (0: not given).
        n: u32,
    },
    Watch {
        db: Option<Text>,
    },
    Request {
        id: u32,
        /// One name, or a scope's names (sorted, distinct).
        names: Vec<Vec<u16>>,
        mode: Mode,
        if_available: bool,
        steal: bool,
        /// When the context made it (ms since the epoch, by its clock; 0: not said). Requests
        /// and queries waiting to be served are queued by it (recovery.rs).
        at: u64,
    },
    Reclaim {
        id: u32,
        names: Vec<Vec<u16>>,
        mode: Mode,
    },
    Release {
        id: u32,
    },
    Abort {
        id: u32,
    },
    Query {
        id: u32,
        /// As a request's.
        at: u64,
    },
    /// `children`: the clientIds of the context's dedicated workers (and of theirs), which go
    /// with it.
    Goodbye {
        children: Option<Vec<Text>>,
    },
}

impl ClientMessage {
    /// The request id a reply about this message goes to, if it has one.
    pub fn id(&self) -> Option<u32> {
        match self {
            ClientMessage::Request { id, .. }
            | ClientMessage::Reclaim { id, .. }
            | ClientMessage::Release { id }
            | ClientMessage::Abort { id }
            | ClientMessage::Query { id, .. } => Some(*id),
            _ => None,
        }
    }
}

/// The §3.2.1 checks a worker repeats for requests from contexts it cannot trust:
/// steps 5–7 (step 8 concerns the signal, which stays in the context), for every name.
pub fn flavor(
    names: &[Vec<u16>],
    mode: Mode,
    if_available: bool,
    steal: bool,
) -> Result<Flavor, &'static str> {
    if names
        .iter()
        .any(|name| name.first() == Some(&u16::from(b'-')))
    {
        return Err("names starting with '-' are reserved");
    }
    match (if_available, steal) {
        (true, true) => Err("steal and ifAvailable cannot be combined"),
        (_, true) if mode == Mode::Shared => Err("steal requires exclusive mode"),
        (_, true) => Ok(Flavor::Steal),
        (true, false) => Ok(Flavor::IfAvailable),
        (false, false) => Ok(Flavor::Queue),
    }
}

/// A §3.3 LockInfo, as [`crate::service::Service::locks`] reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockInfo {
    pub name: Vec<u16>,
    pub mode: Mode,
    pub client_id: Text,
}

/// What the worker sends (the codec stamps each with `v`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorkerMessage {
    Welcome {
        epoch: Text,
        db: Text,
    },
    Granted {
        id: u32,
    },
    NotAvailable {
        id: u32,
    },
    Stolen {
        id: u32,
    },
    /// §4.5 in one string and two number arrays, so that a snapshot of 10,000 locks costs
    /// a handful of boundary crossings: `names` holds every request's name, held ones then
    /// pending ones, one after the other; `held` and `pending` (Uint32Array) hold two
    /// numbers per request: its name's length in code units, and the index of its clientId
    /// in `client_ids` times 4, plus 2 if the next entry of the same list is the same
    /// request's (a scope is one entry per name, consecutive), plus 1 if it is shared.
    Snapshot {
        id: u32,
        names: Vec<u16>,
        client_ids: Vec<Text>,
        held: Vec<u32>,
        pending: Vec<u32>,
    },
    Error {
        id: Option<u32>,
        message: &'static str,
    },
    /// The worker took this context for dead (its database went away) and closed the port.
    Evicted,
    /// Another worker serves the origin: connect to it (at `url`) and declare everything
    /// there. This port is closed.
    Redirect {
        url: Text,
    },
}
