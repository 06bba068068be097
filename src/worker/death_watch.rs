//! Noticing that a context is gone without relying on its event loop.
//!
//! Each context keeps a connection open to an IndexedDB database of its own and ignores
//! `versionchange`. The worker asks to open that database at a higher version and leaves
//! the request pending: while the context lives — idle or busy in a long task — the request
//! only reports `blocked`; once the browser closes the context's connection (the tab closed,
//! crashed or navigated, the iframe was removed, the worker terminated), `upgradeneeded`
//! fires. No polling, no timers, no false alarms from a busy context.

use wasm_bindgen::JsValue;
use web_sys::IdbOpenDbRequest;

use super::lifeline::indexed_db;
use super::listener::Listener;

#[must_use = "dropping a DeathWatch stops watching"]
pub(crate) struct DeathWatch {
    _on_upgrade: Listener,
}

impl DeathWatch {
    /// Watches the database `db` (opened at version 1 by its context); calls `on_death`
    /// once that context's connection has closed, after cleaning the database up.
    pub(crate) fn start(
        db: &str,
        on_death: impl FnOnce() + 'static,
    ) -> Result<DeathWatch, JsValue> {
        let factory = indexed_db()?;
        let request: IdbOpenDbRequest = factory.open_with_u32(db, 2)?;
        let pending = request.clone();
        let name = db.to_string();
        let mut on_death = Some(on_death);
        let on_upgrade = Listener::new(&request, "upgradeneeded", move |_| {
            // Undo the upgrade (closing our connection), then delete the context's database.
            if let Some(upgrade) = pending.transaction() {
                let _ = upgrade.abort();
            }
            let _ = factory.delete_database(&name);
            if let Some(notify) = on_death.take() {
                notify();
            }
        });
        Ok(DeathWatch {
            _on_upgrade: on_upgrade,
        })
    }
}
