//! Serving only when the state is known, without changing what any request means.
//!
//! A SharedWorker can die with the tab that started it, taking every lock with it. The
//! surviving contexts notice (their watch on the worker's lifeline database fires), reach a
//! new serving worker (one that starts, or another build's that takes over: election.rs),
//! and re-declare: `hello`, one `reclaim` per lock they hold, their pending requests again
//! in their original order, and finally `watch`. A new serving worker therefore starts by
//! listing the contexts' databases that exist, of every build (the survey, with its claim);
//! every one whose context has not re-declared yet is watched and awaited, for at most
//! [`RECOVERY_LIMIT_MS`], and until then nothing is served: reclaims are taken as they come
//! (they rebuild the state), while requests, releases, aborts and queries wait in arrival
//! order, but for the requests and queries of several contexts, which the contexts re-declare
//! as each reconnects: those wait in the order they were made (their `at`,
//! `Service::defer`), as the dead worker had queued them. When the wait ends they are given to the core in that order,
//! so an `ifAvailable` request is decided then, against the rebuilt state, exactly as §4.1
//! decides it. A
//! survivor later than that loses what it reclaims (`stolen`, as `Service::reclaim` says):
//! the worker may have granted it to another context since.
//!
//! The same queue holds a client's inputs until its `watch` confirms its database is open,
//! so that a restarted worker's survey finds every context that could hold a lock.

use crate::prelude::*;

use crate::table::Table;

use super::{Output, Recovery, Service, Text, Timer};

/// The longest a new worker waits for survivors (e.g. a tab busy in a long task) before it
/// serves again.
pub const RECOVERY_LIMIT_MS: u32 = 3000;

impl Service {
    /// The survey answered, with the claim this worker won: the contexts' databases that
    /// exist now (empty where the browser cannot list them; there a new leader does not
    /// wait).
    pub(super) fn handle_survey(&mut self, databases: Vec<Text>) {
        if !matches!(self.recovery, Recovery::Surveying) {
            return;
        }
        let mut awaited = Table::new();
        for db in databases {
            if self.watched_by_confirmed(&db) {
                continue; // its context has connected and re-declared already
            }
            if !self.watches.contains_key(&db) {
                self.watch(db.clone(), None);
            }
            awaited.insert(db, ());
        }
        if awaited.is_empty() {
            self.recovery = Recovery::Done;
            self.flush();
        } else {
            self.recovery = Recovery::Awaiting(awaited);
            let limit = Output::SetTimer(Timer::Recovery, RECOVERY_LIMIT_MS);
            self.outputs.push_back(limit);
        }
        self.carry_out();
    }

    /// The context behind `db` re-declared or died: it is no longer awaited.
    pub(super) fn survivor_done(&mut self, db: &[u16]) {
        if let Recovery::Awaiting(awaited) = &mut self.recovery {
            awaited.remove(db);
            if awaited.is_empty() {
                self.outputs.push_back(Output::CancelTimer(Timer::Recovery));
                self.recovery = Recovery::Done;
                self.flush();
            }
        }
    }

    /// The time limit passed: survivors that did not re-declare yet are not waited for.
    pub(super) fn end_recovery(&mut self) {
        if let Recovery::Awaiting(_) = self.recovery {
            self.recovery = Recovery::Done;
            self.flush();
        }
    }

    /// Serves the waiting inputs that can be served now, in arrival order.
    pub(super) fn flush(&mut self) {
        if self.is_recovering() || self.deferred.is_empty() {
            return;
        }
        for (client, message) in core::mem::take(&mut self.deferred) {
            if self.serving(client) {
                self.apply(client, message);
            } else if self.clients.contains_key(&client) {
                self.deferred.push((client, message));
            }
        }
    }
}
