// Installing the polyfill: navigator.locks, LockManager and Lock, where missing (or forced).

import { Connection } from './connection.js';
import { CONNECT } from './couriers.js';
import { Lock, LockManager, checkManager, home, newLockManager, realmOf } from './lock-manager.js';
import { localConnection } from './local.js';
import { reachRealms } from './realms.js';
import { endHost, hosting, unpark } from './tab-host.js';
import { branded } from './webidl.js';

// A v4 UUID; crypto.randomUUID is secure-context only, getRandomValues is not (and Node 18
// has no global crypto). Each 0 and 1 of the template becomes a random hex digit, the 8 one
// of 8–b (the variant); the 4 is the version.
const random = () =>
  typeof crypto !== 'undefined' && crypto.getRandomValues ? crypto.getRandomValues(new Uint8Array(1))[0] : Math.random() * 256;
const uuid = () => '10000000-1000-4000-8000-100000000000'.replace(/[018]/g, (c) => (c ^ (random() & (15 >> (c / 4)))).toString(16));

// Where the worker script and its .wasm are: the entry module passes its defaults,
// `options.workerUrl` / `options.wasmUrl` override them. Resolved only when a SharedWorker is
// constructed: a dedicated worker (possibly started from a blob: URL, against which no
// relative URL resolves) gets its port from its parent and never needs them.
function workerLocation(defaults, options) {
  const worker = new URL(options.workerUrl || defaults.workerUrl(), location);
  const wasm = options.wasmUrl || (options.workerUrl ? null : defaults.wasmUrl());
  if (wasm) worker.hash = 'wasm=' + encodeURIComponent(new URL(wasm, location).href);
  return worker;
}

// A client of the lock worker: its own clientId, port and liveness database. install() makes
// one per context; every createLockManager() call makes another. (With `local`: a client of
// the realm's own lock service instead, js/client/local.js.) It connects at once where a lock
// worker can be reached, so that a later first request() neither waits for the
// connection nor depends on the tab hosting the worker being responsive (Chromium routes
// new SharedWorker connections through that tab's main thread); where none can be, or the
// connection fails now, it stays lazy and request() reports the failure.
// (The lock worker's URL is resolved once, at the first connection: relative options must
// not follow the page's history.pushState to another lock worker at a reconnection.)
// (`realm`: a same-origin frame or popup the page reached, whose context this client is:
// js/client/realms.js.)
function connect(defaults, options, realm = globalThis, page) {
  let url;
  const connection = options.local
    ? localConnection(defaults, options, uuid())
    : new Connection(() => url || (url = workerLocation(defaults, options)), uuid(), realm, page);
  const start = () => {
    if (!connection.constructor.reachable_()) return;
    try {
      // (No lock manager to reach: request() will reject, as it does when connecting fails.)
      checkManager(connection);
      connection.open();
    } catch {}
  };
  // §2.6 on the unloading document cleanup steps (see Connection.close; `pagehide`, not
  // `unload`: keeps bfcache). Entering the back/forward cache, Chromium may still run tasks
  // of the page after `pagehide`, and none after the `freeze` that follows it (measured):
  // where there is a `freeze` event, the page says goodbye then.
  if (typeof realm.addEventListener === 'function') {
    let caching = false; // entering the back/forward cache, not frozen yet
    const doc = realm.document;
    const freezes = typeof doc === 'object' && 'onfreeze' in doc;
    realm.addEventListener('pagehide', (event) => {
      caching = event.persisted;
      if (!caching || !freezes) connection.close(caching && 2);
    });
    // A tab whose lock worker serves the origin (where SharedWorker is missing: js/client/tab-host.js)
    // ends it as it freezes, and says goodbye too: its contexts could not re-declare to the
    // next serving worker, which would wait for them (src/service/tabs.rs). What they held
    // or waited for is lost, as entering the cache; they connect again when resumed.
    let resumes = false;
    if (freezes) {
      doc.addEventListener('freeze', () => {
        // (The tab's worker first: a database closed while it watches it would reach it
        // frozen, and Chromium evicts the page from the cache for it: measured.)
        endHost();
        if (caching || hosting) connection.close(true), (resumes = !caching);
        caching = false;
      });
      doc.addEventListener('resume', () => {
        if (resumes) (connection.suspended_ = resumes = false), start();
      });
    }
    // Restored from the back/forward cache: a client again, connected as at install (still
    // connected if it was never frozen).
    realm.addEventListener('pageshow', (event) => {
      caching = false;
      if (event.persisted) {
        connection.suspended_ = false;
        unpark();
        start();
      }
    });
  }
  start();
  return connection;
}

// A global of the realm, as WebIDL defines interface objects: writable, configurable, not
// enumerable.
const defineGlobal = (realm, name, value) => Object.defineProperty(realm, name, { value, writable: true, configurable: true });

// Workers created from here ask this context for their link to the lock worker: dedicated
// ones through their Worker object, shared and service workers through a window (js/
// couriers.js). A page answers its Workers and SharedWorkers (wrapped: the wrapper listens
// before the page's own listeners, and hides the request from them, without starting a
// SharedWorker's port) and its origin's service workers (navigator.serviceWorker's message
// event, which does not start the client message queue either). `current()` gives the
// realm's connection.
function adoptWorkers(realm, current) {
  // (A dedicated worker says its clientId, as `child`; one whose link is relayed sends its
  // messages so too: Connection's relay_.)
  const answer = (event) => {
    const { data, ports } = event;
    if (data && (data[CONNECT] === 2 || (data[CONNECT] === 1 && ports.length === 1))) {
      event.stopImmediatePropagation();
      current().adopt_(ports, data);
    }
  };
  // Each wrapped by a subclass that adds the listener to each worker it makes, named and
  // sized as the platform's constructor whatever a minifier called it. (A Proxy of the
  // constructor would look more native still, but with it a worker's own worker failed to
  // start now and then in Firefox ESR, in two full test runs of three.) The mark, not
  // enumerable, keeps the native constructor: a second copy of the package wraps it no more,
  // and the lock worker is started with the native SharedWorker.
  for (const name of ['Worker', 'SharedWorker']) {
    const Native = realm[name];
    if (typeof Native === 'function' && !Native[CONNECT]) {
      const Wrapped = class extends Native {
        constructor(...args) {
          super(...args);
          (this.port || this).addEventListener('message', answer); // (a SharedWorker's port)
        }
      };
      for (const [key, value] of [['name', name], ['length', 1], [CONNECT, Native]]) {
        Object.defineProperty(Wrapped, key, { value });
      }
      defineGlobal(realm, name, Wrapped);
    }
  }
  if (!realm.document) return; // only windows are asked by service workers
  let container;
  try {
    container = realm.navigator.serviceWorker; // throws in opaque origins
  } catch {
    return;
  }
  if (container && typeof container.addEventListener === 'function') {
    container.addEventListener('message', answer);
  }
}

// Runtimes without a navigator (Node before 21) get one for the local lock manager: a plain
// object with a prototype of its own, where the `locks` getter goes.
function newNavigator() {
  const nav = Object.create(Object.create(Object.prototype, { [Symbol.toStringTag]: { value: 'Navigator' } }));
  Object.defineProperty(globalThis, 'navigator', { value: nav, writable: true, enumerable: true, configurable: true });
  return nav;
}

export function makeApi(defaults) {
  function createLockManager(options = {}) {
    return newLockManager(connect(defaults, options));
  }

  function install(options = {}) {
    let nav = globalThis.navigator;
    if (!options.force && nav && nav.locks) return nav.locks;
    // No lock worker to reach (Node, SSR) and no in-realm service asked for: nothing to do,
    // but in a window (no SharedWorker: older Safari and Android) its dedicated workers,
    // whose polyfill asks it for a port, are told there is none.
    if (!options.local && !Connection.reachable_()) {
      if (typeof document === 'object') {
        console.warn('web-locks polyfill: not installed: no SharedWorker, and no BroadcastChannel or IndexedDB to do without it');
        const connection = connect(defaults, options);
        adoptWorkers(globalThis, () => connection);
      }
      return (nav && nav.locks) || undefined;
    }
    if (!nav) nav = newNavigator();
    const connection = connect(defaults, options);
    const manager = newLockManager(connection);
    // (Frames and popups the page reaches, with their own: each a client of the lock worker
    // of its own, for its document, made when first asked for, with the interfaces of its
    // realm; a window of such a frame that navigates to another same-origin document is kept
    // for it, js/client/realms.js. `R`: the realm's, realmOf.)
    const installIn = (realm, nav, current, R = home) => {
      adoptWorkers(realm, () => current()[0]);
      defineLocks(realm, nav, R, () => current()[1]);
      if (!options.local && realm.document) {
        reachRealms(realm, (frame, nav) => {
          const R = realmOf(frame);
          let state;
          installIn(frame, nav, () => {
            // (A connection knows the document it was made for. A window the frame has left
            // for another, of a realm of its own, keeps its last: `frame`, a WindowProxy, is
            // the other's now.)
            if (!state || (state[0].doc_ != frame.document && frame.JSON == R.JSON)) {
              const own = connect(defaults, options, frame, connection);
              state = [own, newLockManager(own, R)];
            }
            return state;
          }, R);
        }, options.force);
      }
    };
    installIn(globalThis, nav, () => [connection, manager]);
    return manager;
  }

  return { install, createLockManager, LockManager, Lock };
}

// navigator.locks, and `R`'s LockManager and Lock (realmOf), in `realm`; `current()` gives
// its lock manager.
function defineLocks(realm, nav, R, current) {
  const proto = Object.getPrototypeOf(nav);
  // A getter named 'get locks', as WebIDL makes it, that refuses receivers other than a
  // Navigator (or WorkerNavigator): the context's own navigator, or one the prototype's
  // native userAgent getter accepts: another realm's, whose own lock manager it gives (§3.1:
  // its relevant settings object's), or one of this realm's (happy-dom's windows share
  // one Navigator class), this manager. (Without such a getter, only the context's own
  // passes.)
  const { get } = Object.getOwnPropertyDescriptor(
    {
      get locks() {
        if (this !== nav && !branded(this, () => proto, 'userAgent')) throw new R.TypeError('Illegal invocation');
        return proto.isPrototypeOf(this) ? current() : this.locks;
      },
    },
    'locks',
  );
  Object.defineProperty(proto, 'locks', { get, enumerable: true, configurable: true });
  defineGlobal(realm, 'LockManager', R.LockManager);
  defineGlobal(realm, 'Lock', R.Lock);
}
