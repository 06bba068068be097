pub mod core;
pub mod protocol;
#[cfg(target_arch = "wasm32")]
mod worker;
