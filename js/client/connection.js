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

// A lifeline found missing (watchWorker_).
let missing;

function inDedicatedWorker() {
  return typeof DedicatedWorkerGlobalScope === 'function' && self instanceof DedicatedWorkerGlobalScope;
}

export class Connection {
  // `workerUrl()` gives the lock worker's URL; it is called only when a SharedWorker is
  // constructed (a dedicated worker, whose port comes from its parent, never needs it).
  // (Its own fields and methods end in `_`: scripts/bundle.mjs renames them.)
  // `realm_`: the window whose context this is (a same-origin frame or popup the page
  // reached: js/client/realms.js), whose document it lives and dies with: its database is opened
  // there, so that the frame's end closes it. `page_`: that page's connection, whose port the
  // frame's messages take (`via`).
  constructor(workerUrl, clientId, realm = globalThis, page) {
    this.urlOfWorker_ = workerUrl;
    this.ownId_ = clientId;
    this.realm_ = realm;
    this.page_ = page;
    this.doc_ = realm.document;
    this.link_ = null;
    this.nextId_ = 0;
    // id -> handler: { granted, notAvailable, stolen, snapshot, error, redeclare_, lost_ }
    this.handlers_ = new Map();
    // This context's own database: its name while in use, and the connection once open.
    // `dbState_`: 'opening' | 'open' | 'failed' (error event) | 'unusable' (no IndexedDB).
    this.dbName_ = null;
    this.database_ = null;
    this.dbState_ = null;
    // Whether the current port has had its `watch`; how many ports it has had (`hello`'s
    // `n`: the worker hears requests only from the newest it knows).
    this.watchSent_ = false;
    this.hellos_ = 0;
    // The welcome watchdog: its timer, and how many ports in a row went unanswered.
    this.retry_ = 0;
    this.failures_ = 0;
    // The URL of the origin's serving lock worker, where one that does not serve sent us
    // (`redirect`), until it is found dead or does not start, or over BroadcastChannel does
    // not welcome us in time: then our own again.
    this.target_ = null;
    // A shared or service worker's port while no courier has it yet (couriers.js): its
    // watchdog starts once one has, so a wait for a window is no failure.
    this.undelivered_ = null;
    // (`settling_`: a timer while a failed lock worker settles, SETTLE_MS: no port is opened
    // meanwhile. `farewell_`: set when the worker's lifeline was found missing, watchWorker_.
    // `unwelcomed_`: the releases and aborts posted since the last welcome, see open.)
    // The clientIds of this context's dedicated workers and of theirs (again at each
    // reconnection of one, kept once): they go with it (`goodbye`).
    this.dedicated_ = new Set();
  }

  // Whether this context can reach a lock worker at all (so connecting early is worthwhile):
  // a window without SharedWorker hosts one in a dedicated worker (js/client/tab-host.js), which
  // the origin's other contexts reach over BroadcastChannel, and which needs IndexedDB to
  // elect one per origin.
  static reachable_() {
    return (
      typeof SharedWorker === 'function' ||
      inDedicatedWorker() ||
      inSharedWorker() ||
      inServiceWorker() ||
      (typeof Worker == 'function' && typeof BroadcastChannel == 'function' && typeof indexedDB == 'object')
    );
  }

  // A fresh request id (below 2^32, never 0, not in use by a live request).
  newId_() {
    do {
      this.nextId_ = (this.nextId_ + 1) >>> 0;
    } while (this.nextId_ === 0 || this.handlers_.has(this.nextId_));
    return this.nextId_;
  }

  // Sends `message` for request `id`, whose replies go to `handler`. (Connects first: if
  // that throws, nothing is recorded.)
  send_(id, message, handler) {
    this.open();
    this.handlers_.set(id, handler);
    this.post_(message);
  }

  // Forgets a request: no further replies are expected for it.
  done_(id) {
    this.handlers_.delete(id);
  }

  // Whether this context's document has gone (a frame's, removed or navigated, whose
  // connection lives on in the page): natively its realm runs nothing more, so it neither
  // connects again nor hears anything (no callback runs, nothing settles); the lock worker
  // releases its locks as it sees its database close.
  gone_() {
    return left(this.doc_);
  }

  post_(message, transfer) {
    this.open();
    if (!this.link_) return; // suspended: sent (re-declared) at the reconnection
    message.v = VERSION;
    if (this.unwelcomed_ && (message.type == 'release' || message.type == 'abort')) this.unwelcomed_.push(message);
    this.link_.postMessage(message, transfer || []);
  }

  // Connects unless connected: hello, everything re-declared in request order (after a
  // reconnection: held locks as `reclaim`, pending requests and queries as sent), then
  // `watch` (now, or once the database has opened), which tells the worker we are done.
  // Then the releases and aborts posted since the last welcome: a link unwelcomed may have
  // lost them (a worker that redirects drops them, a link over BroadcastChannel closed
  // unanswered too), while an earlier link's worker, serving still, holds the lock or the
  // request (its grant sent to that link: lost too). One that knows it no more ignores them.
  open() {
    if (this.link_ || this.suspended_ || this.settling_ || this.gone_()) return;
    const unwelcomed = this.unwelcomed_;
    this.attach_();
    const ids = [...this.handlers_.keys()].sort((a, b) => a - b);
    for (const id of ids) {
      const message = this.handlers_.get(id).redeclare_();
      if (message) this.post_(message);
      else this.done_(id);
    }
    this.sendWatch_();
    for (const message of unwelcomed || []) this.post_(message);
    // (Frames whose link was over the page's last port: a new link each, after the page's.)
    for (const [, frame] of this.frames_ || []) if (frame.link_ && frame.link_.v) frame.reconnect_();
  }

  // A new port to the lock worker, greeted with this client's hello. The database is opened
  // first: the worker may start watching it at hello, and IndexedDB runs our open (version 1)
  // before its upgrade (version 2) only if ours was called first.
  attach_() {
    const port = this.connectPort_();
    if (!this.dbName_ && this.dbState_ !== 'unusable') this.openDatabase_();
    this.link_ = port;
    this.watchSent_ = false;
    this.unwelcomed_ = [];
    port.onmessage = (event) => this.dispatch_(event.data);
    const hello = { type: 'hello', clientId: this.ownId_, n: ++this.hellos_ };
    // Not a database that failed to open: the worker would take it for a dead context's.
    if (this.dbState_ === 'opening' || this.dbState_ === 'open') hello.db = this.dbName_;
    this.post_(hello);
    if (this.undelivered_ !== port) this.awaitWelcome_(port);
  }

  // The welcome watchdog: a port not welcomed in time (it may have reached a worker that is
  // going away, or a dedicated worker's parent was itself reconnecting) is replaced, after
  // twice as long at each consecutive failure. `port` null: connecting failed; retry.
  awaitWelcome_(port) {
    clearTimeout(this.retry_);
    const bound = Math.min(WELCOME_MS << this.failures_, WELCOME_MAX_MS);
    this.retry_ = setTimeout(() => {
      if (this.link_ !== port) return;
      this.failures_ = Math.min(this.failures_ + 1, 8);
      // (Sent over BroadcastChannel, unwelcomed: the worker we were sent to may have died
      // first, and none be left to answer. Back to our own route, which starts one or is
      // sent on again.)
      if (port && port.p) this.target_ = null;
      // (Over its page's port: a port of its own from now on. A lock worker before `via`
      // refuses it.)
      if (port && port.v) this.page_ = 0;
      this.stale_ = this.failures_ > 1 && this.dbState_ == 'open';
      this.reconnect_();
      this.stale_ = 0;
    }, bound);
  }

  // `watch` for the current port, once: with the database when it is open, without when it
  // cannot be (the worker then serves this context unwatched). Waits while it is opening.
  sendWatch_() {
    if (!this.link_ || this.watchSent_ || this.dbState_ === 'opening') return;
    this.watchSent_ = true;
    this.post_(this.dbState_ === 'open' ? { type: 'watch', db: this.dbName_ } : { type: 'watch' });
  }

  // A window (or anything with SharedWorker) connects to the lock worker itself. A dedicated
  // worker cannot construct one: it sends one end of a channel to its parent (`adopt`),
  // whose polyfill hands it on; messages wait in the channel meanwhile.
  connectPort_() {
    // A frame speaks through its page's port, so that what the page and its frames ask
    // reaches the lock worker in the order asked: messages on different ports of one page
    // may arrive in another order (measured in WebKit and Chromium).
    const via = this.page_ && this.page_.via_(this);
    if (via) return via;
    const dedicated = inDedicatedWorker();
    // (The page's wrapper of SharedWorker keeps the native constructor: see install.js.)
    const SharedWorker = globalThis.SharedWorker && (globalThis.SharedWorker[CONNECT] || globalThis.SharedWorker);
    // Sent to a lock worker it cannot construct (a tab's, or any where SharedWorker is
    // missing): over BroadcastChannel. A window without SharedWorker goes there too unless its
    // tab's own lock worker serves (js/client/tab-host.js), which it keeps running meanwhile: it
    // need not wait for that worker to start only to be sent elsewhere.
    const tabbed = !SharedWorker && !dedicated && typeof document == 'object' && Connection.reachable_();
    if ((tabbed && !hosting) || (this.target_ && (this.target_ == BROADCAST || !SharedWorker))) {
      const link = broadcastLink();
      if (tabbed) this.host(link);
      return link;
    }
    if (typeof SharedWorker === 'function') {
      let url = this.target_;
      try {
        url = url || this.urlOfWorker_();
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
        // matched by every later construction, which none answers (tests/e2e/faults.test.mjs).
        // So from the second port in a row left unanswered, a worker of a URL of its own (a
        // fragment): it joins the origin's election, as another build's worker does. (Only
        // where IndexedDB works: without it a worker serves alone, and two would serve.)
        if (this.stale_) url += (/#/.test(url) ? '&' : '#') + 'retry' + this.failures_;
        // (The worker learns from its name the URL every context reaches it by.)
        const worker = new SharedWorker(url, { name: WORKER_NAME + ' ' + url });
        worker.onerror = () => this.fail_(failed, worker.port);
        return worker.port;
      }
    }
    // (A dedicated worker started from a blob: URL has no base to resolve the worker's URL
    // against, and needs none.)
    if (dedicated) {
      const channel = new MessageChannel();
      this.adopt_([channel.port2], { [CONNECT]: 1, child: this.ownId_ });
      return channel.port1;
    }
    // Shared and service workers: through a window (couriers.js).
    if (inSharedWorker() || inServiceWorker()) {
      const channel = new MessageChannel();
      const port = channel.port1;
      this.undelivered_ = port;
      offerPort(channel.port2, () => {
        if (this.undelivered_ === port) this.undelivered_ = null;
        if (this.link_ === port) this.awaitWelcome_(port);
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
      this.urlOfWorker_(),
      () => this.fail_('the lock worker failed to start', link),
      // (Its wasm did not load: `fatal`, as to its ports.)
      ({ data }) => this.link_ === link && (data ? this.dispatch_(data) : this.reconnect_()),
      // (Serving now: a port to it, rather than a link over BroadcastChannel still unanswered.)
      () => this.link_ === link && link.p && !link.answered && this.reconnect_(),
    );
  }

  // A link for the frame whose connection is `child` over this page's port: its messages go
  // in a `via` (src/protocol.rs), which the lock worker's loader hands to a port of the
  // frame's own (js/worker/worker-entry.js); the replies come back marked with its clientId (`c`).
  // None while this port is a BroadcastChannel's (it carries no ports).
  via_(child) {
    this.open();
    const link = this.link_;
    if (!link || link.p) return;
    const frames = (this.frames_ ||= new Map());
    for (const [id, frame] of frames) if (frame.gone_()) frames.delete(id);
    frames.set(child.ownId_, child);
    return { v: link, postMessage: (m, t) => link.postMessage({ v: VERSION, type: 'via', c: child.ownId_, m }, t), close() {} };
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
  adopt_(ports, asked) {
    if (inDedicatedWorker()) return self.postMessage(asked, ports);
    const [port] = ports;
    const child = asked.child;
    if (asked[CONNECT] == 2) {
      const take = this.relays_ && this.relays_.get(asked.c);
      return take && take(asked.m);
    }
    const unstarted = this.unstarted_;
    this.unstarted_ = null;
    try {
      if (unstarted) throw unstarted;
      if (child) this.dedicated_.add(child);
      this.open();
      // No port goes over BroadcastChannel: the tab's own lock worker takes it, which serves
      // it or sends it on (where there is one; else the worker goes to the serving one itself).
      if (this.link_ && this.link_.p) {
        const worker = !globalThis.SharedWorker && this.host(this.link_);
        if (worker) worker.postMessage(0, [port]);
        else port.postMessage({ v: VERSION, type: 'redirect', url: BROADCAST });
      } else if (child && this.link_ && /WebKit\/6/.test(navigator.userAgent)) this.relay_(port, child);
      else this.post_({ type: 'adopt' }, [port]);
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
  relay_(port, child) {
    let held = [];
    const send = (m) => frame.link_.postMessage(m);
    const frame = {
      ownId_: child,
      gone_() {},
      close() {},
      dispatch_: (m) => port.postMessage(m),
      reconnect_: () => port.postMessage({ v: VERSION, type: 'redirect' }),
    };
    // (A frame's worker goes through the frame's page, as the frame does.)
    frame.link_ = (this.link_.v ? this.page_ : this).via_(frame);
    (this.relays_ ||= new Map()).set(child, (m) => (held ? held.push(m) : send(m)));
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
  openDatabase_() {
    // The prefix is the one the worker's loader (js/worker/worker-entry.js) surveys: a new serving
    // worker lists these databases, of every build, and waits for them. Then the count of
    // earlier ports (one database per port at most: opened as it connects).
    const name = `web-locks-client-${this.ownId_}-${this.hellos_}`;
    let request;
    try {
      request = this.realm_.indexedDB.open(name, 1); // (throws where there is no indexedDB)
    } catch {
      this.dbState_ = 'unusable'; // storage blocked: pagehide remains the only signal
      return;
    }
    this.dbName_ = name;
    this.dbState_ = 'opening';
    request.onsuccess = () => {
      const db = request.result;
      db.onversionchange = null; // stay open: that is the point
      if (this.dbName_ !== name) {
        db.close(); // the context closed meanwhile
        indexedDB.deleteDatabase(name);
        return;
      }
      this.database_ = db;
      // (Unless unwatched meanwhile: a welcome came first.)
      if (this.dbState_ === 'opening') this.dbState_ = 'open';
      this.sendWatch_();
      db.onclose = () => this.database_ === db && this.unwatch_(); // (closed under us)
    };
    request.onerror = (event) => {
      event.preventDefault();
      if (this.dbName_ === name) this.unwatch_();
    };
  }

  // Our database failed to open, or the site's storage was cleared and our database closed
  // under us (docs/lifecycle.md "Known limits"), so the worker can no longer see its end (measured):
  // the worker is told to watch it no more (`watch` without `db`; none sent yet while it was
  // opening), and our pagehide says goodbye instead.
  unwatch_() {
    this.dbState_ = 'failed';
    this.watchSent_ = false;
    this.sendWatch_();
  }

  // The worker's `welcome` names its lifeline database: our version upgrade of it goes
  // through only when the worker has died (a SharedWorker can die with the tab that started
  // it, leaving our port silently dead).
  watchWorker_(db) {
    // (No lifeline; one found missing: see below. Nor its own tab's lock worker's, whose
    // end the page tells: js/client/tab-host.js.)
    if (!db || typeof indexedDB === 'undefined' || db == hosting) return;
    // The site's storage was cleared under this worker (docs/lifecycle.md "Known limits"): it may no
    // longer see our database's end (Chromium's does not; Firefox's does: measured). Ours
    // stays watched, and our pagehide says goodbye too: whichever the browser delivers
    // releases our locks (Firefox loses a closing tab's goodbye now and then).
    if (db === missing) return (this.farewell_ = 1);
    const port = this.link_;
    const request = indexedDB.open(db, 2);
    request.onupgradeneeded = (event) => {
      request.transaction.abort();
      indexedDB.deleteDatabase(db);
      // Version 0: it does not exist. Its worker died and another context deleted it, or the
      // site's storage was cleared under a worker that lives on (docs/lifecycle.md "Known limits") and
      // names it again: not watched again, rather than reconnecting to that worker in a loop
      // (its welcome then has us say goodbye at pagehide: unwatch).
      if (!event.oldVersion) missing = db;
      if (this.link_ === port) {
        this.target_ = null; // (our own lock worker's URL: a new one elects another)
        this.reconnect_();
      }
    };
    request.onerror = (event) => event.preventDefault(); // the upgrade we aborted
  }

  // The worker died, or never answered: a new port (to a new worker, if this one is gone)
  // and everything re-declared.
  reconnect_() {
    const old = this.link_;
    this.link_ = null;
    if (old) old.close();
    try {
      this.open();
    } catch (error) {
      console.error('web-locks: cannot reconnect', error);
      this.awaitWelcome_(null);
    }
  }

  // The worker took us for dead (our database vanished, or was seen too late), released
  // our locks and closed the port: the locks are lost (reclaimed, one that another context
  // held and released meanwhile would come back unnoticed), and a new database, a new port,
  // the requests and queries re-declared.
  evicted_() {
    for (const handler of [...this.handlers_.values()]) handler.lost_(1);
    this.forgetDatabase_();
    this.reconnect_();
  }

  // Closes this context's database (the worker watching it takes the context for gone); the
  // next port gets a new one.
  forgetDatabase_() {
    if (this.database_) this.database_.close();
    this.database_ = null;
    this.dbName_ = null;
    this.dbState_ = null;
  }

  // §2.6 at `pagehide`. Entering the back/forward cache (`persisted`; called at the `freeze`
  // that follows, where there is one: install.js) the page says goodbye: the worker releases
  // its locks and drops its requests; what it held or waited for is lost (docs/lifecycle.md "Contexts
  // and lifecycle"). Otherwise its end is the browser closing its database, which the
  // worker watches: a closed tab still runs its timers and IndexedDB callbacks after
  // `pagehide` and `unload` (measured in Chromium), so a goodbye now would let its critical
  // section run on beside the next holder's. Only a context with no database, or with one
  // its lock worker may not see the end of (`farewell_`: watchWorker_), says goodbye then.
  close(persisted) {
    if (!persisted && (this.dbState_ === 'opening' || this.dbState_ === 'open') && !this.farewell_) return;
    // Entering the cache, it stays unconnected until restored (pageshow: `suspended_` off):
    // a request made meanwhile (a retry on the AbortError below) waits here, rather than
    // connecting a cached page, whose lock none could then take while it is frozen. Unloaded
    // (a context with no database), it stays so for good: a request its last tasks make
    // would otherwise connect it again, as a client no goodbye would ever end.
    this.suspended_ = true;
    clearTimeout(this.retry_);
    this.failures_ = 0;
    if (this.link_) {
      // (Its frames speaking through this port first, as their own `pagehide` and `freeze`
      // may come after the page's (Firefox): their goodbyes would take the port closed.
      // Their databases closed by themselves, none blocks a watch of the lock worker, which
      // would get the page evicted from the cache (Chromium).)
      for (const [, frame] of this.frames_ || []) if (frame.link_ && frame.link_.v == this.link_) frame.close(persisted);
      // (Its dedicated workers go with it: frozen with it in the back/forward cache, where
      // Firefox keeps them, they hold nothing meanwhile.)
      this.link_.postMessage({ v: VERSION, type: 'goodbye', names: [...this.dedicated_] });
      this.link_.close();
      this.link_ = null;
    }
    // (A request's handler forgets itself; a query's stays, sent again when restored.)
    if (persisted) for (const handler of [...this.handlers_.values()]) handler.lost_();
    // Entering the cache at `pagehide` (`persisted` 2: no `freeze` event, WebKit and
    // Firefox), its database closes a moment later: WebKit's lock worker saw its end before
    // the goodbye, and dropped the goodbye with the dedicated workers it names (measured).
    // (At a `freeze`, Chromium's, at once: a frozen page whose database blocks the lock
    // worker's watch is evicted.)
    const db = this.database_;
    if (persisted > 1) (this.database_ = null), setTimeout(() => db && db.close(), 500);
    this.forgetDatabase_();
  }

  dispatch_(message) {
    if (this.gone_()) return;
    if (!message || !(message.v >= OLDEST)) {
      console.error('web-locks: unexpected message', message);
      return;
    }
    // (A frame's: see via.)
    if (message.c && this.frames_) {
      const frame = this.frames_.get(message.c);
      if (frame && frame.link_ && frame.link_.v == this.link_) frame.dispatch_(message);
      return;
    }
    this.unstarted_ = null; // (a lock worker answers after all: see adopt)
    if (message.type === 'welcome') {
      clearTimeout(this.retry_);
      this.failures_ = 0;
      this.unwelcomed_ = 0;
      this.watchWorker_(message.db);
      return;
    }
    if (message.type === 'fatal') {
      this.fail_(message.message);
      return;
    }
    if (message.type === 'evicted') {
      this.evicted_();
      return;
    }
    if (message.type === 'relay') {
      // (A dedicated worker's page relays its link: from now on with its other messages to
      // the page, after a 0 that ends the port's.)
      const port = this.link_;
      port.postMessage(0);
      port.postMessage = (m) => self.postMessage({ [CONNECT]: 2, c: this.ownId_, m });
      return;
    }
    if (message.type === 'redirect') {
      // Another lock worker serves the origin (another build's, or another copy's): the
      // port is closed; a new one to that worker, with everything declared there.
      this.target_ = message.url;
      this.reconnect_();
      return;
    }
    const handler = this.handlers_.get(message.id);
    if (message.type === 'granted' && !handler) {
      // A grant nothing waits for (its request was answered otherwise on a replaced port,
      // e.g. stolen, while re-sent on the new one): give the lock back.
      this.post_({ type: 'release', id: message.id });
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
  // new port for SETTLE_MS (link-settings.js). If it was one we were sent to (`target_`: it
  // ended, and its build's files are gone), or our own while the origin's record names
  // another serving worker (our build's files are gone: a deploy), the next port goes there
  // instead (or to our own), and nothing fails.
  fail_(reason, port) {
    if (port && port !== this.link_) return; // an earlier port's worker
    if (port) {
      const tried = this.target_;
      this.link_.close();
      this.link_ = null;
      this.settling_ = 1;
      return recordedUrl().then((url) => {
        console.error('web-locks: ' + reason);
        const elsewhere = url && url != (tried || this.urlOfWorker_());
        this.target_ = elsewhere ? url : null;
        this.settling_ = setTimeout(() => {
          this.settling_ = 0;
          if (this.handlers_.size || elsewhere) this.open(); // (what was asked meanwhile)
        }, SETTLE_MS);
        if (!tried && !elsewhere) this.failAll_(reason, 1);
      });
    }
    console.error('web-locks: ' + reason);
    this.failAll_(reason);
  }

  // What waits on the lock worker fails with `reason` (`unstarted`: it did not start). One
  // that did not start where this context's database failed to open too had no storage
  // (third-party storage blocked, a private window's): there is no lock manager to obtain,
  // a SecurityError (§2.2, §3.2.1 step 4), as natively.
  failAll_(reason, unstarted) {
    let name = 'InvalidStateError';
    if (unstarted) {
      if (this.dbState_ == 'failed') (name = 'SecurityError'), (reason += ': no storage here');
      this.unstarted_ = reason; // (see adopt)
    }
    this.failures_ = 0;
    if (this.link_) this.link_.close();
    this.link_ = null;
    // (So do its frames' and relayed workers': they spoke through its link.)
    for (const [, frame] of this.frames_ || []) if (frame.link_ && frame.link_.v) frame.dispatch_({ v: VERSION, type: 'fatal', message: reason });
    // (`true`: a held lock's handler stays.)
    for (const handler of [...this.handlers_.values()]) handler.error(domException(name, reason), true);
    if (this.handlers_.size) return this.awaitWelcome_(null);
    clearTimeout(this.retry_);
    this.forgetDatabase_();
  }
}
