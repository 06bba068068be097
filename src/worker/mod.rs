//! The SharedWorker: the I/O around the lock service (src/service/). Every same-origin
//! context connects a port; the driver feeds the service and performs its outputs.
//!
//! `js/worker/worker-entry.js` (a classic script) loads this module, keeps the ports that
//! connected while the wasm was loading, and calls [`serve`] with them.

mod codec;
mod death_watch;
mod driver;
mod listener;
#[cfg(test)]
mod tests;
mod timer;

use core::cell::RefCell;

use wasm_bindgen::prelude::*;
use web_sys::{EventTarget, MessageEvent};

use crate::service::{Leader, Service, Signal};
use codec::decode_text;
use driver::{with, Driver, Handle};
use listener::Listener;

/// A value for the realm's life. A wasm32 module without threads has one thread, so a
/// `static` may hold what is not `Sync`.
struct ForRealm<T>(RefCell<T>);
// SAFETY: wasm32-unknown-unknown without the atomics feature runs on a single thread.
unsafe impl<T> Sync for ForRealm<T> {}

/// The worker's driver, once it serves (for the worker's life).
static SERVING: ForRealm<Option<Handle>> = ForRealm(RefCell::new(None));

#[cfg(feature = "no-std-module")]
#[global_allocator]
// SAFETY: wasm32-unknown-unknown without the atomics feature runs on a single thread.
static ALLOCATOR: lol_alloc::AssumeSingleThreaded<lol_alloc::FreeListAllocator> =
    unsafe { lol_alloc::AssumeSingleThreaded::new(lol_alloc::FreeListAllocator::new()) };

/// No panic is expected on any path; one that happens traps without formatting a message, so
/// no formatting machinery is linked, and the loader (js/worker/worker-entry.js) ends the worker at
/// the uncaught trap: its contexts notice through its lifeline and start a new one.
#[cfg(feature = "no-std-module")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}

/// Starts serving: `early_ports` connected before the wasm was ready; later ones arrive
/// through `scope`'s `connect` event (the SharedWorker's global scope). The loader
/// (js/worker/worker-entry.js) names the worker (`epoch`) and made, while the wasm loaded, a new
/// worker's first claim of the origin (unless another worker is recorded), with the survey a
/// leader needs: `answer`, as for [`claimed`]. Its lifeline database may still be opening
/// (see [`lifeline_open`]): only the welcome waits for it.
///
/// The in-process lock service of one realm (`createLockManager({ local: true })`,
/// js/worker/local-service.js) is served the same way: its one port is the service's end of a
/// channel through which the realm's clients are adopted, no `connect` arrives on it, and it
/// is its own leader (`answer`: its own epoch), with no lifeline and no survivors to wait for.
#[wasm_bindgen]
pub fn serve(
    early_ports: js_sys::Array,
    epoch: JsValue,
    answer: js_sys::Array,
    scope: EventTarget,
) {
    let driver = Driver::new(Service::new(&decode_text(&epoch).unwrap_or_default()));
    *SERVING.0.borrow_mut() = Some(driver);
    claimed(answer);
    // (Arrays are read by index: js-sys's array iterator is more code.)
    with(driver, |d| {
        for at in 0..early_ports.length() {
            d.connect(early_ports.get(at).unchecked_into());
        }
    });
    let on_connect = Listener::new(&scope, "connect", move |event| {
        // (A connect event's port is a MessagePort: no class check, as for `adopt`.)
        let port = event.unchecked_into::<MessageEvent>().ports().get(0);
        if !port.is_undefined() {
            with(driver, |d| d.connect(port.unchecked_into()));
        }
    });
    // (It listens for the worker's life.)
    core::mem::forget(on_connect);
}

/// Feeds the serving driver, if there is one.
fn serving(f: impl FnOnce(&mut Service)) {
    let driver = *SERVING.0.borrow();
    if let Some(driver) = driver {
        with(driver, |d| f(d.service()));
    }
}

/// The loader opened the worker's lifeline database (`lifeline`: its name, or null where it
/// could not): the clients so far are welcomed, later ones at their hello.
#[wasm_bindgen]
pub fn lifeline_open(lifeline: JsValue) {
    serving(|s| s.handle_lifeline(decode_text(&lifeline).as_deref()));
}

/// The tab hosting this worker became hidden (`true`) or visible (a dedicated worker's
/// page tells it: js/client/tab-host.js).
#[wasm_bindgen]
pub fn hidden(hidden: bool) {
    serving(|s| s.handle_hidden(hidden));
}

/// Another lock worker's signal on their channel: 1 asks, 2 says its tab is visible.
#[wasm_bindgen]
pub fn signal(signal: u32) {
    serving(|s| {
        s.handle_signal(if signal < 2 {
            Signal::Ask
        } else {
            Signal::Visible
        })
    });
}

/// The loader carried out a claim (`Output::Claim`, or a new worker's first): `answer` holds
/// the leader recorded now (its epoch, URL and lifeline), then the names of the origin's
/// databases it surveyed meanwhile (none where the browser cannot list them: there a new
/// leader does not wait).
#[wasm_bindgen]
pub fn claimed(answer: js_sys::Array) {
    let mut texts = (0..answer.length()).map(|at| decode_text(&answer.get(at)).unwrap_or_default());
    let mut next = || texts.next().unwrap_or_default();
    let leader = Leader {
        epoch: next(),
        url: next(),
        lifeline: next(),
    };
    let survey = texts.collect();
    serving(|s| s.handle_claimed(leader, survey));
}
