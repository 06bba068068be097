//! The worker's own IndexedDB connection, which its clients watch to notice that the worker
//! died (a SharedWorker can die with the tab that started it, silently for the others).

use js_sys::Reflect;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{IdbFactory, IdbOpenDbRequest};

pub(crate) const CLIENT_DB_PREFIX: &str = "web-locks-client-";

pub(crate) fn indexed_db() -> Result<IdbFactory, JsValue> {
    Reflect::get(&js_sys::global(), &"indexedDB".into())?.dyn_into()
}

/// Keeps `web-locks-worker-<epoch>` open at version 1 for the worker's whole life (the
/// request is kept: a collected connection would be closed).
pub(crate) struct Lifeline {
    pub(crate) db: String,
    _request: Option<IdbOpenDbRequest>,
}

impl Lifeline {
    pub(crate) fn open(epoch: &str) -> Lifeline {
        let db = format!("web-locks-worker-{epoch}");
        let request = indexed_db().and_then(|f| f.open_with_u32(&db, 1)).ok();
        Lifeline {
            db,
            _request: request,
        }
    }
}
