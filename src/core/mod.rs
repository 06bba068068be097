//! The lock manager of one origin (spec §2–§4) as a deterministic, sans-IO state machine.
//!
//! No clock, no randomness, no I/O and no JavaScript: the driver (the SharedWorker, a test
//! harness, a benchmark) feeds inputs — [`LockManager::request`], [`LockManager::release`],
//! [`LockManager::abort`], [`LockManager::client_gone`], [`LockManager::snapshot`] — and drains
//! the [`Action`]s they cause with [`LockManager::poll_action`]. The same inputs always give
//! the same actions in the same order.
//!
//! Identities are chosen by the driver: a [`ClientId`] per context (window, iframe, worker) and a
//! [`RequestId`] per `request()` call. A granted request becomes a lock with the same id, so
//! "lock id" and "request id" are one number (every request yields at most one lock).

mod entries;
mod index;
mod manager;
mod resource;
mod types;

pub use manager::LockManager;
pub use types::{
    AbortOutcome, Action, ClientId, Flavor, LockInfo, Mode, ReleaseOutcome, RequestError,
    RequestId, RequestState, Snapshot, Stats,
};
