//! The invariants (see the module docs).

use super::*;
use web_locks::service::RECOVERY_LIMIT_MS;

impl Sim {
    /// At most one live worker serves, frozen ones included (they may thaw).
    pub(super) fn check_one_leader(&self) {
        let leading = self
            .live_workers()
            .filter(|w| w.service.is_leading())
            .count();
        assert!(
            leading <= 1,
            "{leading} workers serve the origin at {}",
            self.now
        );
    }

    pub(super) fn check_exclusion(&self) {
        let mut holders: HashMap<&[u16], Vec<(usize, Mode)>> = HashMap::new();
        // (A frozen context runs nothing: what it believes it holds does not count until it
        // thaws.)
        let live = self
            .ctxs
            .iter()
            .enumerate()
            .filter(|(_, c)| c.alive && !c.frozen);
        for (c, ctx) in live {
            for r in ctx.reqs.values() {
                if r.state == State::Held && !r.revoked {
                    for name in &r.names {
                        holders.entry(name).or_default().push((c, r.mode));
                    }
                }
            }
        }
        for (name, hs) in holders {
            if hs.len() > 1 && hs.iter().any(|(_, m)| *m == Mode::Exclusive) {
                panic!("conflicting holders of {name:?} at {}: {hs:?}", self.now);
            }
        }
    }

    /// A reclaim answered `stolen` (the lock is lost to its context) is a survivor's that came
    /// too late: the worker's survey did not list its database, the wait for survivors was
    /// over, the context or its database is gone, or the lock had already been taken from it
    /// (a steal; revoked). One the worker was still waiting for is never lost (an old port's
    /// `watch` ended that wait before its new port's reclaims came, once).
    pub(super) fn check_lost_reclaim(&self, gen: usize, port: PortId, id: u32) {
        let Some((c, reclaimed)) = self.reclaiming else {
            return;
        };
        if reclaimed != id || self.port_owner.get(&(gen, port)) != Some(&c) {
            return;
        }
        let ctx = &self.ctxs[c];
        let revoked = ctx.reqs.get(&id).is_none_or(|r| r.revoked);
        // (A context that died, or whose database closed, meanwhile is no longer awaited: a
        // late port can still bring its reclaim.)
        let open = self
            .dbs
            .get(&ctx.db)
            .is_some_and(|db| db.open_by == Some(c));
        let awaited = ctx.alive
            && open
            && self.workers[gen].survey.as_ref().is_some_and(|(at, dbs)| {
                dbs.contains(&ctx.db) && self.now < at + u64::from(RECOVERY_LIMIT_MS)
            });
        // (Nor when another survivor's reclaim of one of its names came first, of a lock a
        // steal had taken from that survivor, whose `stolen` was lost with the crashed worker:
        // its reclaim looks as sound as any, and the first is kept.)
        let names = ctx
            .reqs
            .get(&id)
            .map(|r| r.names.clone())
            .unwrap_or_default();
        let stale_first = self
            .stale_reclaims
            .iter()
            .any(|(k, stale)| *k != c && stale.iter().any(|n| names.contains(n)));
        assert!(
            revoked || stale_first || !awaited,
            "context {c}'s reclaim {id} lost at {} though worker {gen} awaited it",
            self.now
        );
    }

    /// No live worker has a lock or request of context `c`: else the time to check again.
    /// A worker that resigned serves no one (its glue ends it at once); one frozen since
    /// (or still) has until [`DEATH_BOUND`] after it thaws.
    pub(super) fn check_released(&self, c: usize, what: &str) -> Option<Time> {
        let client_id = &self.ctxs[c].client_id;
        let mut again = None;
        for (gen, worker) in self.workers.iter().enumerate().filter(|(_, w)| w.alive) {
            let (held, pending) = worker.service.locks();
            let stuck = held
                .iter()
                .chain(&pending)
                .any(|i| i.client_id == *client_id);
            if !stuck || worker.resigned {
                continue;
            }
            let due = worker.frozen_until + DEATH_BOUND;
            if due > self.now {
                again = again.max(Some(due));
                continue;
            }
            panic!(
                "context {c} {what} (died at {:?}); worker {gen} still has its locks at {}",
                self.ctxs[c].died_at, self.now
            );
        }
        again
    }

    /// Once every live context has released what it got (activity stopped): nothing is
    /// held or waiting at a live worker, and every live context has had its answers.
    pub(super) fn check_quiet(&self) {
        for worker in self.live_workers() {
            let (held, pending) = worker.service.locks();
            assert!(
                held.is_empty() && pending.is_empty(),
                "locks left once every context released: held {held:?}, pending {pending:?}"
            );
        }
        for (c, ctx) in self.ctxs.iter().enumerate().filter(|(_, c)| c.alive) {
            let open: Vec<_> = (ctx.reqs.iter())
                .filter(|(_, r)| matches!(r.state, State::Pending | State::Query))
                .collect();
            assert!(open.is_empty(), "context {c} still waits for {open:?}");
        }
    }
}
