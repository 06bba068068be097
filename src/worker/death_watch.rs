//! Noticing that a context is gone without relying on its event loop.
//!
//! Each context keeps a connection open to an IndexedDB database of its own and ignores
//! `versionchange`. The worker asks to open that database at a higher version and leaves
//! the request pending: while the context lives — idle or busy in a long task — the request
//! only reports `blocked`; once the browser closes the context's connection (the tab closed,
//! crashed or navigated, the iframe was removed, the worker terminated), `upgradeneeded`
//! fires. No polling, no timers, no false alarms from a busy context. An upgrade from
//! version 0 means the database did not exist (yet): reported as [`WatchEnd::Absent`].

use js_sys::JsString;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;
use web_sys::IdbOpenDbRequest;

use super::codec::get_property;
use super::listener::Listener;
use crate::service::WatchEnd;

#[wasm_bindgen]
extern "C" {
    /// `IDBFactory`, with database names passed as the JS strings they are (web-sys's
    /// methods take a Rust `&str`).
    #[wasm_bindgen(js_name = IDBFactory)]
    #[derive(Clone)]
    type Databases;

    /// The global scope's IndexedDB, where there is one. (The worker's own lifeline database
    /// and the survey of existing ones are the loader's, js/worker/worker-entry.js: they start
    /// while the wasm loads.)
    #[wasm_bindgen(thread_local_v2, js_name = indexedDB)]
    static INDEXED_DB: Option<Databases>;

    #[wasm_bindgen(method, catch)]
    fn open(this: &Databases, name: &JsString, version: u32) -> Result<IdbOpenDbRequest, JsValue>;

    #[wasm_bindgen(method, catch, js_name = deleteDatabase)]
    fn delete_database(this: &Databases, name: &JsString) -> Result<JsValue, JsValue>;
}

fn indexed_db() -> Result<Databases, JsValue> {
    INDEXED_DB
        .with(Option::clone)
        .ok_or_else(|| "no IndexedDB".into())
}

#[must_use = "dropping a DeathWatch stops watching"]
pub(crate) struct DeathWatch {
    _on_upgrade: Listener,
}

impl DeathWatch {
    /// Watches the database `db`; calls `on_end` once, when its context's connection has
    /// closed (the database is then deleted) or when it turns out not to exist.
    pub(crate) fn start(
        db: JsString,
        on_end: impl FnOnce(WatchEnd) + 'static,
    ) -> Result<DeathWatch, JsValue> {
        let factory = indexed_db()?;
        let request = factory.open(&db, 2)?;
        let pending = request.clone();
        let mut on_end = Some(on_end);
        let on_upgrade = Listener::new(&request, "upgradeneeded", move |event| {
            // Undo the upgrade (closing our connection; a database we created is not kept).
            if let Some(upgrade) = pending.transaction() {
                let _ = upgrade.abort();
            }
            let old = get_property(&event, &"oldVersion".into());
            let end = if old == JsValue::from_f64(0.0) {
                WatchEnd::Absent
            } else {
                let _ = factory.delete_database(&db);
                WatchEnd::Died
            };
            if let Some(notify) = on_end.take() {
                notify(end);
            }
        });
        Ok(DeathWatch {
            _on_upgrade: on_upgrade,
        })
    }
}
