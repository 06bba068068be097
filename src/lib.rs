//! A Web Locks API (`navigator.locks`) polyfill: the lock manager of the W3C spec in Rust.
//!
//! - [`core`]: the spec's lock manager as a pure, deterministic state machine (sans-IO).
//! - [`protocol`]: the one versioned message protocol between contexts and the worker.
//! - [`service`]: the lock service (clients, liveness, restart recovery) as a sans-IO state
//!   machine around the core.
//! - `worker` (wasm32 only): the SharedWorker's I/O: ports, IndexedDB, timers.

// The shipped wasm module is `no_std` (feature `no-std-module`, on by default): its panics
// abort without formatting anything, so no `core::fmt` machinery is linked (see
// `worker/mod.rs`). Native builds (tests, benches) use std, and so do the wasm tests, built
// with `--no-default-features` (wasm-bindgen-test needs std).
#![cfg_attr(all(target_arch = "wasm32", feature = "no-std-module"), no_std)]

extern crate alloc;

/// What std's prelude would give, for the `no_std` build.
mod prelude {
    pub use alloc::vec::Vec;
}

pub mod core;
mod fifo;
pub mod protocol;
pub mod service;
mod table;
#[cfg(target_arch = "wasm32")]
mod worker;
