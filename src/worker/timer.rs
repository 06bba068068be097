//! A one-shot `setTimeout` owned by a value: dropping it clears the timeout and frees the
//! closure. Bound through the global object so it works in any worker.

use js_sys::{Function, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

#[must_use = "dropping a Timer cancels it"]
pub(crate) struct Timer {
    handle: JsValue,
    _callback: Closure<dyn FnMut()>,
}

fn global_fn(name: &str) -> Function {
    Reflect::get(&js_sys::global(), &name.into())
        .unwrap_or_else(|_| panic!("no timers in this global"))
        .unchecked_into()
}

impl Timer {
    pub(crate) fn once(millis: u32, f: impl FnOnce() + 'static) -> Timer {
        let mut f = Some(f);
        let callback = Closure::<dyn FnMut()>::new(move || {
            if let Some(f) = f.take() {
                f();
            }
        });
        let handle = global_fn("setTimeout")
            .call2(&JsValue::UNDEFINED, callback.as_ref(), &millis.into())
            .unwrap_or_else(|_| panic!("setTimeout threw"));
        Timer {
            handle,
            _callback: callback,
        }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        let _ = global_fn("clearTimeout").call1(&JsValue::UNDEFINED, &self.handle);
    }
}
