//! Noticing that a context is gone: the death watch on its database (see the worker's
//! `death_watch.rs` for how the browser tells), from its `hello` on.
//!
//! A context calls `indexedDB.open(db, 1)` before it posts `hello`, so the worker's watch is
//! normally queued behind that open and sees the database. If it finds no database
//! ([`WatchEnd::Absent`]), the context's open has not been processed yet — or never will be,
//! because the context died first: the service looks again after [`REWATCH_MS`] and takes
//! the context for dead once they are spent. A context that cannot open a database at all
//! says so with a `watch` without `db`, and is served unwatched (pagehide remains).

use super::{ClientId, Output, Service, Text, Timer, WatchEnd};

/// Delays before each further look at a database that was absent: a context that died
/// before its database was created is taken for dead 750 ms after its first look.
pub const REWATCH_MS: [u32; 4] = [50, 100, 200, 400];

/// A database under watch, and the client it belongs to once that client has said so
/// (after a restart, the survey's watches start before their clients reconnect).
pub(super) struct Watched {
    client: Option<ClientId>,
    /// Looks that found no database so far.
    absent: usize,
    /// This watch's number, for its timer.
    pub(super) number: u32,
}

impl Service {
    /// A death watch ended.
    pub fn handle_watch_end(&mut self, db: &[u16], end: WatchEnd) {
        if self.leader_ended(db) {
            return;
        }
        let Some(watched) = self.watches.get_mut(db) else {
            return;
        };
        if end == WatchEnd::Absent && watched.client.is_some() {
            if let Some(&delay) = REWATCH_MS.get(watched.absent) {
                watched.absent += 1;
                let timer = Timer::Rewatch(watched.number);
                self.outputs.push_back(Output::SetTimer(timer, delay));
                return;
            }
        }
        // Died, or still absent after every look: the context is gone.
        let (db, watched) = self.watches.remove_entry(db).expect("present");
        if let Some(client) = watched.client {
            self.disconnect(client, false);
        }
        self.survivor_done(&db);
        self.carry_out();
    }

    /// Watches `db` as `client`'s database (or adopts the survey's watch of it).
    pub(super) fn watch_client(&mut self, client: ClientId, db: Text) {
        if let Some(entry) = self.clients.get_mut(&client) {
            entry.db = Some(db.clone());
        }
        if let Some(watched) = self.watches.get_mut(&db) {
            watched.client = Some(client);
        } else {
            self.watch(db, Some(client));
        }
    }

    pub(super) fn watch(&mut self, db: Text, client: Option<ClientId>) {
        self.next_watch += 1;
        let number = self.next_watch;
        self.watches.insert(
            db.clone(),
            Watched {
                client,
                absent: 0,
                number,
            },
        );
        self.outputs.push_back(Output::Watch(db));
    }

    pub(super) fn watched_by_confirmed(&self, db: &[u16]) -> bool {
        self.watches
            .get(db)
            .and_then(|w| w.client)
            .and_then(|c| self.clients.get(&c))
            .is_some_and(|c| c.confirmed)
    }

    /// `watch`: the client's database is open (or, without `db`, it has none); everything
    /// it re-declared after a reconnection came before this. It is served from now on.
    pub(super) fn confirm(&mut self, client: ClientId, db: Option<Text>) {
        let Some(entry) = self.clients.get_mut(&client) else {
            return;
        };
        let port = entry.port;
        match (db, entry.db.clone()) {
            (Some(db), None) => self.watch_client(client, db),
            (Some(db), Some(known)) if *db != *known => {
                return self.handle_malformed(port, None, "watch names another database");
            }
            (None, Some(known)) => {
                // It could not open the database it named, or gave it up (the site's storage
                // cleared): nothing to watch, and a restarted worker awaits it no more.
                entry.db = None;
                if let Some(watched) = self.watches.remove(&known) {
                    let timer = Timer::Rewatch(watched.number);
                    self.outputs.push_back(Output::CancelTimer(timer));
                }
                self.survivor_done(&known);
            }
            _ => {}
        }
        let entry = self.clients.get_mut(&client).expect("checked above");
        entry.confirmed = true;
        if let Some(db) = entry.db.clone() {
            self.survivor_done(&db);
        }
        self.flush();
    }
}
