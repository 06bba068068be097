//! Rebuilding the state after the worker restarted.
//!
//! A SharedWorker can die with the tab that started it, taking every lock with it. The
//! surviving contexts notice (their watch on the worker's lifeline database fires), start a
//! new worker, and re-declare: `hello`, one `reclaim` per lock they hold, their pending
//! requests again in their original order, and finally `watch`. So that no lock is granted
//! while a survivor still holds it, a new worker starts paused: it lists the contexts'
//! databases (IndexedDB `databases()`), watches each, and grants nothing until every one of
//! them has either re-declared (sent `watch`) or died, or [`RECOVERY_LIMIT_MS`] passed.
//! Conflicting reclaims (which a lost message can cause) are settled first come, first
//! served: the later claimant is told its lock was stolen.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Function, Promise, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::hub::{Hub, Outbox};
use super::lifeline::{indexed_db, CLIENT_DB_PREFIX};
use super::timer::Timer;

/// The longest a new worker waits for survivors (e.g. a tab busy in a long task) before it
/// grants again.
pub(crate) const RECOVERY_LIMIT_MS: u32 = 3000;

/// Names of the contexts' databases that exist now. Empty where `databases()` is missing
/// (Firefox before 126): there a restarted worker cannot know its survivors and does not wait.
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

impl Hub {
    /// The survey is done: waits for the contexts behind `databases` (the core has been
    /// paused since the worker started), at most [`RECOVERY_LIMIT_MS`].
    pub(crate) fn begin_recovery(&mut self, databases: Vec<String>) -> Outbox {
        self.surveyed = true;
        for db in databases {
            if self.watches.get(&db).is_some_and(|w| w.client.is_some()) {
                continue; // its context has connected and re-declared already
            }
            self.expected.insert(db.clone());
            // A database that cannot be watched is not waited for.
            if self.watch(db.clone(), None).is_err() {
                self.expected.remove(&db);
            }
        }
        if !self.expected.is_empty() {
            let hub = self.me.clone();
            self.recovery_deadline = Some(Timer::once(RECOVERY_LIMIT_MS, move || {
                let Some(hub) = hub.upgrade() else { return };
                let outbox = Hub::end_recovery(&hub);
                outbox.send();
            }));
        }
        self.resume_if_recovered();
        let mut outbox = Outbox::default();
        self.carry_out(&mut outbox);
        outbox
    }

    /// The time limit passed: survivors that did not re-declare yet are not waited for.
    fn end_recovery(hub: &Rc<RefCell<Hub>>) -> Outbox {
        let mut state = hub.borrow_mut();
        state.expected.clear();
        state.resume_if_recovered();
        let mut outbox = Outbox::default();
        state.carry_out(&mut outbox);
        outbox
    }

    /// Grants again once the survey is done and no survivor is awaited.
    pub(crate) fn resume_if_recovered(&mut self) {
        if self.core.is_paused() && self.surveyed && self.expected.is_empty() {
            self.core.resume();
            self.recovery_deadline = None;
        }
    }
}
