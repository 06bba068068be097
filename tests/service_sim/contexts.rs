//! The contexts: a model of js/client/connection.js (and of js/client/tab-host.js, a page's side of its
//! tab host).

use super::*;

impl Sim {
    pub(super) fn spawn_ctx(&mut self, parent: Option<usize>) {
        let i = self.ctxs.len();
        let db = text(&format!("web-locks-client-{i}"));
        // (Shared and service workers only where SharedWorker exists: without it, no
        // window could hand them a port once the last page has gone.)
        let courier = parent.is_none() && self.hosting != Hosting::Tabs && self.rng.chance(30);
        let build = match parent {
            Some(p) => self.ctxs[p].build,
            None => {
                let live: Vec<usize> = (0..self.builds)
                    .filter(|b| !self.gone.contains(b))
                    .collect();
                live[self.rng.below(live.len() as u64) as usize]
            }
        };
        let shared = match (parent, self.hosting) {
            (Some(p), _) => self.ctxs[p].shared,
            (None, Hosting::Shared) => true,
            (None, Hosting::Tabs) => false,
            (None, Hosting::Mixed) => courier || self.rng.chance(50),
        };
        self.ctxs.push(Ctx {
            alive: true,
            build,
            target: None,
            settling: false,
            parent,
            courier,
            shared,
            host: None,
            hosting: None,
            link_host: None,
            hidden: false,
            frozen: false,
            goodbye_heard: false,
            thaws: 0,
            busy_until: 0,
            client_id: text(&format!("client-{i}")),
            db,
            generation: 0,
            ports: 0,
            late_until: 0,
            db_open: false,
            port: None,
            broadcast: false,
            unanswered: None,
            greeted: None,
            welcomed: false,
            unwelcomed: Vec::new(),
            watching: false,
            link: 0,
            backoff: 1000,
            next_id: 0,
            reqs: BTreeMap::new(),
            died_at: None,
        });
        self.open_db(i);
        self.attach(i);
        self.after(0, 40, Event::Act(i));
        if self.is_page(i) && !shared {
            self.after(50, 1500, Event::Visibility(i));
        }
    }

    /// A page that has SharedWorker, or a shared or service worker (its courier window
    /// constructs it): a redirect takes the others over BroadcastChannel.
    pub(super) fn constructs(&self, c: usize) -> bool {
        self.ctxs[c].parent.is_none() && self.ctxs[c].shared
    }

    /// A page without SharedWorker (js/client/connection.js `tabbed`): it keeps its tab host
    /// running while connected.
    pub(super) fn tabbed(&self, c: usize) -> bool {
        self.is_page(c) && !self.ctxs[c].shared
    }

    /// Connected: a port, or a link over BroadcastChannel, answered or not.
    pub(super) fn connected(&self, c: usize) -> bool {
        self.ctxs[c].port.is_some() || self.ctxs[c].unanswered.is_some()
    }

    /// Where a new link of `c` goes (js/client/connection.js `connectPort`): a port on that worker
    /// (a generation), or `None`: over BroadcastChannel, to whichever worker serves.
    fn route(&mut self, c: usize) -> Option<usize> {
        match self.ctxs[c].target {
            Some(Target::Broadcast) => return None,
            Some(Target::Build(build)) => return Some(self.shared_worker(c, build)),
            None => {}
        }
        if let Some(page) = self.ctxs[c].parent {
            return self.handed_on(page, c);
        }
        let build = self.ctxs[c].build;
        if self.ctxs[c].shared {
            Some(self.shared_worker(c, build))
        } else if self.ctxs[c].hosting.is_some() {
            // (Its tab host said it serves: one started since, as after the page ended it
            // at `freeze`, serves it or sends it on.)
            Some(self.tab_host(c, c))
        } else {
            // It need not wait for its own tab host to start only to be sent elsewhere.
            None
        }
    }

    /// The port of dedicated worker `c`, handed on by its page (js/client/connection.js `adopt`):
    /// over the page's port, to the worker that serves it or sends it on. Where the page's
    /// link goes over BroadcastChannel, which carries no port, to the page's tab host (which
    /// serves it or sends it on), or for a page with SharedWorker, over BroadcastChannel too
    /// (the page tells it `redirect`). An unconnected page connects first: to its own.
    fn handed_on(&mut self, page: usize, c: usize) -> Option<usize> {
        let ctx = &self.ctxs[page];
        if let (Some((gen, _)), false) = (ctx.port, ctx.broadcast) {
            return Some(gen);
        }
        let over_broadcast = self.connected(page);
        if !ctx.shared {
            let host = self.tab_host(page, c);
            // (Its link now listens to that host too.)
            if over_broadcast {
                self.ctxs[page].link_host = Some(host);
            }
            return Some(host);
        }
        if over_broadcast {
            self.ctxs[c].target = Some(Target::Broadcast);
            return None;
        }
        let build = ctx.build;
        Some(self.shared_worker(c, build))
    }

    /// A new link, to the worker `route` finds or over BroadcastChannel, greeted with hello.
    /// A page without SharedWorker makes sure its tab host runs, whichever the link, which
    /// elects one when no other serves.
    pub(super) fn attach(&mut self, c: usize) {
        self.ctxs[c].unanswered = None;
        let route = self.route(c);
        let link_host = self.tabbed(c).then(|| self.tab_host(c, c));
        let link = self.token();
        let ctx = &mut self.ctxs[c];
        ctx.link = link;
        ctx.link_host = link_host;
        ctx.welcomed = false;
        ctx.watching = false;
        ctx.ports += 1;
        let hello = ClientMessage::Hello {
            client_id: ctx.client_id.clone(),
            db: Some(ctx.db.clone()),
            n: ctx.ports,
        };
        match route {
            Some(gen) => {
                let port = self.open_port(c, gen);
                let ctx = &mut self.ctxs[c];
                ctx.port = Some((gen, port));
                ctx.broadcast = false;
                self.post(c, hello);
            }
            None => {
                let ctx = &mut self.ctxs[c];
                ctx.port = None;
                ctx.broadcast = true;
                let waiting = Vec::new();
                ctx.unanswered = Some(Unanswered { hello, waiting });
                self.resend(c, link);
            }
        }
        let backoff = self.ctxs[c].backoff;
        self.at(self.now + backoff, Event::Watchdog(c, link));
    }

    /// A new port of `c` on worker `gen`.
    fn open_port(&mut self, c: usize, gen: usize) -> PortId {
        let worker = &mut self.workers[gen];
        worker.next_port += 1;
        let port = PortId(worker.next_port);
        if worker.alive {
            if worker.frozen_until > self.now {
                self.at(self.now, Event::Connect(gen, port));
            } else {
                worker.service.handle_connect(port);
            }
        }
        self.port_owner.insert((gen, port), c);
        // A port handed on by a busy courier (a shared or service worker's: js/client/couriers.js)
        // reaches the worker after the context's watchdog gave up on it. (A dedicated
        // worker's page hands its ports on at once here: one handed on late would still come
        // before the page's goodbye, on the page's port; not modelled.)
        // Now and then it lands just as the newer port's first messages do (its hello, then
        // what it re-declares), between them.
        if self.ctxs[c].courier && self.rng.chance(6) {
            let late = if self.rng.chance(30) {
                self.now + self.ctxs[c].backoff + self.rng.range(1, 8)
            } else {
                self.now + self.rng.range(1100, 2500)
            };
            self.fifo.insert((true, gen, port), late);
            self.ctxs[c].late_until = self.ctxs[c].late_until.max(late);
        }
        port
    }

    /// The hello of link `link` goes out on the serving workers' channel, and again every
    /// RESEND_MS until answered: it reaches the worker that serves then, if one does (a
    /// frozen one once it thaws), and is lost otherwise.
    pub(super) fn resend(&mut self, c: usize, link: u64) {
        let ctx = &self.ctxs[c];
        let Some(unanswered) = ctx.unanswered.as_ref().filter(|_| ctx.link == link) else {
            return;
        };
        let hello = unanswered.hello.clone();
        if let Some(gen) = self.leader() {
            self.after(0, 8, Event::Bridge(gen, c, link, hello));
        }
        self.at(self.now + RESEND_MS, Event::Resend(c, link));
    }

    /// The bridging worker's first message reaches the link: what waited goes out on it.
    /// (A link closed meanwhile drops it; a second worker's bridge of it is not modelled.)
    pub(super) fn answered(&mut self, c: usize, link: u64, port: (usize, PortId)) {
        let ctx = &mut self.ctxs[c];
        if ctx.link != link {
            return;
        }
        let Some(unanswered) = ctx.unanswered.take() else {
            return;
        };
        ctx.port = Some(port);
        for message in unanswered.waiting {
            self.post(c, message);
        }
    }

    /// The page hears its tab host serve: a link over BroadcastChannel that listens to it,
    /// still unanswered, is replaced by a port to it (js/client/connection.js `host`'s `served`).
    pub(super) fn host_serves(&mut self, page: usize, gen: usize) {
        let ctx = &mut self.ctxs[page];
        // (Nothing more comes from one the page has ended.)
        if ctx.host != Some(gen) {
            return;
        }
        ctx.hosting = Some(gen);
        if ctx.link_host == Some(gen) && ctx.unanswered.is_some() {
            self.reconnect(page);
        }
    }

    /// The page hears its tab host end: it forgets it, and the link that listens to it is
    /// replaced (`ended`), whatever worker that link reached.
    pub(super) fn host_ended(&mut self, page: usize, gen: usize) {
        let ctx = &mut self.ctxs[page];
        ctx.hosting = None;
        if ctx.host == Some(gen) {
            ctx.host = None;
        }
        if ctx.link_host == Some(gen) && self.connected(page) {
            self.reconnect(page);
        }
    }

    pub(super) fn post(&mut self, c: usize, message: ClientMessage) {
        let ctx = &mut self.ctxs[c];
        let settles = matches!(
            message,
            ClientMessage::Release { .. } | ClientMessage::Abort { .. }
        );
        if settles && !ctx.welcomed {
            ctx.unwelcomed.push(message.clone());
        }
        if let Some(unanswered) = &mut self.ctxs[c].unanswered {
            unanswered.waiting.push(message);
            return;
        }
        let Some((gen, port)) = self.ctxs[c].port else {
            // (Unconnected after a failed start, it connects at its next request: the
            // request, kept, is declared with the rest.)
            let ctx = &self.ctxs[c];
            if ctx.alive && !ctx.frozen && !ctx.settling {
                self.reconnect(c);
            }
            return;
        };
        self.send(gen, port, message);
    }

    /// A message on its way to worker `gen`'s port, behind what went before on it.
    pub(super) fn send(&mut self, gen: usize, port: PortId, message: ClientMessage) {
        let delay = self.rng.range(0, 8);
        let key = (true, gen, port);
        let t = (self.now + delay).max(*self.fifo.get(&key).unwrap_or(&0));
        self.fifo.insert(key, t);
        self.at(t, Event::ToWorker(gen, port, message));
    }

    /// A request's `at`: when it was made (never 0, not said).
    fn made_at(&self) -> u64 {
        self.now + 1
    }

    /// The worker died or never answered: a new port, and everything re-declared.
    pub(super) fn reconnect(&mut self, c: usize) {
        let unwelcomed = std::mem::take(&mut self.ctxs[c].unwelcomed);
        self.attach(c);
        let ids: Vec<u32> = self.ctxs[c].reqs.keys().copied().collect();
        for id in ids {
            let r = self.ctxs[c].reqs[&id].clone();
            let message = match r.state {
                State::Pending => ClientMessage::Request {
                    id,
                    names: r.names,
                    mode: r.mode,
                    if_available: r.if_available,
                    steal: r.steal,
                    at: r.at,
                },
                State::Held => {
                    if r.revoked {
                        self.stale_reclaims.push((c, r.names.clone()));
                    }
                    ClientMessage::Reclaim {
                        id,
                        names: r.names,
                        mode: r.mode,
                    }
                }
                State::Query => ClientMessage::Query { id, at: r.at },
            };
            self.post(c, message);
        }
        if self.ctxs[c].db_open {
            let db = Some(self.ctxs[c].db.clone());
            self.post(c, ClientMessage::Watch { db });
        }
        // Then the releases and aborts posted since the last welcome: an earlier link may have
        // taken the lock or made the request at a worker that still serves (its grant sent
        // there, lost), and an unwelcomed one lost them (closed unanswered, or redirected).
        for message in unwelcomed {
            self.post(c, message);
        }
    }

    /// Taken for dead by a live worker: what it held is lost (its `request()` rejects: the
    /// worker released it, and another context may have held it since), and a new database,
    /// a new port, its requests and queries re-declared.
    pub(super) fn evicted(&mut self, c: usize) {
        self.ctxs[c].reqs.retain(|_, r| r.state != State::Held);
        self.forget_db(c);
        self.open_db(c);
        self.reconnect(c);
    }

    /// Closes the context's database, and names the next one (js/client/connection.js
    /// `forgetDatabase`: an open still under way then closes the database as it succeeds).
    fn forget_db(&mut self, c: usize) {
        let old = self.ctxs[c].db.clone();
        self.close_db(&old);
        let ctx = &mut self.ctxs[c];
        ctx.generation += 1;
        ctx.db = text(&format!("web-locks-client-{c}-{}", ctx.generation));
        ctx.db_open = false;
    }

    /// indexedDB.open(db, 1), called before a hello that names it; the storage backend
    /// usually processes it at once, sometimes later (a cold disk), rarely much later.
    fn open_db(&mut self, c: usize) {
        let slow = match self.rng.below(100) {
            0 => 2000,
            1..=20 => 400,
            _ => 12,
        };
        let db = self.ctxs[c].db.clone();
        self.after(0, slow, Event::IdbOpen(c, db));
    }

    pub(super) fn is_page(&self, c: usize) -> bool {
        self.ctxs[c].parent.is_none() && !self.ctxs[c].courier
    }

    /// A page's live dedicated workers.
    fn children(&self, c: usize) -> Vec<usize> {
        (0..self.ctxs.len())
            .filter(|&k| self.ctxs[k].alive && self.ctxs[k].parent == Some(c))
            .collect()
    }

    /// A page and its live dedicated workers: what the back/forward cache freezes.
    pub(super) fn frozen_with(&self, c: usize) -> Vec<usize> {
        let mut family = self.children(c);
        family.push(c);
        family
    }

    /// A page's goodbye, naming its dedicated workers.
    fn goodbye(&mut self, c: usize) {
        let children = self.children(c);
        let names = children.iter().map(|&k| self.ctxs[k].client_id.clone());
        let children = Some(names.collect());
        self.post(c, ClientMessage::Goodbye { children });
    }

    pub(super) fn die(&mut self, c: usize, goodbye: bool) {
        if !self.ctxs[c].alive {
            return;
        }
        if goodbye {
            self.goodbye(c);
        }
        // A page's dedicated workers end with it (no goodbye of their own).
        for child in self.children(c) {
            self.die(child, false);
        }
        let ctx = &mut self.ctxs[c];
        ctx.alive = false;
        ctx.port = None;
        ctx.unanswered = None;
        ctx.died_at = Some(self.now);
        let db = ctx.db.clone();
        let check = self.now.max(ctx.late_until) + DEATH_BOUND;
        self.close_db(&db);
        self.at(check, Event::DeathCheck(c));
        // The tab that hosts a worker may take the worker with it; a tab host (a dedicated
        // worker of the page) always goes.
        for gen in 0..self.workers.len() {
            let worker = &self.workers[gen];
            if worker.host == c && worker.alive && (worker.tab || self.rng.chance(50)) {
                self.crash_worker(gen);
            }
        }
    }

    /// The page enters the back/forward cache, hidden first: it says goodbye and freezes
    /// (`leave`), and its tab host, if it has one, is ended at `pagehide` (js/client/tab-host.js).
    fn freeze(&mut self, c: usize) {
        self.set_hidden(c, true);
        let thaw = self.now + self.rng.range(DEATH_BOUND + 100, 2500);
        self.leave(c, thaw);
        if let Some(host) = self.ctxs[c].host {
            self.end_host(host);
        }
    }

    /// A hidden page without SharedWorker is suspended, its workers with it, until it
    /// resumes. Chromium-like, at `freeze` it ends its tab host, and if a worker of it said
    /// it serves (js/client/tab-host.js `hosting`) it says goodbye and freezes as into the
    /// back/forward cache (`leave`: js/client/install.js), its contexts connecting again when it
    /// resumes. Otherwise (Safari-like: no `freeze` event, the tab host freezes with it a
    /// moment later, its lifeline open; or Chromium-like, its worker not serving) its
    /// contexts freeze as they are: connected, their locks and requests kept.
    fn suspend(&mut self, c: usize) {
        self.set_hidden(c, true);
        let resume = self.now + self.rng.range(DEATH_BOUND + 100, 2500);
        let host = self.ctxs[c].host;
        if self.freeze_ends_host {
            let hosting = self.ctxs[c].hosting.is_some();
            if hosting {
                self.leave(c, resume);
            }
            if let Some(gen) = host {
                self.end_host_at_freeze(gen, resume);
            }
            if hosting {
                return;
            }
        } else if let Some(gen) = host {
            self.after(0, 50, Event::FreezeHost(gen, resume));
        }
        for k in self.frozen_with(c) {
            let ctx = &mut self.ctxs[k];
            ctx.frozen = true;
            ctx.busy_until = ctx.busy_until.max(resume);
        }
        if self.rng.chance(10) {
            self.after(1, resume - self.now - 1, Event::Discard(c));
        }
        self.at(resume, Event::Thaw(c, false));
    }

    /// The page says goodbye, naming its dedicated workers, and freezes until `thaw`
    /// (Connection.close(true)): what it held or waited for is lost, its database closed.
    /// It and its workers (their databases open, their beliefs kept) run nothing until it
    /// thaws, or until it is discarded.
    ///
    /// Its goodbye finds a dedicated worker only if the worker it reaches has heard the
    /// dedicated worker's hello first (it could be on its way, or have reached another worker
    /// after a restart), and only if that worker still hears the page: it may have closed the
    /// page's port, goodbye unread, having seen the page's database close first, or having
    /// taken the page for dead before it froze (its database too slow to open). Only then are
    /// they checked; otherwise they keep their locks until the page thaws (the glue cannot
    /// order a hello on another port, or IndexedDB's news, behind its goodbye).
    fn leave(&mut self, c: usize, thaw: Time) {
        let page = self.ctxs[c].port.map(|(gen, _)| gen);
        let mut checked: Vec<usize> = self
            .children(c)
            .into_iter()
            .filter(|&k| {
                let child = &self.ctxs[k];
                child.port.is_some_and(|(gen, _)| Some(gen) == page) && child.greeted == child.port
            })
            .collect();
        checked.push(c);
        self.ctxs[c].goodbye_heard = false;
        self.goodbye(c);
        self.forget_db(c);
        let ctx = &mut self.ctxs[c];
        ctx.reqs.clear();
        ctx.port = None;
        ctx.unanswered = None;
        // (A page's ports are never late: see `open_port`.)
        let check = self.now + DEATH_BOUND;
        for k in self.frozen_with(c) {
            let ctx = &mut self.ctxs[k];
            ctx.frozen = true;
            ctx.busy_until = ctx.busy_until.max(thaw);
        }
        let thaws = self.ctxs[c].thaws;
        self.at(check, Event::FrozenCheck(c, checked, thaws));
        if self.rng.chance(10) {
            self.after(1, thaw - self.now - 1, Event::Discard(c));
        }
        self.at(thaw, Event::Thaw(c, true));
    }

    /// The page is restored (`left`: from the back/forward cache, or after its goodbye at
    /// `freeze`), visible, and its dedicated workers with it.
    pub(super) fn thaw(&mut self, c: usize, left: bool) {
        self.ctxs[c].thaws += 1;
        for k in self.frozen_with(c) {
            let ctx = &mut self.ctxs[k];
            ctx.frozen = false;
            // Its worker died meanwhile: a new one waited for it only so long, and may have
            // given its locks away (as to a survivor busy longer than that); it learns so
            // when it re-declares them.
            if left && ctx.port.is_some_and(|(gen, _)| !self.workers[gen].alive) {
                for r in ctx.reqs.values_mut() {
                    r.revoked = true;
                }
            }
        }
        self.set_hidden(c, false);
        // pageshow, or resume: a client again, with a new database and port.
        if left {
            self.open_db(c);
            self.reconnect(c);
        }
    }

    /// A page without SharedWorker becomes hidden or visible, and tells its tab host.
    fn set_hidden(&mut self, c: usize, hidden: bool) {
        let ctx = &mut self.ctxs[c];
        if ctx.shared || ctx.hidden == hidden {
            return;
        }
        ctx.hidden = hidden;
        if let Some(host) = ctx.host {
            self.tell_hidden(host, hidden);
        }
    }

    /// Now and then, while contexts are active and a while after, a page without
    /// SharedWorker goes to the background or comes back.
    pub(super) fn visibility(&mut self, c: usize) {
        if !self.ctxs[c].alive {
            return;
        }
        if self.now < 2 * ACTIVE_PHASE {
            self.after(50, 1500, Event::Visibility(c));
        }
        let hidden = self.rng.chance(50);
        self.set_hidden(c, hidden);
    }

    /// A context's connection to `db` closes: every watch blocked on it ends (the first
    /// watcher deletes the database). Unwatched, it stays, closed, until a watch finds it so.
    pub(super) fn close_db(&mut self, db: &Text) {
        if let Some(state) = self.dbs.get_mut(db) {
            state.open_by = None;
            let watchers = std::mem::take(&mut state.watchers);
            if watchers.is_empty() {
                return;
            }
            for gen in watchers {
                let end = WatchEnd::Died;
                self.after(5, 300, Event::WorkerWatchEnd(gen, db.clone(), end));
            }
            self.dbs.remove(db);
        }
    }

    pub(super) fn act(&mut self, c: usize) {
        if !self.ctxs[c].alive {
            return;
        }
        let active = self.now < ACTIVE_PHASE;
        if active {
            self.after(5, 150, Event::Act(c));
        }
        let roll = self.rng.below(100);
        let held: Vec<u32> = self.held_ids(c);
        match roll {
            _ if !active => {
                for id in held {
                    self.release(c, id);
                }
            }
            0..=34 => {
                // One name, or (one time in four) a scope of two.
                let first = self.rng.below(NAMES.len() as u64) as usize;
                let mut names = vec![NAMES[first].to_vec()];
                if self.rng.chance(25) {
                    let second =
                        (first + 1 + self.rng.below(NAMES.len() as u64 - 1) as usize) % NAMES.len();
                    names.push(NAMES[second].to_vec());
                    names.sort();
                }
                let flavor = self.rng.below(10);
                let steal = flavor == 0;
                let if_available = (1..=2).contains(&flavor);
                let mode = if !steal && self.rng.chance(40) {
                    Mode::Shared
                } else {
                    Mode::Exclusive
                };
                let at = self.made_at();
                let ctx = &mut self.ctxs[c];
                ctx.next_id += 1;
                let id = ctx.next_id;
                let req = Req {
                    names: names.clone(),
                    mode,
                    if_available,
                    steal,
                    state: State::Pending,
                    revoked: false,
                    at,
                };
                ctx.reqs.insert(id, req);
                let request = ClientMessage::Request {
                    id,
                    names,
                    mode,
                    if_available,
                    steal,
                    at,
                };
                self.post(c, request);
            }
            35..=59 if !held.is_empty() => {
                let id = held[self.rng.below(held.len() as u64) as usize];
                self.release(c, id);
            }
            60..=69 => {
                let pending: Vec<u32> = self.ctxs[c]
                    .reqs
                    .iter()
                    .filter(|(_, r)| r.state == State::Pending && !r.steal && !r.if_available)
                    .map(|(id, _)| *id)
                    .collect();
                // The glue forgets an aborted request at once (a late grant finds no handler).
                if let Some(&id) = pending.first() {
                    self.ctxs[c].reqs.remove(&id);
                    self.post(c, ClientMessage::Abort { id });
                }
            }
            70..=77 => {
                let at = self.made_at();
                let ctx = &mut self.ctxs[c];
                ctx.next_id += 1;
                let id = ctx.next_id;
                let req = Req {
                    names: Vec::new(),
                    mode: Mode::Shared,
                    if_available: false,
                    steal: false,
                    state: State::Query,
                    revoked: false,
                    at,
                };
                ctx.reqs.insert(id, req);
                self.post(c, ClientMessage::Query { id, at });
            }
            78..=85 => {
                let long = self.rng.range(50, LONG_TASK_MAX);
                self.ctxs[c].busy_until = self.now + long;
            }
            86..=88 => self.die(c, false),
            89..=90 => self.die(c, true),
            91..=93 if self.ctxs.len() < 7 => {
                let child = self.is_page(c) && self.rng.chance(50);
                self.spawn_ctx(child.then_some(c));
            }
            94..=95 => {
                // A SharedWorker, or a page's tab host.
                let mut running: Vec<usize> = self.registry.values().copied().collect();
                running.extend(self.ctxs.iter().filter(|c| c.alive).filter_map(|c| c.host));
                if !running.is_empty() {
                    let gen = running[self.rng.below(running.len() as u64) as usize];
                    if self.workers[gen].alive {
                        self.fault(gen);
                    }
                }
            }
            96..=97 if self.is_page(c) => {
                if !self.ctxs[c].shared && self.rng.chance(50) {
                    self.suspend(c);
                } else {
                    self.freeze(c);
                }
            }
            _ => {}
        }
    }

    fn held_ids(&self, c: usize) -> Vec<u32> {
        self.ctxs[c]
            .reqs
            .iter()
            .filter(|(_, r)| r.state == State::Held)
            .map(|(id, _)| *id)
            .collect()
    }

    fn release(&mut self, c: usize, id: u32) {
        self.ctxs[c].reqs.remove(&id);
        self.post(c, ClientMessage::Release { id });
    }

    pub(super) fn ctx_receive(&mut self, c: usize, via: (usize, PortId), message: WorkerMessage) {
        if self.ctxs[c].port != Some(via) {
            return; // a closed port
        }
        let active = self.now < ACTIVE_PHASE;
        match message {
            WorkerMessage::Welcome { .. } => {
                let gen = via.0;
                let ctx = &mut self.ctxs[c];
                ctx.welcomed = true;
                ctx.unwelcomed.clear();
                ctx.watching = ctx.hosting != Some(gen);
                ctx.backoff = 1000;
                let gone = !self.workers[gen].alive || self.workers[gen].lifeline_closed;
                if ctx.watching && gone {
                    self.after(5, 300, Event::WorkerDied(c, gen));
                }
            }
            WorkerMessage::Granted { id } => {
                let Some(r) = self.ctxs[c].reqs.get_mut(&id) else {
                    // A grant nothing waits for is given back.
                    self.post(c, ClientMessage::Release { id });
                    return;
                };
                // A second grant of a held request is ignored.
                if r.state == State::Pending {
                    r.state = State::Held;
                    self.answered += 1;
                    self.check_exclusion();
                    if !active {
                        self.release(c, id);
                    }
                }
            }
            WorkerMessage::Evicted => self.evicted(c),
            WorkerMessage::Redirect { url } => {
                // Only a context that constructs SharedWorkers constructs the one it is sent
                // to.
                let target = if *url == *text(BROADCAST) || !self.constructs(c) {
                    Target::Broadcast
                } else {
                    Target::Build(number(&url))
                };
                self.ctxs[c].target = Some(target);
                self.reconnect(c);
            }
            WorkerMessage::NotAvailable { id }
            | WorkerMessage::Stolen { id }
            | WorkerMessage::Snapshot { id, .. } => {
                if self.ctxs[c].reqs.remove(&id).is_some() {
                    self.answered += 1;
                }
            }
            WorkerMessage::Error { id, message } => {
                panic!("worker refused a well-formed message {id:?}: {message}")
            }
        }
    }
}
