//! A Web Locks API (`navigator.locks`) polyfill: the lock manager of the W3C spec in Rust.
//!
//! - [`core`]: the spec's lock manager as a pure, deterministic state machine (sans-IO).
//! - [`protocol`]: the one versioned message protocol between contexts and the worker.
//! - `worker` (wasm32 only): the SharedWorker driver that carries the core's actions out.

pub mod core;
pub mod protocol;
#[cfg(target_arch = "wasm32")]
mod worker;
