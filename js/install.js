// Installing the polyfill: navigator.locks, LockManager and Lock, where missing (or forced).

import { CONNECT, Connection } from './connection.js';
import { Lock, LockManager, newLockManager } from './lock-manager.js';
import { localConnection } from './local.js';

// A v4 UUID; crypto.randomUUID is secure-context only, getRandomValues is not (and Node 18
// has no global crypto).
function uuid() {
  const b = new Uint8Array(16);
  if (typeof crypto !== 'undefined' && crypto.getRandomValues) crypto.getRandomValues(b);
  else for (let i = 0; i < 16; i++) b[i] = Math.random() * 256;
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// Where the worker script and its .wasm are: the entry module passes its defaults,
// `options.workerUrl` / `options.wasmUrl` override them. Resolved only when a SharedWorker is
// constructed: a dedicated worker (possibly started from a blob: URL, against which no
// relative URL resolves) gets its port from its parent and never needs them.
function workerLocation(defaults, options) {
  const worker = new URL(options.workerUrl || defaults.workerUrl(), location.href);
  const wasm = options.wasmUrl || (options.workerUrl ? null : defaults.wasmUrl());
  if (wasm) worker.hash = 'wasm=' + encodeURIComponent(new URL(wasm, location.href).href);
  return worker.href;
}

// A client of the lock worker: its own clientId, port and liveness database. install() makes
// one per context; every createLockManager() call makes another. (With `local`: a client of
// the realm's own lock service instead, js/local.js.) It connects at once where a lock
// worker can be reached, so that a later first request() neither waits for the
// connection nor depends on the tab hosting the worker being responsive (Chromium routes
// new SharedWorker connections through that tab's main thread); where none can be, or the
// connection fails now, it stays lazy and request() reports the failure.
function connect(defaults, options) {
  const connection = options.local
    ? localConnection(defaults, options, uuid())
    : new Connection(() => workerLocation(defaults, options), uuid());
  const start = () => {
    if (!connection.constructor.reachable()) return;
    try {
      connection.open();
    } catch {
      // e.g. SecurityError from SharedWorker in an opaque origin: request() will reject.
    }
  };
  // §2.6 on the unloading document cleanup steps (see Connection.close; `pagehide`, not
  // `unload`: keeps bfcache). Entering the back/forward cache, Chromium may still run tasks
  // of the page after `pagehide`, and none after the `freeze` that follows it (measured):
  // where there is a `freeze` event, the page says goodbye then.
  if (typeof addEventListener === 'function') {
    let caching = false; // entering the back/forward cache, not frozen yet
    const freezes = typeof document === 'object' && 'onfreeze' in document;
    addEventListener('pagehide', (event) => {
      caching = event.persisted;
      if (!caching || !freezes) connection.close(caching);
    });
    if (freezes) {
      document.addEventListener('freeze', () => {
        if (caching) connection.close(true);
        caching = false;
      });
    }
    // Restored from the back/forward cache: a client again, connected as at install (still
    // connected if it was never frozen).
    addEventListener('pageshow', (event) => {
      caching = false;
      if (event.persisted) start();
    });
  }
  start();
  return connection;
}

// Dedicated workers created from here get their link to the lock worker through us: wrap
// Worker so that each new worker's connect request is answered (and hidden from the page's
// own message listeners, which are added after ours).
function adoptWorkers(connection) {
  const Native = globalThis.Worker;
  if (typeof Native !== 'function' || Native[CONNECT]) return;
  class Worker extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => {
        if (event.data && event.data[CONNECT] === 1 && event.ports.length === 1) {
          event.stopImmediatePropagation();
          connection.adopt(event.ports[0]);
        }
      });
    }
  }
  Worker[CONNECT] = true;
  Object.defineProperty(globalThis, 'Worker', { value: Worker, writable: true, configurable: true });
}

// Shared and service workers ask a window for their link (js/couriers.js). A page answers
// its SharedWorkers (the wrapper listens on each one's port before the page's own listeners,
// without starting the port) and its origin's service workers (navigator.serviceWorker's
// message event, which does not start the client message queue either).
function adoptSharedAndServiceWorkers(connection) {
  const answer = (event) => {
    if (event.data && event.data[CONNECT] === 1 && event.ports.length === 1) {
      event.stopImmediatePropagation();
      connection.adopt(event.ports[0]);
    }
  };
  const Native = globalThis.SharedWorker;
  if (typeof Native === 'function' && !Native[CONNECT]) {
    class SharedWorker extends Native {
      constructor(...args) {
        super(...args);
        this.port.addEventListener('message', answer);
      }
    }
    SharedWorker[CONNECT] = Native; // the lock worker is started with the native one
    Object.defineProperty(globalThis, 'SharedWorker', { value: SharedWorker, writable: true, configurable: true });
  }
  if (typeof document === 'undefined') return; // only windows are asked by service workers
  let container;
  try {
    container = navigator.serviceWorker; // throws in opaque origins
  } catch {
    return;
  }
  if (container && typeof container.addEventListener === 'function') {
    container.addEventListener('message', answer);
  }
}

// WebIDL's brand check for an attribute of Navigator (or WorkerNavigator): `this` must be
// such an object, or the getter throws TypeError. A native brand-checked getter of the same
// prototype does the check for us; without one, only the context's own navigator passes.
const NATIVE_GETTERS = ['userAgent', 'onLine'];
function navigatorBrandCheck(proto, nav) {
  let native;
  for (const name of NATIVE_GETTERS) {
    const desc = Object.getOwnPropertyDescriptor(proto, name);
    if (desc && typeof desc.get === 'function') {
      native = desc.get;
      break;
    }
  }
  return (self) => {
    // (The context's own navigator, the usual `this`, passes without a call.)
    if (self === nav) return;
    if (native) {
      try {
        native.call(self);
        return;
      } catch {
        // not a Navigator
      }
    }
    throw new TypeError('Illegal invocation');
  };
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
    // No lock worker to reach (Node, SSR) and no in-realm service asked for: nothing to do.
    if (!options.local && !Connection.reachable()) return (nav && nav.locks) || undefined;
    if (!nav) nav = newNavigator();
    const connection = connect(defaults, options);
    const manager = newLockManager(connection);
    adoptWorkers(connection);
    adoptSharedAndServiceWorkers(connection);
    const proto = Object.getPrototypeOf(nav);
    const brandCheck = navigatorBrandCheck(proto, nav);
    // A getter named 'get locks', as WebIDL makes it, that refuses non-Navigator receivers.
    const { get } = Object.getOwnPropertyDescriptor(
      {
        get locks() {
          brandCheck(this);
          return manager;
        },
      },
      'locks',
    );
    Object.defineProperty(proto, 'locks', { get, enumerable: true, configurable: true });
    for (const [name, value] of [['LockManager', LockManager], ['Lock', Lock]]) {
      Object.defineProperty(globalThis, name, { value, writable: true, configurable: true });
    }
    return manager;
  }

  return { install, createLockManager, LockManager, Lock };
}
