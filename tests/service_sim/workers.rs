//! The lock workers: SharedWorkers, tab hosts (js/client/tab-host.js), and the glue around the
//! service (src/worker/, js/worker/worker-entry.js).

use super::*;
use web_locks::service::Output;

impl Sim {
    /// The SharedWorker `new SharedWorker()` of `build`'s URL reaches (constructed by `c`).
    pub(super) fn shared_worker(&mut self, c: usize, build: usize) -> usize {
        match self.registry.get(&build) {
            Some(&gen) => gen,
            None => self.start_worker(c, c, build, false),
        }
    }

    /// The page's tab host, started if it has none (for context `c`: it or one of its
    /// dedicated workers).
    pub(super) fn tab_host(&mut self, page: usize, c: usize) -> usize {
        match self.ctxs[page].host {
            Some(gen) => gen,
            None => {
                let build = self.ctxs[page].build;
                self.start_worker(c, page, build, true)
            }
        }
    }

    /// The worker that hears hellos on the serving workers' channel: the one the origin's
    /// record names, if it serves (only a serving worker listens there).
    pub(super) fn leader(&self) -> Option<usize> {
        self.record
            .filter(|&gen| self.workers[gen].alive && self.workers[gen].service.is_leading())
    }

    /// A link's hello reaches worker `gen`: serving, it bridges the link's channel to a port
    /// of its own, once (js/worker/worker-entry.js), hands the service the hello, and answers the
    /// link. (A link its context has closed meanwhile is bridged too: nothing more comes
    /// on it.)
    pub(super) fn bridge(&mut self, gen: usize, c: usize, link: u64, hello: ClientMessage) {
        let worker = &mut self.workers[gen];
        if !worker.alive || !worker.service.is_leading() || !self.bridged.insert((gen, link)) {
            return;
        }
        worker.next_port += 1;
        let port = PortId(worker.next_port);
        worker.service.handle_connect(port);
        self.port_owner.insert((gen, port), c);
        self.send(gen, port, hello);
        // (Its first message on the link's channel, before any reply.)
        let key = (false, gen, port);
        let t = (self.now + self.rng.range(0, 8)).max(*self.fifo.get(&key).unwrap_or(&0));
        self.fifo.insert(key, t);
        self.at(t, Event::Answered(c, link, (gen, port)));
    }

    /// A new lock worker at `build`'s URL, constructed for context `c`: a SharedWorker, or
    /// (`tab`) a dedicated worker of page `host`. One that starts, or (its files deleted)
    /// one that fails to, which the context notices after a while.
    fn start_worker(&mut self, c: usize, host: usize, build: usize, tab: bool) -> usize {
        let gen = self.workers.len();
        let fails = self.gone.contains(&build);
        self.workers.push(Worker::new(gen, host, build, tab));
        if fails {
            self.workers[gen].alive = false;
            self.after(1, 30, Event::StartFailed(c, gen));
            return gen;
        }
        if tab {
            // It learns whether its page is hidden at once (js/client/tab-host.js `tell`).
            let page = &mut self.ctxs[host];
            page.host = Some(gen);
            page.hosting = None;
            if page.hidden {
                self.tell_hidden(gen, true);
            }
        } else {
            self.registry.insert(build, gen);
        }
        // The loader opens the lifeline before it claims (with the bug, some time after).
        self.workers[gen].lifeline_at = match self.bug {
            Bug::LateLifeline => self.now + self.rng.range(0, 100),
            _ => self.now,
        };
        // Its first claim: unless another worker is recorded.
        self.after(1, 15, Event::Claim(gen, None));
        // The worker's own database usually opens at once; now and then it takes longer
        // than the contexts' welcome bound, so they replace their ports on a live worker.
        let lifeline = if self.rng.chance(10) { 2500 } else { 20 };
        self.after(1, lifeline, Event::Lifeline(gen));
        gen
    }

    /// The page tells its tab host it became hidden or visible (in order, on the worker's
    /// own channel).
    pub(super) fn tell_hidden(&mut self, gen: usize, hidden: bool) {
        let key = (true, gen, PortId(0));
        let t = (self.now + self.rng.range(0, 8)).max(*self.fifo.get(&key).unwrap_or(&0));
        self.fifo.insert(key, t);
        self.at(t, Event::Hidden(gen, hidden));
    }

    /// A worker faults and ends itself: a tab host's page hears it end (an error event).
    pub(super) fn fault(&mut self, gen: usize) {
        self.crash_worker(gen);
        if self.workers[gen].tab {
            self.tell_page(gen, Event::HostEnded(self.workers[gen].host, gen));
        }
    }

    /// The worker ends (a crash, its tab's end, or its glue's after it resigned), losing
    /// what was in flight; its lifeline closes.
    pub(super) fn crash_worker(&mut self, gen: usize) {
        self.workers[gen].alive = false;
        for db in self.dbs.values_mut() {
            db.watchers.retain(|&g| g != gen);
        }
        self.close_lifeline(gen);
        if self.workers[gen].tab {
            return;
        }
        // For a while, new ports may still reach the dead worker and go unanswered.
        if self.rng.chance(50) {
            self.after(0, 200, Event::Forget(gen));
        } else {
            self.forget(gen);
        }
    }

    /// The page ends its tab host (js/client/tab-host.js `endHost`): it forgets it at once, but not
    /// that it served (`hosting`).
    pub(super) fn end_host(&mut self, gen: usize) {
        self.crash_worker(gen);
        self.forget_host(gen);
    }

    /// A tab host's message to its page (in order, on the worker's own channel).
    fn tell_page(&mut self, gen: usize, event: Event) {
        let key = (false, gen, PortId(0));
        let t = (self.now + self.rng.range(0, 8)).max(*self.fifo.get(&key).unwrap_or(&0));
        self.fifo.insert(key, t);
        self.at(t, event);
    }

    /// A tab host that now serves tells its page so, once.
    pub(super) fn tell_serving(&mut self, gen: usize) {
        let worker = &mut self.workers[gen];
        if worker.tab && !worker.led && worker.service.is_leading() {
            worker.led = true;
            let page = worker.host;
            self.tell_page(gen, Event::HostServes(page, gen));
        }
    }

    /// Its page no longer knows a tab host (the page ended it).
    fn forget_host(&mut self, gen: usize) {
        let page = self.workers[gen].host;
        if self.ctxs[page].host == Some(gen) {
            self.ctxs[page].host = None;
        }
    }

    /// The worker's lifeline database closes: contexts that watch it (welcomed by it) and
    /// workers following it notice (late, at most 300 ms).
    fn close_lifeline(&mut self, gen: usize) {
        if std::mem::replace(&mut self.workers[gen].lifeline_closed, true) {
            return;
        }
        for c in 0..self.ctxs.len() {
            let ctx = &self.ctxs[c];
            if ctx.alive && ctx.watching && ctx.port.is_some_and(|(g, _)| g == gen) {
                self.after(5, 300, Event::WorkerDied(c, gen));
            }
        }
        for watcher in self.lifeline_watchers.remove(&gen).unwrap_or_default() {
            let end = WatchEnd::Died;
            self.after(5, 300, Event::WorkerWatchEnd(watcher, lifeline(gen), end));
        }
    }

    /// A Chromium-like page ends its tab host at `freeze` (with the bug, it closes the
    /// worker's lifeline and forgets it, but the worker freezes with the page until
    /// `resume`).
    pub(super) fn end_host_at_freeze(&mut self, gen: usize, resume: Time) {
        if self.bug == Bug::FrozenHostThaws {
            self.close_lifeline(gen);
            self.forget_host(gen);
            self.workers[gen].frozen_until = resume;
        } else {
            self.end_host(gen);
        }
    }

    /// A new leader's wait for survivors ends at its limit: the locks of survivors that have
    /// not re-declared them yet (busy, or on their way through a redirect) are lost by
    /// design (`stolen` when they come: the leader may give them to others now).
    pub(super) fn late_survivors(&mut self, gen: usize) {
        if !self.workers[gen].alive {
            return;
        }
        let (held, _) = self.workers[gen].service.locks();
        for ctx in self.ctxs.iter_mut().filter(|c| c.alive) {
            for r in ctx
                .reqs
                .values_mut()
                .filter(|r| r.state == State::Held && !r.revoked)
            {
                let known = r.names.iter().all(|name| {
                    held.iter()
                        .any(|info| info.client_id == ctx.client_id && info.name == *name)
                });
                if !known {
                    r.revoked = true;
                    self.late += 1;
                }
            }
        }
    }

    pub(super) fn forget(&mut self, gen: usize) {
        let build = self.workers[gen].build;
        if self.registry.get(&build) == Some(&gen) {
            self.registry.remove(&build);
        }
    }

    /// The origin's live workers (frozen ones included).
    pub(super) fn live_workers(&self) -> impl Iterator<Item = &Worker> {
        self.workers.iter().filter(|w| w.alive)
    }

    /// Another worker's signal reaches `gen`. (With the bug, its loader resigns for it: a
    /// hidden tab's leader hearing `Visible` has its lifeline closed and tells its page it
    /// ended, but its service is never told.)
    pub(super) fn signal(&mut self, gen: usize, signal: Signal) {
        let worker = &self.workers[gen];
        // (The loader listens once its first claim is answered.)
        if !worker.served {
            return;
        }
        if self.bug == Bug::ResignedHostServes
            && signal == Signal::Visible
            && worker.tab
            && worker.hidden
            && worker.service.is_leading()
        {
            self.close_lifeline(gen);
            self.tell_page(gen, Event::HostEnded(self.workers[gen].host, gen));
            return;
        }
        self.workers[gen].service.handle_signal(signal);
        self.drain(gen);
    }

    pub(super) fn drain(&mut self, gen: usize) {
        while let Some(output) = self.workers[gen].service.poll_output() {
            assert!(
                !self.workers[gen].resigned,
                "worker {gen} output {output:?} after it resigned, at {}",
                self.now
            );
            match output {
                Output::Send(port, message) => {
                    match message {
                        WorkerMessage::Stolen { id } => self.check_lost_reclaim(gen, port, id),
                        WorkerMessage::Redirect { .. } => {
                            self.redirected.insert((gen, port));
                        }
                        _ => {}
                    }
                    // A steal, a lost reclaim or an eviction releases locks at once, though their
                    // holders learn it later.
                    if let Some(&c) = self.port_owner.get(&(gen, port)) {
                        for (id, r) in self.ctxs[c].reqs.iter_mut() {
                            match message {
                                WorkerMessage::Stolen { id: stolen } if stolen == *id => {
                                    r.revoked = true
                                }
                                WorkerMessage::Evicted => r.revoked = true,
                                _ => {}
                            }
                        }
                    }
                    if let Some(&c) = self.port_owner.get(&(gen, port)) {
                        let key = (false, gen, port);
                        let t = (self.now + self.rng.range(0, 8))
                            .max(*self.fifo.get(&key).unwrap_or(&0));
                        self.fifo.insert(key, t);
                        self.at(t, Event::ToCtx(c, (gen, port), message));
                    }
                }
                Output::Close(port) => {
                    self.closed.insert((gen, port));
                }
                Output::Watch(db) => self.after(0, 10, Event::IdbWatch(gen, db)),
                Output::SetTimer(timer, ms) => {
                    let token = self.token();
                    self.workers[gen].timers.insert(timer, token);
                    self.at(
                        self.now + u64::from(ms),
                        Event::WorkerTimer(gen, timer, token),
                    );
                }
                Output::CancelTimer(timer) => {
                    self.workers[gen].timers.remove(&timer);
                }
                Output::Claim(over) => self.after(1, 15, Event::Claim(gen, Some(number(&over)))),
                // A broadcast on the lock workers' channel: every other live worker hears it.
                Output::Tabs(signal) => {
                    for other in 0..self.workers.len() {
                        if other != gen && self.workers[other].alive {
                            self.after(1, 30, Event::Signal(other, signal));
                        }
                    }
                }
                // It tells its page (it posts 0: js/client/tab-host.js), and its loader ends it.
                Output::Resign => {
                    self.workers[gen].resigned = true;
                    if self.workers[gen].tab {
                        self.tell_page(gen, Event::HostEnded(self.workers[gen].host, gen));
                    }
                    self.after(0, 20, Event::EndWorker(gen));
                }
            }
        }
    }
}

impl Worker {
    fn new(gen: usize, host: usize, build: usize, tab: bool) -> Worker {
        Worker {
            service: Service::new(&epoch(gen)),
            alive: true,
            survey: None,
            timers: HashMap::new(),
            next_port: 0,
            host,
            build,
            tab,
            lifeline_at: Time::MAX,
            lifeline_closed: false,
            frozen_until: 0,
            hidden: false,
            served: false,
            led: false,
            resigned: false,
        }
    }
}
