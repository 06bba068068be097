// One context's link to the lock worker: a MessagePort speaking the protocol documented in
// src/protocol.rs. Messages posted before the worker has loaded wait in the port, so the
// first synchronous request() of a page is never lost.
//
// Lifecycle (README "Lifecycle"): the context keeps an IndexedDB database open for as long as
// it lives, so the worker notices its end even without pagehide; it watches the worker's
// own database the same way, and when the worker dies it starts a new one and re-declares
// what it holds and waits for.

import { domException } from './errors.js';

const VERSION = 1;
const WORKER_NAME = 'web-locks-polyfill';
// A dedicated worker asks its parent for a link with a message carrying this key.
export const CONNECT = '__webLocksPolyfillConnect';
let dbCount = 0;

export class Connection {
  constructor(workerUrl, clientId) {
    this.workerUrl = workerUrl;
    this.clientId = clientId;
    this.port = null;
    this.nextId = 0;
    // id -> handler: { granted, notAvailable, stolen, snapshot, error, redeclare, lost }
    this.handlers = new Map();
    // This context's own database (name, and the open connection once open).
    this.dbName = null;
    this.db = null;
    this.retry = 0;
  }

  // A fresh request id (below 2^32, never 0, not in use by a live request).
  newId() {
    do {
      this.nextId = (this.nextId + 1) >>> 0;
    } while (this.nextId === 0 || this.handlers.has(this.nextId));
    return this.nextId;
  }

  // Sends `message` for request `id`, whose replies go to `handler`.
  send(id, message, handler) {
    this.handlers.set(id, handler);
    this.post(message);
  }

  // Forgets a request: no further replies are expected for it.
  done(id) {
    this.handlers.delete(id);
  }

  post(message, transfer) {
    this.open();
    message.v = VERSION;
    this.port.postMessage(message, transfer || []);
  }

  open() {
    if (this.port) return;
    this.attach();
    if (this.db) this.post({ type: 'watch', db: this.dbName });
    else if (!this.dbName) this.watchMe();
  }

  // A new port to the lock worker, greeted with this client's hello.
  attach() {
    const port = this.connectPort();
    this.port = port;
    port.onmessage = (event) => this.dispatch(event.data);
    this.post({ type: 'hello', clientId: this.clientId });
    return port;
  }

  // A window (or anything with SharedWorker) connects to the lock worker itself. A dedicated
  // worker cannot construct one: it sends one end of a channel to its parent, whose
  // polyfill hands it to the lock worker (`adopt`); messages wait in the channel meanwhile.
  connectPort() {
    if (typeof SharedWorker === 'function') {
      const worker = new SharedWorker(this.workerUrl, { name: WORKER_NAME });
      worker.onerror = () => this.fail('the lock worker failed to start (' + this.workerUrl + ')');
      return worker.port;
    }
    if (typeof DedicatedWorkerGlobalScope === 'function' && self instanceof DedicatedWorkerGlobalScope) {
      const channel = new MessageChannel();
      self.postMessage({ [CONNECT]: 1 }, [channel.port2]);
      return channel.port1;
    }
    throw domException('NotSupportedError', 'web-locks polyfill: this context can reach no lock worker');
  }

  // Connects `port` (from a dedicated worker of this context) to the lock worker.
  adopt(port) {
    this.post({ type: 'adopt' }, [port]);
  }

  // Lets the worker notice this context's end even if no pagehide ever runs (a crash, a
  // terminated worker): hold a database open for as long as we live; the worker's pending
  // version upgrade of it goes through only once the browser has closed our connection.
  watchMe() {
    if (typeof indexedDB === 'undefined') return;
    // The prefix is the worker's CLIENT_DB_PREFIX (src/worker/lifeline.rs): it lists these
    // databases after a restart.
    const name = `web-locks-client-${this.clientId}-${++dbCount}`;
    this.dbName = name;
    let request;
    try {
      request = indexedDB.open(name, 1);
    } catch {
      return; // storage blocked: pagehide remains the only signal
    }
    request.onsuccess = () => {
      const db = request.result;
      db.onversionchange = null; // stay open: that is the point
      if (this.dbName !== name) {
        db.close(); // the context closed meanwhile
        indexedDB.deleteDatabase(name);
        return;
      }
      this.db = db;
      if (this.port) this.post({ type: 'watch', db: name });
    };
  }

  // The worker's `welcome` names its lifeline database: our version upgrade of it goes
  // through only when the worker has died (a SharedWorker can die with the tab that started
  // it, leaving our port silently dead).
  watchWorker(db) {
    if (!db || typeof indexedDB === 'undefined') return; // the worker has no lifeline
    const port = this.port;
    const request = indexedDB.open(db, 2);
    request.onupgradeneeded = () => {
      request.transaction.abort();
      indexedDB.deleteDatabase(db);
      if (this.port === port) this.reconnect();
    };
    request.onerror = (event) => event.preventDefault(); // the upgrade we aborted
  }

  // A new worker, and everything re-declared in request order: held locks as `reclaim`,
  // pending requests and queries as sent, then `watch`, which tells the worker we are done.
  // If no welcome comes (the new port reached a worker that was still going away, or a
  // dedicated worker's parent was itself reconnecting), it tries again.
  reconnect() {
    const old = this.port;
    this.port = null;
    old.close();
    const port = this.attach();
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.port === port && this.reconnect(), 2000);
    const ids = [...this.handlers.keys()].sort((a, b) => a - b);
    for (const id of ids) {
      const message = this.handlers.get(id).redeclare();
      if (message) this.post(message);
      else this.done(id);
    }
    if (this.db) this.post({ type: 'watch', db: this.dbName });
  }

  // §2.6: this context goes away; the worker releases its locks and drops its requests.
  // `persisted`: the page enters the back/forward cache and may come back; what it held or
  // waited for is lost (see README "Lifecycle").
  close(persisted) {
    if (!this.port) return;
    clearTimeout(this.retry);
    this.port.postMessage({ v: VERSION, type: 'goodbye' });
    this.port.close();
    this.port = null;
    const handlers = [...this.handlers.values()];
    this.handlers.clear();
    if (persisted) for (const handler of handlers) handler.lost();
    if (this.db) this.db.close();
    this.db = null;
    this.dbName = null;
  }

  dispatch(message) {
    if (!message || message.v !== VERSION) {
      console.error('web-locks: unexpected message from the lock worker', message);
      return;
    }
    if (message.type === 'welcome') {
      clearTimeout(this.retry);
      this.watchWorker(message.db);
      return;
    }
    if (message.type === 'fatal') {
      this.fail(message.message);
      return;
    }
    const handler = this.handlers.get(message.id);
    if (message.type === 'error') {
      console.error('web-locks: the lock worker refused a message: ' + message.message);
      if (handler) handler.error(domException('InvalidStateError', message.message));
      return;
    }
    const act = handler && handler[message.type];
    if (act) act.call(handler, message);
  }

  fail(reason) {
    console.error('web-locks: ' + reason);
    const handlers = [...this.handlers.values()];
    this.handlers.clear();
    for (const handler of handlers) handler.error(domException('InvalidStateError', reason));
  }
}
