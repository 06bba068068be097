//! The one protocol between a context's glue (js/connection.js) and the worker, version 1.
//!
//! Every message is a plain object `{ v: 1, type: "...", ... }` sent over the context's
//! MessagePort. Request ids (`id`) are chosen by the context, unique among its live
//! requests, below 2^32; a granted request's id is also its lock's id.
//!
//! Context → worker ([`ClientMessage`]):
//! | type      | fields                                   | meaning                                  |
//! |-----------|------------------------------------------|------------------------------------------|
//! | `hello`   | `clientId`                               | first message: this port is that client  |
//! | `watch`   | `db`                                     | the context holds IndexedDB `db` open at version 1 for as long as it lives |
//! | `request` | `id`, `name`, `mode`, `ifAvailable`, `steal` | §4.1 request a lock                  |
//! | `release` | `id`                                     | §4.2 the waiting promise settled         |
//! | `abort`   | `id`                                     | §4.3 the signal aborted before the grant |
//! | `query`   | `id`                                     | §4.5 snapshot                            |
//! | `reclaim` | `id`, `name`, `mode`                     | after a worker restart: this lock was held before it |
//! | `goodbye` |                                          | §2.6 the context is going away           |
//! | `adopt`   | a transferred MessagePort                | connect that port as a new client (a dedicated worker of this context) |
//!
//! Worker → context ([`WorkerMessage`]):
//! | type           | fields                     | meaning                                     |
//! |----------------|----------------------------|---------------------------------------------|
//! | `welcome`      | `epoch`, `db`              | reply to hello: watch IndexedDB `db` to notice the worker's death |
//! | `granted`      | `id`                       | run the callback with a Lock                |
//! | `notAvailable` | `id`                       | run the callback with null (ifAvailable)    |
//! | `stolen`       | `id`                       | reject the released promise with AbortError |
//! | `snapshot`     | `id`, `held`, `pending`    | resolve query() with these LockInfo lists   |
//! | `error`        | `id` (if known), `message` | the message was refused; state unchanged    |
//! | `fatal`        | `message`                  | (from the loader) the wasm failed to load   |
//!
//! Re-sending a live `request` (same `id`) is idempotent: a pending one stays as it is, a
//! held one is answered with `granted` again; a `reclaim` of a lock the worker still knows
//! as held by the sender is accepted silently. Both happen when a context reconnects.
//!
//! A message with another `v`, an unknown `type`, or missing/mistyped fields is answered
//! with `error` (carrying its `id` when one could be read) and changes nothing.

use serde::{Deserialize, Serialize};

use crate::core::{Flavor, Mode};

pub const VERSION: u32 = 1;

/// The fields every message is read for first, so that an error can name the request.
#[derive(Debug, Deserialize)]
pub struct Header {
    pub v: Option<u32>,
    pub id: Option<u32>,
}

#[derive(Debug, PartialEq, Eq, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ClientMessage {
    Hello {
        client_id: String,
    },
    Watch {
        db: String,
    },
    Request {
        id: u32,
        name: String,
        mode: Mode,
        #[serde(default)]
        if_available: bool,
        #[serde(default)]
        steal: bool,
    },
    Reclaim {
        id: u32,
        name: String,
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
    },
    Goodbye,
    Adopt,
}

/// The §3.2.1 checks a worker repeats for requests from contexts it cannot trust:
/// steps 5–7 (step 8 concerns the signal, which stays in the context).
pub fn flavor(
    name: &str,
    mode: Mode,
    if_available: bool,
    steal: bool,
) -> Result<Flavor, &'static str> {
    if name.starts_with('-') {
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

#[derive(Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LockInfo<'a> {
    pub name: &'a str,
    pub mode: Mode,
    pub client_id: &'a str,
}

/// What the worker sends: a [`WorkerMessage`] stamped with the protocol version.
#[derive(Debug, PartialEq, Eq, Serialize)]
pub struct Envelope<'a> {
    pub v: u32,
    #[serde(flatten)]
    pub message: WorkerMessage<'a>,
}

impl<'a> From<WorkerMessage<'a>> for Envelope<'a> {
    fn from(message: WorkerMessage<'a>) -> Self {
        Envelope {
            v: VERSION,
            message,
        }
    }
}

#[derive(Debug, PartialEq, Eq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum WorkerMessage<'a> {
    Welcome {
        epoch: &'a str,
        db: &'a str,
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
    Snapshot {
        id: u32,
        held: Vec<LockInfo<'a>>,
        pending: Vec<LockInfo<'a>>,
    },
    Error {
        id: Option<u32>,
        message: String,
    },
}
