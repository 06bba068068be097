//! The vocabulary of the lock manager: identities, modes, inputs' options, outputs.

use crate::prelude::*;

/// One context (the spec's agent + clientId): a window, an iframe or a worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClientId(pub u32);

/// One `request()` call; once granted, the id of the resulting lock as well.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub u64);

/// §2.3 modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    Exclusive,
    Shared,
}

/// How a request wants to be scheduled (§4.1). `steal` and `ifAvailable` together are
/// rejected by the API (§3.2.1 step 6), so they are one choice here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// Wait in the name's queue until grantable.
    Queue,
    /// `ifAvailable: true`: granted now or [`Action::NotAvailable`], never queued.
    IfAvailable,
    /// `steal: true`: release every held lock of the name, then go first.
    Steal,
}

/// What the driver must carry out. Drain with [`crate::core::LockManager::poll_action`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// §4.4 step 2.14: run the request's callback with a `Lock`; the lock is now held.
    Granted {
        client: ClientId,
        request: RequestId,
    },
    /// §4.1 step 3.5.1: an `ifAvailable` request could not be granted; run its callback with
    /// `null`. Nothing was queued.
    NotAvailable {
        client: ClientId,
        request: RequestId,
    },
    /// §4.1 step 3.4.1.1: the lock was released by a `steal`; reject its released promise
    /// with an "AbortError" DOMException.
    Stolen {
        client: ClientId,
        request: RequestId,
    },
}

/// The result of [`crate::core::LockManager::abort`] (§4.3). Only `Removed` changed anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AbortOutcome {
    /// The request was pending and is gone from its queue.
    Removed,
    /// The request was already granted; the signal is ignored (§3.2.1 "options.signal").
    AlreadyHeld,
    /// No such request (already released, stolen, not-available, or never made).
    Unknown,
}

/// The result of [`crate::core::LockManager::release`] (§4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReleaseOutcome {
    Released,
    /// The request is still pending; nothing was released (abort it instead).
    NotHeld,
    /// No such lock (e.g. already stolen): releasing it again is a harmless no-op.
    Unknown,
}

/// Where a live request is ([`crate::core::LockManager::state`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestState {
    Pending,
    Held,
}

/// Why [`crate::core::LockManager::request`] refused an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestError {
    /// The request id is already pending or held.
    DuplicateId,
    /// [`crate::core::LockManager::reclaim`]: the lock conflicts with a current holder.
    Conflict,
    /// A scope's names are empty, or not sorted and distinct.
    InvalidScope,
}

impl RequestError {
    /// A short static description (no formatting machinery needed to report it).
    pub fn message(self) -> &'static str {
        match self {
            RequestError::DuplicateId => "request id already in use",
            RequestError::Conflict => "the lock is held by another client",
            RequestError::InvalidScope => "a scope's names must be sorted, distinct, not empty",
        }
    }
}

/// One entry of a §4.5 snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockInfo<'a> {
    /// The name's UTF-16 code units (a DOMString, lone surrogates included).
    pub name: &'a [u16],
    pub mode: Mode,
    pub client: ClientId,
    pub request: RequestId,
    /// The next entry of the same list is this request's too (its next name: a scope).
    pub more: bool,
}

/// §4.5: `held` in grant order, `pending` in request order, both across names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot<'a> {
    pub held: Vec<LockInfo<'a>>,
    pub pending: Vec<LockInfo<'a>>,
}

/// Sizes of the manager's tables, to check that memory returns to zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Names with a holder or a queued request.
    pub names: usize,
    /// Requests pending or held.
    pub requests: usize,
    /// Clients with a live (pending or held) request.
    pub clients: usize,
}
