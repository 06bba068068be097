//! The SharedWorker: every same-origin context connects a port; the hub drives the core.
//!
//! `js/worker-entry.js` (a classic script) loads this module, keeps the ports that
//! connected while the wasm was loading, and calls [`serve`] with them.

mod codec;
mod death_watch;
mod hub;
mod lifeline;
mod listener;
mod recovery;
#[cfg(test)]
mod tests;
mod timer;

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use web_sys::{EventTarget, MessageEvent, MessagePort};

use hub::Hub;
use lifeline::Lifeline;
use listener::Listener;

/// What keeps the worker serving, for the worker's life: the state, the `connect` listener
/// and the lifeline database its clients watch.
struct Serving {
    _hub: Rc<RefCell<Hub>>,
    _on_connect: Listener,
    _lifeline: Lifeline,
}

thread_local! {
    static SERVING: RefCell<Option<Serving>> = const { RefCell::new(None) };
}

/// Starts serving: `early_ports` connected before the wasm was ready; later ones arrive
/// through the global scope's `connect` event.
#[wasm_bindgen]
pub fn serve(early_ports: js_sys::Array) {
    let epoch = format!(
        "{:013x}",
        (js_sys::Math::random() * (1u64 << 52) as f64) as u64
    );
    let hub = Hub::new(epoch.clone());
    let ready = Rc::downgrade(&hub);
    let lifeline = Lifeline::open(&epoch, move |db| {
        let Some(hub) = ready.upgrade() else { return };
        let outbox = hub.borrow_mut().lifeline_ready(db);
        outbox.send();
    });
    // Nothing is granted until the survivors of a previous worker are known (recovery.rs).
    hub.borrow_mut().core.pause();
    let survey = Rc::downgrade(&hub);
    wasm_bindgen_futures::spawn_local(async move {
        let databases = recovery::client_databases().await;
        let Some(hub) = survey.upgrade() else { return };
        let outbox = hub.borrow_mut().begin_recovery(databases);
        outbox.send();
    });
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
            _lifeline: lifeline,
        })
    });
}
