// One context's link to the lock worker: a MessagePort speaking the protocol documented in
// src/protocol.rs. Messages posted before the worker has loaded wait in the port, so the
// first synchronous request() of a page is never lost.
//
// Lifecycle (docs/lifecycle.md "Contexts and lifecycle"): the context keeps an IndexedDB database open for as long as
// it lives, so the worker notices its end even without pagehide; it watches the worker's
// own database the same way, and when the worker dies it starts a new one and re-declares
// what it holds and waits for.

import { broadcastLink } from './broadcast-link.js';
import { CONNECT, inServiceWorker, inSharedWorker, offerPort } from './couriers.js';
import { recordedUrl } from '../shared/election.js';
import { domException } from './errors.js';
import { BROADCAST, OLDEST, SETTLE_MS, VERSION, WELCOME_MAX_MS, WELCOME_MS, WORKER_NAME } from '../shared/link-settings.js';
import { left } from './lock-manager.js';
import { ensureHost, hosting } from './tab-host.js';

// A lifeline found missing (watchWorker).
let missing;

function inDedicatedWorker() {
  return typeof DedicatedWorkerGlobalScope === 'function' && self instanceof DedicatedWorkerGlobalScope;
}

export class Connection {
  // `workerUrl()` gives the lock worker's URL; it is called only when a SharedWorker is
  // constructed (a dedicated worker, whose port comes from its parent, never needs it).
  // (Fields are named apart from option and protocol names: scripts/bundle.mjs renames them.)
  // `realm`: the window whose context this is (a same-origin frame or popup the page
  // reached: js/client/realms.js), whose document it lives and dies with: its database is opened
  // there, so that the frame's end closes it. `page`: that page's connection, whose port the
  // frame's messages take (`via`).
  constructor(workerUrl, clientId, realm = globalThis, page) {
    this.urlOfWorker = workerUrl;
    this.ownId = clientId;
    this.realm = realm;
    this.page = page;
    this.doc = realm.document;
    this.link = null;
    this.nextId = 0;
    // id -> handler: { granted, notAvailable, stolen, snapshot, error, redeclare, lost }
    this.handlers = new Map();
    // This context's own database: its name while in use, and the connection once open.
    // `dbState`: 'opening' | 'open' | 'failed' (error event) | 'unusable' (no IndexedDB).
    this.dbName = null;
    this.database = null;
    this.dbState = null;
    // Whether the current port has had its `watch`; how many ports it has had (`hello`'s
    // `n`: the worker hears requests only from the newest it knows).
    this.watchSent = false;
    this.hellos = 0;
    // The welcome watchdog: its timer, and how many ports in a row went unanswered.
    this.retry = 0;
    this.failures = 0;
    // The URL of the origin's serving lock worker, where one that does not serve sent us
    // (`redirect`), until it is found dead or does not start, or over BroadcastChannel does
    // not welcome us in time: then our own again.
    this.target = null;
    // A shared or service worker's port while no courier has it yet (couriers.js): its
    // watchdog starts once one has, so a wait for a window is no failure.
    this.undelivered = null;
    // (`settling`: a timer while a failed lock worker settles, SETTLE_MS: no port is opened
    // meanwhile. `farewell`: set when the worker's lifeline was found missing, watchWorker.
    // `unwelcomed`: the releases and aborts posted since the last welcome, see open.)
    // The clientIds of this context's dedicated workers and of theirs (again at each
    // reconnection of one, kept once): they go with it (`goodbye`).
    this.dedicated = new Set();
  }

  // Whether this context can reach a lock worker at all (so connecting early is worthwhile):
  // a window without SharedWorker hosts one in a dedicated worker (js/client/tab-host.js), which
  // the origin's other contexts reach over BroadcastChannel, and which needs IndexedDB to
  // elect one per origin.
  static reachable() {
    return (
      typeof SharedWorker === 'function' ||
      inDedicatedWorker() ||
      inSharedWorker() ||
      inServiceWorker() ||
      (typeof Worker == 'function' && typeof BroadcastChannel == 'function' && typeof indexedDB == 'object')
    );
  }

  // A fresh request id (below 2^32, never 0, not in use by a live request).
  newId() {
    do {
      this.nextId = (this.nextId + 1) >>> 0;
    } while (this.nextId === 0 || this.handlers.has(this.nextId));
    return this.nextId;
  }

  // Sends `message` for request `id`, whose replies go to `handler`. (Connects first: if
  // that throws, nothing is recorded.)
  send(id, message, handler) {
    this.open();
    this.handlers.set(id, handler);
    this.post(message);
  }

  // Forgets a request: no further replies are expected for it.
  done(id) {
    this.handlers.delete(id);
  }

  // Whether this context's document has gone (a frame's, removed or navigated, whose
  // connection lives on in the page): natively its realm runs nothing more, so it neither
  // connects again nor hears anything (no callback runs, nothing settles); the lock worker
  // releases its locks as it sees its database close.
  gone() {
    return left(this.doc);
  }

  post(message, transfer) {
    this.open();
    if (!this.link) return; // suspended: sent (re-declared) at the reconnection
    message.v = VERSION;
    if (this.unwelcomed && (message.type == 'release' || message.type == 'abort')) this.unwelcomed.push(message);
    this.link.postMessage(message, transfer || []);
  }

  // Connects unless connected: hello, everything re-declared in request order (after a
  // reconnection: held locks as `reclaim`, pending requests and queries as sent), then
  // `watch` (now, or once the database has opened), which tells the worker we are done.
  // Then the releases and aborts posted since the last welcome: a link unwelcomed may have
  // lost them (a worker that redirects drops them, a link over BroadcastChannel closed
  // unanswered too), while an earlier link's worker, serving still, holds the lock or the
  // request (its grant sent to that link: lost too). One that knows it no more ignores them.
  open() {
    if (this.link || this.suspended || this.settling || this.gone()) return;
    const unwelcomed = this.unwelcomed;
    this.attach();
    const ids = [...this.handlers.keys()].sort((a, b) => a - b);
    for (const id of ids) {
      const message = this.handlers.get(id).redeclare();
      if (message) this.post(message);
      else this.done(id);
    }
    this.sendWatch();
    for (const message of unwelcomed || []) this.post(message);
    // (Frames whose link was over the page's last port: a new link each, after the page's.)
    for (const [, frame] of this.frames || []) if (frame.link && frame.link.v) frame.reconnect();
  }

  // A new port to the lock worker, greeted with this client's hello. The database is opened
  // first: the worker may start watching it at hello, and IndexedDB runs our open (version 1)
  // before its upgrade (version 2) only if ours was called first.
  attach() {
    const port = this.connectPort();
    if (!this.dbName && this.dbState !== 'unusable') this.openDatabase();
    this.link = port;
    this.watchSent = false;
    this.unwelcomed = [];
    port.onmessage = (event) => this.dispatch(event.data);
    const hello = { type: 'hello', clientId: this.ownId, n: ++this.hellos };
    // Not a database that failed to open: the worker would take it for a dead context's.
    if (this.dbState === 'opening' || this.dbState === 'open') hello.db = this.dbName;
    this.post(hello);
    if (this.undelivered !== port) this.awaitWelcome(port);
  }

  // The welcome watchdog: a port not welcomed in time (it may have reached a worker that is
  // going away, or a dedicated worker's parent was itself reconnecting) is replaced, after
  // twice as long at each consecutive failure. `port` null: connecting failed; retry.
  awaitWelcome(port) {
    clearTimeout(this.retry);
    const bound = Math.min(WELCOME_MS << this.failures, WELCOME_MAX_MS);
    this.retry = setTimeout(() => {
      if (this.link !== port) return;
      this.failures = Math.min(this.failures + 1, 8);
      // (Sent over BroadcastChannel, unwelcomed: the worker we were sent to may have died
      // first, and none be left to answer. Back to our own route, which starts one or is
      // sent on again.)
      if (port && port.p) this.target = null;
      // (Over its page's port: a port of its own from now on. A lock worker before `via`
      // refuses it.)
      if (port && port.v) this.page = 0;
      this.stale = this.failures > 1 && this.dbState == 'open';
      this.reconnect();
      this.stale = 0;
    }, bound);
  }

  // `watch` for the current port, once: with the database when it is open, without when it
  // cannot be (the worker then serves this context unwatched). Waits while it is opening.
  sendWatch() {
    if (!this.link || this.watchSent || this.dbState === 'opening') return;
    this.watchSent = true;
    this.post(this.dbState === 'open' ? { type: 'watch', db: this.dbName } : { type: 'watch' });
  }

  // A window (or anything with SharedWorker) connects to the lock worker itself. A dedicated
  // worker cannot construct one: it sends one end of a channel to its parent (`adopt`),
  // whose polyfill hands it on; messages wait in the channel meanwhile.
  connectPort() {
    // A frame speaks through its page's port, so that what the page and its frames ask
    // reaches the lock worker in the order asked: messages on different ports of one page
    // may arrive in another order (measured in WebKit and Chromium).
    const via = this.page && this.page.via(this);
    if (via) return via;
    const dedicated = inDedicatedWorker();
    // (The page's wrapper of SharedWorker keeps the native constructor: see install.js.)
    const SharedWorker = globalThis.SharedWorker && (globalThis.SharedWorker[CONNECT] || globalThis.SharedWorker);
    // Sent to a lock worker it cannot construct (a tab's, or any where SharedWorker is
    // missing): over BroadcastChannel. A window without SharedWorker goes there too unless its
    // tab's own lock worker serves (js/client/tab-host.js), which it keeps running meanwhile: it
    // need not wait for that worker to start only to be sent elsewhere.
    const tabbed = !SharedWorker && !dedicated && typeof document == 'object' && Connection.reachable();
    if ((tabbed && !hosting) || (this.target && (this.target == BROADCAST || !SharedWorker))) {
      const link = broadcastLink();
      if (tabbed) this.host(link);
      return link;
    }
    if (typeof SharedWorker === 'function') {
      let url = this.target;
      try {
        url = url || this.urlOfWorker();
      } catch (error) {
        if (!dedicated) throw error;
      }
      if (url) {
        // Where it cannot start, the error says what to do (README "Bundlers, dev servers and
        // hosts"): a worker must be of the page's origin (browsers refuse another: a CDN's),
        // and Vite's dev server moves the package's modules where the worker is not (its
        // plugin keeps them).
        // (`url` is absolute; `origin` is the realm's own: an about:blank or srcdoc frame's
        // `location` has none.)
        const cross = new URL(url).origin != origin;
        const failed =
          'the lock worker failed to start (' +
          url +
          (cross
            ? '): serve web-locks-worker.js from this origin (workerUrl)'
            : /\.vite\//.test(url)
              ? '): Vite needs the plugin navigator-locks-polyfill/vite'
              : ')');
        if (cross) throw domException('SecurityError', failed);
        // Firefox now and then keeps a SharedWorker that died as a context constructed it
        // matched by every later construction, which none answers (tests/e2e/edges.test.mjs).
        // So from the second port in a row left unanswered, a worker of a URL of its own (a
        // fragment): it joins the origin's election, as another build's worker does. (Only
        // where IndexedDB works: without it a worker serves alone, and two would serve.)
        if (this.stale) url += (/#/.test(url) ? '&' : '#') + 'retry' + this.failures;
        // (The worker learns from its name the URL every context reaches it by.)
        const worker = new SharedWorker(url, { name: WORKER_NAME + ' ' + url });
        worker.onerror = () => this.fail(failed, worker.port);
        return worker.port;
      }
    }
    // (A dedicated worker started from a blob: URL has no base to resolve the worker's URL
    // against, and needs none.)
    if (dedicated) {
      const channel = new MessageChannel();
      this.adopt([channel.port2], { [CONNECT]: 1, child: this.ownId });
      return channel.port1;
    }
    // Shared and service workers: through a window (couriers.js).
    if (inSharedWorker() || inServiceWorker()) {
      const channel = new MessageChannel();
      const port = channel.port1;
      this.undelivered = port;
      offerPort(channel.port2, () => {
        if (this.undelivered === port) this.undelivered = null;
        if (this.link === port) this.awaitWelcome(port);
      });
      return port;
    }
    // A window without SharedWorker whose tab's lock worker serves: a port to it.
    if (tabbed) {
      const { port1, port2 } = new MessageChannel();
      const worker = this.host(port1);
      // (None while the page enters the back/forward cache: a port to no one, whose watchdog
      // tries again; the page is frozen meanwhile.)
      if (worker) worker.postMessage(0, [port2]);
      return port1;
    }
    throw domException(
      'NotSupportedError',
      'web-locks polyfill: no lock worker here; for this realm only, use createLockManager({ local: true })',
    );
  }

  // The tab's lock worker (js/client/tab-host.js), started unless running, for `link`: what waits
  // on it fails if the worker cannot start or load its wasm, and the link is replaced when
  // the worker ends (it resigned, or faulted), or by a port once it serves if no serving
  // worker answered it yet.
  host(link) {
    return ensureHost(
      this.urlOfWorker(),
      () => this.fail('the lock worker failed to start', link),
      // (Its wasm did not load: `fatal`, as to its ports.)
      ({ data }) => this.link === link && (data ? this.dispatch(data) : this.reconnect()),
      // (Serving now: a port to it, rather than a link over BroadcastChannel still unanswered.)
      () => this.link === link && link.p && !link.answered && this.reconnect(),
    );
  }

  // A link for the frame whose connection is `child` over this page's port: its messages go
  // in a `via` (src/protocol.rs), which the lock worker's loader hands to a port of the
  // frame's own (js/worker/worker-entry.js); the replies come back marked with its clientId (`c`).
  // None while this port is a BroadcastChannel's (it carries no ports).
  via(child) {
    this.open();
    const link = this.link;
    if (!link || link.p) return;
    const frames = (this.frames ||= new Map());
    for (const [id, frame] of frames) if (frame.gone()) frames.delete(id);
    frames.set(child.ownId, child);
    return { v: link, postMessage: (m, t) => link.postMessage({ v: VERSION, type: 'via', c: child.ownId, m }, t), close() {} };
  }

  // Connects `port` to the lock worker: a dedicated worker's of this context (whose clientId
  // is `child`), or a shared or service worker's that asked through it. A dedicated worker
  // hands ports on to its parent instead, its own and its workers', up to the page: the
  // page's goodbye names every dedicated worker below it (all frozen with it in the
  // back/forward cache).
  //
  // Where no lock worker can be reached, the worker is told so (`fatal`, as the lock worker
  // tells a context it cannot serve): connecting threw (a cross-origin URL in Chromium, a
  // CSP; no SharedWorker here), or the last one failed to start (a 404; a cross-origin URL
  // in Firefox), which lost the port handed on before this one, the same worker's asking
  // again (once: a next one tries again).
  //
  // `asked`: the worker's message, `{ [CONNECT]: 1, child }` with the port, or one of a
  // dedicated worker whose link this context relays (`{ [CONNECT]: 2 }`: see relay).
  adopt(ports, asked) {
    if (inDedicatedWorker()) return self.postMessage(asked, ports);
    const [port] = ports;
    const child = asked.child;
    if (asked[CONNECT] == 2) {
      const take = this.relays && this.relays.get(asked.c);
      return take && take(asked.m);
    }
    const unstarted = this.unstarted;
    this.unstarted = null;
    try {
      if (unstarted) throw unstarted;
      if (child) this.dedicated.add(child);
      this.open();
      // No port goes over BroadcastChannel: the tab's own lock worker takes it, which serves
      // it or sends it on (where there is one; else the worker goes to the serving one itself).
      if (this.link && this.link.p) {
        const worker = !globalThis.SharedWorker && this.host(this.link);
        if (worker) worker.postMessage(0, [port]);
        else port.postMessage({ v: VERSION, type: 'redirect', url: BROADCAST });
      } else if (child && this.link && /WebKit\/6/.test(navigator.userAgent)) this.relay(port, child);
      else this.post({ type: 'adopt' }, [port]);
    } catch (error) {
      port.postMessage({ v: VERSION, type: 'fatal', message: '' + error });
    }
  }

  // WebKit delivers messages of different ports in any order, to the lock worker too: there a
  // dedicated worker (`child`) of this page or its frame speaks through the page's port too,
  // so that what they ask reaches the lock worker in the order asked. Its messages come over
  // `port` until it is told (`relay`), then with its other messages to the page, which may
  // come before the port's: held until the port's last (a 0). (Only in WebKit: a busy page
  // holds its workers' messages back, which Chromium and Firefox natively do not; WebKit
  // grants a worker's lock only once its page's task ends, natively too.)
  // (Its messages carry no ports: a worker's workers ask through it. A message for a link
  // since replaced goes to a closed port, lost, as a frame's.)
  relay(port, child) {
    let held = [];
    const send = (m) => frame.link.postMessage(m);
    const frame = {
      ownId: child,
      gone() {},
      close() {},
      dispatch: (m) => port.postMessage(m),
      reconnect: () => port.postMessage({ v: VERSION, type: 'redirect' }),
    };
    // (A frame's worker goes through the frame's page, as the frame does.)
    frame.link = (this.link.v ? this.page : this).via(frame);
    (this.relays ||= new Map()).set(child, (m) => (held ? held.push(m) : send(m)));
    port.onmessage = ({ data }) => {
      if (data !== 0) return send(data);
      held.map(send);
      held = 0;
    };
    port.postMessage({ v: VERSION, type: 'relay' });
  }

  // Lets the worker notice this context's end even if no pagehide ever runs (a crash, a
  // terminated worker): hold a database open for as long as we live; the worker's pending
  // version upgrade of it goes through only once the browser has closed our connection.
  openDatabase() {
    // The prefix is the one the worker's loader (js/worker/worker-entry.js) surveys: a new serving
    // worker lists these databases, of every build, and waits for them. Then the count of
    // earlier ports (one database per port at most: opened as it connects).
    const name = `web-locks-client-${this.ownId}-${this.hellos}`;
    let request;
    try {
      request = this.realm.indexedDB.open(name, 1); // (throws where there is no indexedDB)
    } catch {
      this.dbState = 'unusable'; // storage blocked: pagehide remains the only signal
      return;
    }
    this.dbName = name;
    this.dbState = 'opening';
    request.onsuccess = () => {
      const db = request.result;
      db.onversionchange = null; // stay open: that is the point
      if (this.dbName !== name) {
        db.close(); // the context closed meanwhile
        indexedDB.deleteDatabase(name);
        return;
      }
      this.database = db;
      // (Unless unwatched meanwhile: a welcome came first.)
      if (this.dbState === 'opening') this.dbState = 'open';
      this.sendWatch();
      db.onclose = () => this.database === db && this.unwatch(); // (closed under us)
    };
    request.onerror = (event) => {
      event.preventDefault();
      if (this.dbName === name) this.unwatch();
    };
  }

  // Our database failed to open, or the site's storage was cleared and our database closed
  // under us (docs/lifecycle.md "Known limits"), so the worker can no longer see its end (measured):
  // the worker is told to watch it no more (`watch` without `db`; none sent yet while it was
  // opening), and our pagehide says goodbye instead.
  unwatch() {
    this.dbState = 'failed';
    this.watchSent = false;
    this.sendWatch();
  }

  // The worker's `welcome` names its lifeline database: our version upgrade of it goes
  // through only when the worker has died (a SharedWorker can die with the tab that started
  // it, leaving our port silently dead).
  watchWorker(db) {
    // (No lifeline; one found missing: see below. Nor its own tab's lock worker's, whose
    // end the page tells: js/client/tab-host.js.)
    if (!db || typeof indexedDB === 'undefined' || db == hosting) return;
    // The site's storage was cleared under this worker (docs/lifecycle.md "Known limits"): it may no
    // longer see our database's end (Chromium's does not; Firefox's does: measured). Ours
    // stays watched, and our pagehide says goodbye too: whichever the browser delivers
    // releases our locks (Firefox loses a closing tab's goodbye now and then).
    if (db === missing) return (this.farewell = 1);
    const port = this.link;
    const request = indexedDB.open(db, 2);
    request.onupgradeneeded = (event) => {
      request.transaction.abort();
      indexedDB.deleteDatabase(db);
      // Version 0: it does not exist. Its worker died and another context deleted it, or the
      // site's storage was cleared under a worker that lives on (docs/lifecycle.md "Known limits") and
      // names it again: not watched again, rather than reconnecting to that worker in a loop
      // (its welcome then has us say goodbye at pagehide: unwatch).
      if (!event.oldVersion) missing = db;
      if (this.link === port) {
        this.target = null; // (our own lock worker's URL: a new one elects another)
        this.reconnect();
      }
    };
    request.onerror = (event) => event.preventDefault(); // the upgrade we aborted
  }

  // The worker died, or never answered: a new port (to a new worker, if this one is gone)
  // and everything re-declared.
  reconnect() {
    const old = this.link;
    this.link = null;
    if (old) old.close();
    try {
      this.open();
    } catch (error) {
      console.error('web-locks: cannot reconnect', error);
      this.awaitWelcome(null);
    }
  }

  // The worker took us for dead (our database vanished, or was seen too late), released
  // our locks and closed the port: the locks are lost (reclaimed, one that another context
  // held and released meanwhile would come back unnoticed), and a new database, a new port,
  // the requests and queries re-declared.
  evicted() {
    for (const handler of [...this.handlers.values()]) handler.lost(1);
    this.forgetDatabase();
    this.reconnect();
  }

  // Closes this context's database (the worker watching it takes the context for gone); the
  // next port gets a new one.
  forgetDatabase() {
    if (this.database) this.database.close();
    this.database = null;
    this.dbName = null;
    this.dbState = null;
  }

  // §2.6 at `pagehide`. Entering the back/forward cache (`persisted`; called at the `freeze`
  // that follows, where there is one: install.js) the page says goodbye: the worker releases
  // its locks and drops its requests; what it held or waited for is lost (docs/lifecycle.md "Contexts
  // and lifecycle"). Otherwise its end is the browser closing its database, which the
  // worker watches: a closed tab still runs its timers and IndexedDB callbacks after
  // `pagehide` and `unload` (measured in Chromium), so a goodbye now would let its critical
  // section run on beside the next holder's. Only a context with no database, or with one
  // its lock worker may not see the end of (`farewell`: watchWorker), says goodbye then.
  close(persisted) {
    if (!persisted && (this.dbState === 'opening' || this.dbState === 'open') && !this.farewell) return;
    // Entering the cache, it stays unconnected until restored (pageshow: `suspended` off):
    // a request made meanwhile (a retry on the AbortError below) waits here, rather than
    // connecting a cached page, whose lock none could then take while it is frozen. Unloaded
    // (a context with no database), it stays so for good: a request its last tasks make
    // would otherwise connect it again, as a client no goodbye would ever end.
    this.suspended = true;
    clearTimeout(this.retry);
    this.failures = 0;
    if (this.link) {
      // (Its frames speaking through this port first, as their own `pagehide` and `freeze`
      // may come after the page's (Firefox): their goodbyes would take the port closed.
      // Their databases closed by themselves, none blocks a watch of the lock worker, which
      // would get the page evicted from the cache (Chromium).)
      for (const [, frame] of this.frames || []) if (frame.link && frame.link.v == this.link) frame.close(persisted);
      // (Its dedicated workers go with it: frozen with it in the back/forward cache, where
      // Firefox keeps them, they hold nothing meanwhile.)
      this.link.postMessage({ v: VERSION, type: 'goodbye', names: [...this.dedicated] });
      this.link.close();
      this.link = null;
    }
    // (A request's handler forgets itself; a query's stays, sent again when restored.)
    if (persisted) for (const handler of [...this.handlers.values()]) handler.lost();
    // Entering the cache at `pagehide` (`persisted` 2: no `freeze` event, WebKit and
    // Firefox), its database closes a moment later: WebKit's lock worker saw its end before
    // the goodbye, and dropped the goodbye with the dedicated workers it names (measured).
    // (At a `freeze`, Chromium's, at once: a frozen page whose database blocks the lock
    // worker's watch is evicted.)
    const db = this.database;
    if (persisted > 1) (this.database = null), setTimeout(() => db && db.close(), 500);
    this.forgetDatabase();
  }

  dispatch(message) {
    if (this.gone()) return;
    if (!message || !(message.v >= OLDEST)) {
      console.error('web-locks: unexpected message', message);
      return;
    }
    // (A frame's: see via.)
    if (message.c && this.frames) {
      const frame = this.frames.get(message.c);
      if (frame && frame.link && frame.link.v == this.link) frame.dispatch(message);
      return;
    }
    this.unstarted = null; // (a lock worker answers after all: see adopt)
    if (message.type === 'welcome') {
      clearTimeout(this.retry);
      this.failures = 0;
      this.unwelcomed = 0;
      this.watchWorker(message.db);
      return;
    }
    if (message.type === 'fatal') {
      this.fail(message.message);
      return;
    }
    if (message.type === 'evicted') {
      this.evicted();
      return;
    }
    if (message.type === 'relay') {
      // (A dedicated worker's page relays its link: from now on with its other messages to
      // the page, after a 0 that ends the port's.)
      const port = this.link;
      port.postMessage(0);
      port.postMessage = (m) => self.postMessage({ [CONNECT]: 2, c: this.ownId, m });
      return;
    }
    if (message.type === 'redirect') {
      // Another lock worker serves the origin (another build's, or another copy's): the
      // port is closed; a new one to that worker, with everything declared there.
      this.target = message.url;
      this.reconnect();
      return;
    }
    const handler = this.handlers.get(message.id);
    if (message.type === 'granted' && !handler) {
      // A grant nothing waits for (its request was answered otherwise on a replaced port,
      // e.g. stolen, while re-sent on the new one): give the lock back.
      this.post({ type: 'release', id: message.id });
      return;
    }
    if (message.type === 'error') {
      console.error('web-locks: message refused: ' + message.message);
      if (handler) handler.error(domException('InvalidStateError', message.message));
      return;
    }
    const act = handler && handler[message.type];
    if (act) act.call(handler, message);
  }

  // The lock worker cannot serve (its script or its wasm failed to load): what waits on it
  // fails, and the next message tries a new port (the worker loads its wasm again when one
  // connects: this fails the same way, or works if the cause has gone) rather than waiting on
  // this one forever. A lock held (its callback runs on) is kept, and a new port is tried
  // every second meanwhile: the worker, once it loads (it awaits this context for 3 s,
  // recovery.rs), gets it back as a `reclaim`, and gives it to no one else meanwhile. Holding
  // nothing, the context closes its database, so that such a worker does not wait for it.
  //
  // A worker whose script did not start (`port`: its error event) is let settle first: no
  // new port for SETTLE_MS (link-settings.js). If it was one we were sent to (`target`: it
  // ended, and its build's files are gone), or our own while the origin's record names
  // another serving worker (our build's files are gone: a deploy), the next port goes there
  // instead (or to our own), and nothing fails.
  fail(reason, port) {
    if (port && port !== this.link) return; // an earlier port's worker
    if (port) {
      const tried = this.target;
      this.link.close();
      this.link = null;
      this.settling = 1;
      return recordedUrl().then((url) => {
        console.error('web-locks: ' + reason);
        const elsewhere = url && url != (tried || this.urlOfWorker());
        this.target = elsewhere ? url : null;
        this.settling = setTimeout(() => {
          this.settling = 0;
          if (this.handlers.size || elsewhere) this.open(); // (what was asked meanwhile)
        }, SETTLE_MS);
        if (!tried && !elsewhere) this.failAll(reason, 1);
      });
    }
    console.error('web-locks: ' + reason);
    this.failAll(reason);
  }

  // What waits on the lock worker fails with `reason` (`unstarted`: it did not start). One
  // that did not start where this context's database failed to open too had no storage
  // (third-party storage blocked, a private window's): there is no lock manager to obtain,
  // a SecurityError (§2.2, §3.2.1 step 4), as natively.
  failAll(reason, unstarted) {
    let name = 'InvalidStateError';
    if (unstarted) {
      if (this.dbState == 'failed') (name = 'SecurityError'), (reason += ': no storage here');
      this.unstarted = reason; // (see adopt)
    }
    this.failures = 0;
    if (this.link) this.link.close();
    this.link = null;
    // (So do its frames' and relayed workers': they spoke through its link.)
    for (const [, frame] of this.frames || []) if (frame.link && frame.link.v) frame.dispatch({ v: VERSION, type: 'fatal', message: reason });
    // (`true`: a held lock's handler stays.)
    for (const handler of [...this.handlers.values()]) handler.error(domException(name, reason), true);
    if (this.handlers.size) return this.awaitWelcome(null);
    clearTimeout(this.retry);
    this.forgetDatabase();
  }
}
