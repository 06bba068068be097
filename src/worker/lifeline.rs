//! The worker's own IndexedDB connection, which its clients watch to notice that the worker
//! died (a SharedWorker can die with the tab that started it, silently for the others).

use crate::prelude::*;
use alloc::rc::Rc;
use core::cell::RefCell;

use js_sys::Reflect;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{IdbFactory, IdbOpenDbRequest};

use super::listener::Listener;

pub(crate) const CLIENT_DB_PREFIX: &str = "web-locks-client-";

pub(crate) fn indexed_db() -> Result<IdbFactory, JsValue> {
    Reflect::get(&js_sys::global(), &"indexedDB".into())?.dyn_into()
}

/// Keeps `web-locks-worker-<epoch>` open at version 1 for the worker's whole life (the
/// request is kept: a collected connection would be closed).
pub(crate) struct Lifeline {
    _request: Option<IdbOpenDbRequest>,
    _on_open: Option<Listener>,
    _on_error: Option<Listener>,
}

impl Lifeline {
    /// Opens the database; `on_ready` gets its name once it is open — only then may
    /// clients watch it, or their watch would find no connection and fire at once — or
    /// `None` where IndexedDB is unavailable or the open fails (e.g. private browsing in
    /// older Firefox): clients are then welcomed without a lifeline.
    pub(crate) fn open(epoch: &str, on_ready: impl FnOnce(Option<String>) + 'static) -> Lifeline {
        let db = ["web-locks-worker-", epoch].concat();
        let Ok(request) = indexed_db().and_then(|f| f.open_with_u32(&db, 1)) else {
            on_ready(None);
            return Lifeline {
                _request: None,
                _on_open: None,
                _on_error: None,
            };
        };
        let once = Rc::new(RefCell::new(Some(on_ready)));
        let on_failure = once.clone();
        let on_open = Listener::new(&request, "success", move |_| {
            let ready = once.borrow_mut().take();
            if let Some(ready) = ready {
                ready(Some(db.clone()));
            }
        });
        let on_error = Listener::new(&request, "error", move |_| {
            let ready = on_failure.borrow_mut().take();
            if let Some(ready) = ready {
                ready(None);
            }
        });
        Lifeline {
            _request: Some(request),
            _on_open: Some(on_open),
            _on_error: Some(on_error),
        }
    }
}
