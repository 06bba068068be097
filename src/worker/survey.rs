//! The survey a new worker starts with: which contexts' databases exist (see the
//! service's `recovery.rs`).

use crate::prelude::*;
use js_sys::{Array, Function, Promise, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::lifeline::{indexed_db, CLIENT_DB_PREFIX};

/// Names of the contexts' databases that exist now. Empty where `databases()` is missing
/// (Firefox before 126): there a restarted worker cannot know its survivors.
pub(crate) async fn client_databases() -> Vec<String> {
    let Ok(factory) = indexed_db() else {
        return Vec::new();
    };
    let Ok(list) = Reflect::get(&factory, &"databases".into()) else {
        return Vec::new();
    };
    let Some(list) = list.dyn_ref::<Function>() else {
        return Vec::new();
    };
    let Ok(promise) = list.call0(&factory) else {
        return Vec::new();
    };
    let Ok(infos) = JsFuture::from(Promise::from(promise)).await else {
        return Vec::new();
    };
    Array::from(&infos)
        .iter()
        .filter_map(|info| Reflect::get(&info, &"name".into()).ok()?.as_string())
        .filter(|name| name.starts_with(CLIENT_DB_PREFIX))
        .collect()
}
