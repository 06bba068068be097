//! An event listener owned by a value: dropping it removes the listener and frees the
//! closure (gloo style), so no listener outlives what it serves.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::EventTarget;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = EventTarget)]
    type Target;

    // `addEventListener` and `removeEventListener` without web-sys's `catch`: with a type and
    // a function they throw nothing, and a handler for an exception that cannot come is
    // glue and code in every page's download.
    #[wasm_bindgen(method, js_name = addEventListener)]
    fn listen(this: &Target, kind: &str, callback: &JsValue);
    #[wasm_bindgen(method, js_name = removeEventListener)]
    fn unlisten(this: &Target, kind: &str, callback: &JsValue);
}

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
            .unchecked_ref::<Target>()
            .listen(kind, callback.as_ref());
        Listener {
            target: target.clone(),
            kind,
            callback,
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        (self.target.unchecked_ref::<Target>()).unlisten(self.kind, self.callback.as_ref());
    }
}
