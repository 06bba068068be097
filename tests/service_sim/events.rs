//! The event loop.

use super::*;
use web_locks::service::Leader;

impl Sim {
    fn step(&mut self, event: Event) {
        match event {
            Event::ToWorker(gen, port, message) => {
                if self.workers[gen].alive {
                    let c = self.port_owner[&(gen, port)];
                    if let ClientMessage::Hello { .. } = message {
                        self.ctxs[c].greeted = Some((gen, port));
                    }
                    // A goodbye is heard by a serving worker that has not closed the port, and
                    // does not send it elsewhere (a port that connected while it followed).
                    // (One that waits for a claim's answer counts as not heard.)
                    let goodbye = matches!(message, ClientMessage::Goodbye { .. })
                        && self.workers[gen].service.is_leading()
                        && !self.closed.contains(&(gen, port));
                    // (What this message makes the worker say comes out in drain().)
                    if let ClientMessage::Reclaim { id, .. } = message {
                        self.reclaiming = Some((c, id));
                    }
                    self.workers[gen].service.handle_message(port, message);
                    self.drain(gen);
                    self.reclaiming = None;
                    self.ctxs[c].goodbye_heard |=
                        goodbye && !self.redirected.contains(&(gen, port));
                }
            }
            Event::Connect(gen, port) => {
                if self.workers[gen].alive {
                    self.workers[gen].service.handle_connect(port);
                    self.drain(gen);
                }
            }
            Event::WorkerTimer(gen, timer, token) => {
                if timer == Timer::Recovery && self.workers[gen].timers.get(&timer) == Some(&token)
                {
                    self.late_survivors(gen);
                }
                let worker = &mut self.workers[gen];
                if worker.alive && worker.timers.get(&timer) == Some(&token) {
                    worker.timers.remove(&timer);
                    worker.service.handle_timer(timer);
                    self.drain(gen);
                }
            }
            Event::WorkerWatchEnd(gen, db, end) => {
                if self.workers[gen].alive {
                    self.workers[gen].service.handle_watch_end(&db, end);
                    self.drain(gen);
                }
            }
            Event::Lifeline(gen) => {
                if self.workers[gen].alive {
                    self.workers[gen]
                        .service
                        .handle_lifeline(Some(&lifeline(gen)));
                    self.drain(gen);
                }
            }
            Event::IdbOpen(c, db) => {
                if self.ctxs[c].alive && self.ctxs[c].db == db {
                    self.dbs.insert(
                        db.clone(),
                        Db {
                            open_by: Some(c),
                            watchers: Vec::new(),
                        },
                    );
                    self.after(0, 5, Event::DbOpened(c, db));
                }
            }
            Event::IdbWatch(gen, db) => {
                if !self.workers[gen].alive {
                    return;
                }
                if String::from_utf16_lossy(&db).starts_with("web-locks-worker-") {
                    let leader = number(&db);
                    let worker = &self.workers[leader];
                    let opened = worker.lifeline_at <= self.now;
                    if worker.alive && opened && !worker.lifeline_closed {
                        self.lifeline_watchers.entry(leader).or_default().push(gen);
                    } else {
                        let end = if opened {
                            WatchEnd::Died
                        } else {
                            WatchEnd::Absent
                        };
                        self.after(0, 5, Event::WorkerWatchEnd(gen, db, end));
                    }
                    return;
                }
                match self.dbs.get_mut(&db) {
                    None => self.after(0, 5, Event::WorkerWatchEnd(gen, db, WatchEnd::Absent)),
                    Some(state) if state.open_by.is_some() => state.watchers.push(gen),
                    Some(_) => {
                        self.dbs.remove(&db);
                        self.after(0, 5, Event::WorkerWatchEnd(gen, db, WatchEnd::Died));
                    }
                }
            }
            // (A database the context has replaced since is not its database any more.)
            Event::DbOpened(c, db) => {
                if self.ctxs[c].alive && self.ctxs[c].db == db {
                    self.ctxs[c].db_open = true;
                    let db = Some(self.ctxs[c].db.clone());
                    self.post(c, ClientMessage::Watch { db });
                }
            }
            // (A dead worker: back to the context's own build's URL, or its tab's worker.)
            Event::WorkerDied(c, gen) => {
                if self.ctxs[c].alive && self.ctxs[c].port.is_some_and(|(g, _)| g == gen) {
                    self.ctxs[c].target = None;
                    self.reconnect(c);
                }
            }
            // (A link over BroadcastChannel too: a new one, whose hello may find a worker. Where
            // it was sent there, it goes its own route again: the worker it was sent to may be
            // gone, and none left to answer.)
            Event::Watchdog(c, link) => {
                let ctx = &self.ctxs[c];
                if ctx.alive && ctx.link == link && !ctx.welcomed && self.connected(c) {
                    let ctx = &mut self.ctxs[c];
                    ctx.backoff = (ctx.backoff * 2).min(8000);
                    if ctx.broadcast {
                        ctx.target = None;
                    }
                    self.reconnect(c);
                }
            }
            Event::Claim(gen, over) => {
                // (A crashed worker's transaction may still commit.)
                if !self.workers[gen].alive && self.rng.chance(50) {
                    return;
                }
                let won = match (self.record, over) {
                    _ if self.bug == Bug::ClaimByPut => true,
                    (None, _) => true,
                    (Some(leader), over) => over == Some(leader),
                };
                if won {
                    self.record = Some(gen);
                }
                let leader = self.record.expect("recorded");
                let mut dbs: Vec<Text> = self.dbs.keys().cloned().collect();
                dbs.sort();
                self.after(0, 5, Event::Claimed(gen, leader, dbs));
            }
            Event::Claimed(gen, leader, dbs) => {
                if self.workers[gen].alive {
                    // (A tab host records the URL that reaches it over BroadcastChannel.)
                    let url = if self.workers[leader].tab {
                        text(BROADCAST)
                    } else {
                        url(self.workers[leader].build)
                    };
                    let recorded = Leader {
                        epoch: epoch(leader),
                        url,
                        lifeline: lifeline(leader),
                    };
                    if leader == gen {
                        self.workers[gen].survey = Some((self.now, dbs.iter().cloned().collect()));
                    }
                    let worker = &mut self.workers[gen];
                    worker.service.handle_claimed(recorded, dbs);
                    if !std::mem::replace(&mut worker.served, true) && worker.hidden {
                        worker.service.handle_hidden(true);
                    }
                    self.tell_serving(gen);
                    self.drain(gen);
                }
            }
            Event::StartFailed(c, gen) => {
                let ctx = &self.ctxs[c];
                if !ctx.alive || ctx.port.is_none_or(|(g, _)| g != gen) {
                    return;
                }
                // A redirect's URL failed: back to its own, nothing rejected. Its own failed
                // (deployed away): to the leader the origin's record names, if that is
                // another build's or a tab's (over BroadcastChannel where there is no
                // SharedWorker); else what waits rejects (held locks stay, declared again at
                // the next port).
                let recorded = self.record.map(|leader| match &self.workers[leader] {
                    w if w.tab || !ctx.shared => Target::Broadcast,
                    w => Target::Build(w.build),
                });
                let ctx = &mut self.ctxs[c];
                ctx.port = None;
                ctx.settling = true;
                if ctx.target.take().is_none() {
                    if recorded.is_some_and(|target| target != Target::Build(ctx.build)) {
                        ctx.target = recorded;
                    } else {
                        let before = ctx.reqs.len();
                        ctx.reqs.retain(|_, r| r.state == State::Held);
                        self.answered += (before - ctx.reqs.len()) as u64;
                    }
                }
                self.after(SETTLE_MS, SETTLE_MS, Event::Settled(c));
            }
            Event::Settled(c) => {
                let ctx = &mut self.ctxs[c];
                ctx.settling = false;
                // (With a leader to go to, it goes whatever it has: what it released
                // meanwhile is still held there, until its next port's re-declaration.)
                let due = ctx.target.is_some() || !ctx.reqs.is_empty();
                if ctx.alive && !ctx.frozen && !self.connected(c) && due {
                    self.reconnect(c);
                }
            }
            Event::Deploy(build) => {
                self.gone.insert(build);
            }
            Event::ToCtx(c, via, message) => {
                if self.ctxs[c].alive {
                    self.ctx_receive(c, via, message);
                }
            }
            Event::Act(c) => self.act(c),
            Event::DeathCheck(c) => {
                if let Some(again) = self.check_released(c, "died") {
                    self.at(again, Event::DeathCheck(c));
                }
            }
            Event::Forget(gen) => self.forget(gen),
            Event::Thaw(c, left) => {
                if self.ctxs[c].alive {
                    self.thaw(c, left);
                }
            }
            Event::Discard(c) => {
                if self.ctxs[c].alive && self.ctxs[c].frozen {
                    self.die(c, false);
                }
            }
            Event::FrozenCheck(c, mut checked, thaws) => {
                if self.ctxs[c].frozen && self.ctxs[c].thaws == thaws {
                    if !self.ctxs[c].goodbye_heard {
                        checked.retain(|&k| k == c);
                    }
                    for k in checked {
                        if let Some(again) = self.check_released(k, "froze") {
                            self.at(again, Event::FrozenCheck(c, vec![k], thaws));
                        }
                    }
                }
            }
            Event::Visibility(c) => self.visibility(c),
            // (Before its first claim's answer, the loader keeps it for then.)
            Event::Hidden(gen, hidden) => {
                let worker = &mut self.workers[gen];
                if worker.alive {
                    worker.hidden = hidden;
                    if worker.served {
                        worker.service.handle_hidden(hidden);
                        self.drain(gen);
                    }
                }
            }
            Event::Signal(gen, signal) => {
                if self.workers[gen].alive {
                    self.signal(gen, signal);
                }
            }
            Event::FreezeHost(gen, thaw) => {
                if self.workers[gen].alive {
                    self.workers[gen].frozen_until = thaw;
                }
            }
            Event::EndWorker(gen) => {
                if self.workers[gen].alive {
                    self.crash_worker(gen);
                }
            }
            Event::Resend(c, link) => {
                if self.ctxs[c].alive {
                    self.resend(c, link);
                }
            }
            Event::Bridge(gen, c, link, hello) => self.bridge(gen, c, link, hello),
            Event::Answered(c, link, port) => {
                if self.ctxs[c].alive {
                    self.answered(c, link, port);
                }
            }
            Event::HostServes(page, gen) => {
                if self.ctxs[page].alive {
                    self.host_serves(page, gen);
                }
            }
            Event::HostEnded(page, gen) => {
                if self.ctxs[page].alive {
                    self.host_ended(page, gen);
                }
            }
        }
    }

    /// A frozen worker's event put off until it thaws, in its original order among those
    /// then due (what it was sent keeps its order: a port's connection before its hello).
    /// (A context's waits behind everything then due, its page's thaw first: `BEHIND`.)
    fn defer(&mut self, time: Time, seq: u64, key: usize, event: Event) {
        self.events.insert(key, event);
        self.queue.push(Reverse((time, seq, key)));
    }

    /// Runs events up to `until`; a context's events wait for the end of its long task, a
    /// frozen worker's until it thaws.
    pub(super) fn run(&mut self, until: Time) {
        while let Some(&Reverse((t, seq, key))) = self.queue.peek() {
            if t > until {
                break;
            }
            self.queue.pop();
            self.now = self.now.max(t);
            let event = self.events.remove(&key).expect("scheduled");
            let ctx = match &event {
                Event::ToCtx(c, ..)
                | Event::DbOpened(c, _)
                | Event::WorkerDied(c, _)
                | Event::Watchdog(c, _)
                | Event::StartFailed(c, _)
                | Event::Settled(c)
                | Event::Visibility(c)
                | Event::Resend(c, _)
                | Event::Answered(c, ..)
                | Event::HostServes(c, _)
                | Event::HostEnded(c, _)
                | Event::Act(c) => Some(*c),
                _ => None,
            };
            if let Some(c) = ctx {
                let busy = self.ctxs[c].busy_until;
                if busy > self.now && self.ctxs[c].alive {
                    self.defer(busy, seq | BEHIND, key, event);
                    continue;
                }
            }
            let worker = match &event {
                Event::ToWorker(gen, ..)
                | Event::Connect(gen, _)
                | Event::WorkerTimer(gen, ..)
                | Event::WorkerWatchEnd(gen, ..)
                | Event::Lifeline(gen)
                | Event::Claimed(gen, ..)
                | Event::Hidden(gen, _)
                | Event::Bridge(gen, ..)
                | Event::Signal(gen, _) => Some(*gen),
                _ => None,
            };
            if let Some(gen) = worker {
                let until = self.workers[gen].frozen_until;
                if until > self.now && self.workers[gen].alive {
                    self.defer(until, seq, key, event);
                    continue;
                }
            }
            if self.trace {
                println!("{:>6} {}", self.now, readable(&format!("{event:?}")));
            }
            self.step(event);
            if self.trace {
                // Live workers: L leads, R recovers, F is frozen, X resigned.
                let flags = |w: &Worker| {
                    let flags = [
                        (w.service.is_leading(), 'L'),
                        (w.service.is_recovering(), 'R'),
                        (w.frozen_until > self.now, 'F'),
                        (w.resigned, 'X'),
                    ];
                    flags
                        .iter()
                        .filter(|f| f.0)
                        .map(|f| f.1)
                        .collect::<String>()
                };
                let r: Vec<String> = (self.workers.iter().enumerate())
                    .filter(|(_, w)| w.alive)
                    .map(|(g, w)| format!("{g}{}", flags(w)))
                    .collect();
                println!("        workers {r:?}");
            }
            self.check_one_leader();
        }
        self.now = self.now.max(until);
    }
}

/// Marks a context's event put off: behind what else is due then, still in its original
/// order among its own (put off again, by a longer task or a freeze, it keeps it: a link's
/// first message before the replies on it).
const BEHIND: u64 = 1 << 48;

/// A trace line with the UTF-16 names (lists of three or more printable codes) as text.
fn readable(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let tail = &rest[open + 1..];
        let close = tail.find(']').unwrap_or(0);
        let codes: Option<Vec<u8>> = tail[..close]
            .split(", ")
            .map(|n| n.parse::<u8>().ok().filter(|c| (32..127).contains(c)))
            .collect();
        match codes {
            Some(codes) if codes.len() > 2 => {
                out.push('"');
                out.push_str(&String::from_utf8_lossy(&codes));
                out.push('"');
                rest = &tail[close + 1..];
            }
            _ => {
                out.push('[');
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}
