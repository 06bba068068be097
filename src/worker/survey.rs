//! The survey a new worker starts with: which contexts' databases exist (see the
//! service's `recovery.rs`).

use crate::prelude::*;
use js_sys::{Array, Function, Promise, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

use super::lifeline::{indexed_db, CLIENT_DB_PREFIX};

/// Calls `done`, in a later task, with the names of the contexts' databases that exist
/// now. Empty where `databases()` is missing (Firefox before 126) or fails: there a restarted
/// worker cannot know its survivors.
pub(crate) fn client_databases(done: impl FnOnce(Vec<String>) + 'static) {
    let settled = Closure::<dyn FnMut(JsValue)>::once_into_js(move |infos: JsValue| {
        // (A rejection's reason, or the `undefined` of no `databases()`, is not an array.)
        let names = match infos.dyn_into::<Array>() {
            Ok(infos) => infos
                .iter()
                .filter_map(|info| Reflect::get(&info, &"name".into()).ok()?.as_string())
                .filter(|name| name.starts_with(CLIENT_DB_PREFIX))
                .collect(),
            Err(_) => Vec::new(),
        };
        done(names);
    });
    // `then(settled, settled)`: whichever way the listing ends, `settled` runs once (and is
    // freed then).
    let listing = Promise::resolve(&list().unwrap_or(JsValue::UNDEFINED));
    if let Ok(then) = Reflect::get(&listing, &"then".into()) {
        let _ = then
            .unchecked_into::<Function>()
            .call2(&listing, &settled, &settled);
    }
}

/// `indexedDB.databases()`, where it exists.
fn list() -> Option<JsValue> {
    let factory = indexed_db().ok()?;
    let list = Reflect::get(&factory, &"databases".into()).ok()?;
    list.dyn_ref::<Function>()?.call0(&factory).ok()
}
