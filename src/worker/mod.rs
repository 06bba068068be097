//! The SharedWorker: every same-origin context connects a port; the hub drives the core.
//!
//! `js/worker-entry.js` (a classic script) loads this module, keeps the ports that
//! connected while the wasm was loading, and calls [`serve`] with them.

mod codec;
mod death_watch;
mod hub;
mod listener;
#[cfg(test)]
mod tests;

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use web_sys::{EventTarget, MessageEvent, MessagePort};

use hub::Hub;
use listener::Listener;

/// What keeps the worker serving: the state and the `connect` listener, for the worker's life.
struct Serving {
    _hub: Rc<RefCell<Hub>>,
    _on_connect: Listener,
}

thread_local! {
    static SERVING: RefCell<Option<Serving>> = const { RefCell::new(None) };
}

/// Starts serving: `early_ports` connected before the wasm was ready; later ones arrive
/// through the global scope's `connect` event.
#[wasm_bindgen]
pub fn serve(early_ports: js_sys::Array) {
    let hub = Hub::new();
    for port in early_ports.iter() {
        Hub::connect(&hub, port.unchecked_into());
    }
    let global: EventTarget = js_sys::global().unchecked_into();
    let for_connect = Rc::downgrade(&hub);
    let on_connect = Listener::new(&global, "connect", move |event| {
        let Some(hub) = for_connect.upgrade() else {
            return;
        };
        let ports = event.unchecked_into::<MessageEvent>().ports();
        if let Ok(port) = ports.get(0).dyn_into::<MessagePort>() {
            Hub::connect(&hub, port);
        }
    });
    SERVING.with(|s| {
        *s.borrow_mut() = Some(Serving {
            _hub: hub,
            _on_connect: on_connect,
        })
    });
}
