// The in-realm lock service: install({ local: true }), createLockManager({ local: true }) and
// the `local` entry. The same wasm lock service as the SharedWorker's runs in this realm
// (dist/web-locks-service.js, loaded on first use), on one end of a MessageChannel; every
// local lock manager of the realm is a client of it on a channel of its own, adopted
// through that hub, and speaks protocol v3 exactly as with the lock worker. It coordinates
// the local lock managers of this realm only (docs/architecture.md "In-process lock manager").

import { Connection } from './connection.js';
import { domException } from './errors.js';

// The realm's service: { link (our end of the hub), failure (once it cannot serve),
// connections (while it starts: to fail if it cannot) }. Started by the first local lock
// manager, with its `wasmUrl`.
let service = null;

function startService(defaults, options) {
  if (service) return service;
  if (typeof MessageChannel !== 'function') {
    throw domException('NotSupportedError', 'web-locks polyfill: no MessageChannel in this runtime');
  }
  const base = typeof location !== 'undefined' && location.href;
  const wasm = new URL(String(options.wasmUrl || defaults.wasmUrl()), base || undefined).href;
  const hub = new MessageChannel();
  const started = { link_: hub.port1, failure_: null, connections_: new Set() };
  service = started;
  defaults
    .service()
    .then((module) => module.serveLocal(hub.port2, wasm))
    .then(
      () => {
        started.connections_ = null;
      },
      (error) => {
        started.failure_ = 'the in-realm lock service could not start (' + wasm + '): ' + error;
        for (const connection of started.connections_) connection.fail_(started.failure_);
      },
    );
  return started;
}

// Replies that answer what a request or query waited for.
const ANSWERS = ['granted', 'notAvailable', 'stolen', 'snapshot', 'error'];

class LocalConnection extends Connection {
  constructor(hub, clientId) {
    super(null, clientId);
    this.hub_ = hub;
    // Ids of requests and queries waiting for an answer: while there are some, the port
    // keeps a Node process alive (as a pending timer would); otherwise it lets it exit.
    this.awaiting_ = new Set();
  }

  static reachable_() {
    return true;
  }

  connectPort_() {
    if (this.hub_.failure_) throw domException('InvalidStateError', 'web-locks polyfill: ' + this.hub_.failure_);
    const channel = new MessageChannel();
    this.hub_.link_.postMessage({ v: 4, type: 'adopt' }, [channel.port2]);
    if (this.hub_.connections_) this.hub_.connections_.add(this);
    return channel.port1;
  }

  // No liveness database: the service lives and dies with this realm, as its clients do.
  openDatabase_() {
    this.dbState_ = 'unusable';
  }

  // The service is in this realm: it cannot die, nor a port reach a dead one.
  awaitWelcome_() {}

  attach_() {
    super.attach_();
    this.keepAlive_();
  }

  send_(id, message, handler) {
    super.send_(id, message, handler);
    this.awaiting_.add(id);
    this.keepAlive_();
  }

  post_(message, transfer) {
    if (message.type === 'abort') this.awaiting_.delete(message.id);
    super.post_(message, transfer);
    this.keepAlive_();
  }

  done_(id) {
    super.done_(id);
    this.awaiting_.delete(id);
    this.keepAlive_();
  }

  dispatch_(message) {
    if (message && ANSWERS.includes(message.type)) this.awaiting_.delete(message.id);
    super.dispatch_(message);
    this.keepAlive_();
  }

  close(persisted) {
    this.awaiting_.clear();
    super.close(persisted);
  }

  fail_(reason, port) {
    this.awaiting_.clear();
    this.keepAlive_();
    super.fail_(reason, port);
  }

  // Node's MessagePorts hold the process open while they listen: only while an answer is due.
  keepAlive_() {
    const port = this.link_;
    if (!port || typeof port.ref !== 'function') return;
    if (this.awaiting_.size > 0) port.ref();
    else port.unref();
  }
}

// A new client of the realm's service (started on first use).
export function localConnection(defaults, options, clientId) {
  return new LocalConnection(startService(defaults, options), clientId);
}
