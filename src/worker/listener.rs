//! An event listener owned by a value: dropping it removes the listener and frees the
//! closure (gloo style), so no listener outlives what it serves.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use web_sys::EventTarget;

#[must_use = "dropping a Listener removes it"]
pub(crate) struct Listener {
    target: EventTarget,
    kind: &'static str,
    callback: Closure<dyn FnMut(JsValue)>,
}

impl Listener {
    pub(crate) fn new(
        target: &EventTarget,
        kind: &'static str,
        f: impl FnMut(JsValue) + 'static,
    ) -> Self {
        // (One closure type for listeners and timers: one set of glue for both.)
        let callback = Closure::<dyn FnMut(JsValue)>::new(f);
        target
            .add_event_listener_with_callback(kind, callback.as_ref().unchecked_ref())
            // (A static message: formatting the error would link the formatting machinery.)
            .unwrap_or_else(|_| panic!("addEventListener threw"));
        Listener {
            target: target.clone(),
            kind,
            callback,
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self
            .target
            .remove_event_listener_with_callback(self.kind, self.callback.as_ref().unchecked_ref());
    }
}
