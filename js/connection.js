// One context's link to the lock worker: a MessagePort speaking the protocol documented in
// src/protocol.rs. Messages posted before the worker has loaded wait in the port, so the
// first synchronous request() of a page is never lost.

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
    // id -> handler: { granted, notAvailable, stolen, snapshot, error }
    this.handlers = new Map();
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
    if (handler) this.handlers.set(id, handler);
    this.post(message);
  }

  // Forgets a request: no further replies are expected for it.
  done(id) {
    this.handlers.delete(id);
  }

  post(message) {
    this.open();
    message.v = VERSION;
    this.port.postMessage(message);
  }

  open() {
    if (this.port) return;
    this.port = this.connectPort();
    this.port.onmessage = (event) => this.dispatch(event.data);
    this.port.postMessage({ v: VERSION, type: 'hello', clientId: this.clientId });
    this.watchMe(this.port);
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
    this.open();
    this.port.postMessage({ v: VERSION, type: 'adopt' }, [port]);
  }

  // Lets the worker notice this context's end even if no pagehide ever runs (a crash, a
  // terminated worker): hold a database open for as long as we live; the worker's pending
  // version upgrade of it goes through only once the browser has closed our connection.
  watchMe(port) {
    if (typeof indexedDB === 'undefined') return;
    const db = `web-locks-client-${this.clientId}-${++dbCount}`;
    let request;
    try {
      request = indexedDB.open(db, 1);
    } catch {
      return; // storage blocked: pagehide remains the only signal
    }
    request.onsuccess = () => {
      const connection = request.result;
      connection.onversionchange = null; // stay open: that is the point
      if (this.port !== port) {
        connection.close(); // closed meanwhile
        indexedDB.deleteDatabase(db);
        return;
      }
      this.db = connection;
      this.post({ type: 'watch', db });
    };
  }

  // §2.6: this context goes away; the worker releases its locks and drops its requests.
  close() {
    if (!this.port) return;
    this.port.postMessage({ v: VERSION, type: 'goodbye' });
    this.port.close();
    this.port = null;
    this.handlers.clear();
    if (this.db) this.db.close();
    this.db = null;
  }

  dispatch(message) {
    if (!message || message.v !== VERSION) {
      console.error('web-locks: unexpected message from the lock worker', message);
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
