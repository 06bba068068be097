//! A Web Locks API (`navigator.locks`) polyfill: the lock manager of the W3C spec in Rust.
//!
//! - [`core`]: the spec's lock manager as a pure, deterministic state machine (sans-IO).
//! - [`protocol`]: the one versioned message protocol between contexts and the worker.
//! - [`service`]: the lock service (clients, liveness, restart recovery) as a sans-IO state
//!   machine around the core.
//! - `worker` (wasm32 only): the SharedWorker's I/O: ports, IndexedDB, timers.

pub mod core;
pub mod protocol;
pub mod service;
#[cfg(target_arch = "wasm32")]
mod worker;
