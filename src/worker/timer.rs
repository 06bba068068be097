//! A one-shot `setTimeout` owned by a value: dropping it clears the timeout and frees the
//! closure. The global functions, as every worker (and Node) has them.

use js_sys::Function;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(callback: &Function, millis: u32) -> JsValue;

    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(handle: &JsValue);
}

#[must_use = "dropping a Timer cancels it"]
pub(crate) struct Timer {
    handle: JsValue,
    _callback: Closure<dyn FnMut(JsValue)>,
}

impl Timer {
    pub(crate) fn once(millis: u32, f: impl FnOnce() + 'static) -> Timer {
        let mut f = Some(f);
        // (The listeners' closure type: its argument is undefined here.)
        let callback = Closure::<dyn FnMut(JsValue)>::new(move |_| {
            if let Some(f) = f.take() {
                f();
            }
        });
        let handle = set_timeout(callback.as_ref().unchecked_ref(), millis);
        Timer {
            handle,
            _callback: callback,
        }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        clear_timeout(&self.handle);
    }
}
