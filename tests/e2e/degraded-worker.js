// A lock worker in a degraded environment (the query string says which), for
// tests/e2e/edges.test.mjs. A fault inside it (`fault`, below), or its IndexedDB unusable in one way: the loader
// (js/worker/worker-entry.js) must still serve — welcoming without a lifeline, surveying nothing —
// and the worker must serve its clients unwatched. `streaming-fails`: the wasm cannot be
// compiled while streaming (as when a server sends it with another MIME type): the glue
// compiles it from its bytes. `wasm-fails-once`: see below.
const mode = location.search.slice(1);
// `fault`: reading the name `fault` throws, inside the wasm (as a bug there would).
if (mode === 'fault') {
  const charCodeAt = String.prototype.charCodeAt;
  String.prototype.charCodeAt = function (at) {
    if (String(this) === 'fault') throw new Error('injected fault');
    return charCodeAt.call(this, at);
  };
}
if (mode === 'streaming-fails') {
  WebAssembly.instantiateStreaming = () => Promise.reject(new TypeError('Incorrect response MIME type'));
}
// `wasm-fails-once`: the first load of the wasm fails (both ways the glue compiles it), as
// when the network is down; later ones work. It fails once the first page has connected (a
// task after its `connect`, which the loader has then kept): a load that failed before
// would be tried again at that connection, and serve it (as the loader does; measured once
// in a loaded CI run, where the connection came late).
if (mode === 'wasm-fails-once') {
  // (Or, a tab's lock worker where SharedWorker is missing, once its page has told it
  // anything: its first connection may go over BroadcastChannel.)
  const connected = new Promise((resolve) => {
    for (const type of ['connect', 'message']) addEventListener(type, () => setTimeout(resolve, 0), { once: true });
  });
  for (const how of ['instantiateStreaming', 'instantiate']) {
    const real = WebAssembly[how];
    let failed = false;
    WebAssembly[how] = (...args) =>
      failed ? real(...args) : ((failed = true), connected.then(() => Promise.reject(new TypeError('offline'))));
  }
}
const real = self.indexedDB;
let factory;
if (mode === 'throws') {
  factory = {
    open() {
      throw new DOMException('blocked', 'SecurityError');
    },
    databases: () => real.databases(),
  };
} else if (mode === 'fails') {
  // Every open is of a database at a lower version than it has: an error event.
  real.open('degraded-higher', 2);
  factory = { open: () => real.open('degraded-higher', 1), databases: () => real.databases() };
} else if (mode === 'no-databases') {
  factory = { open: (name, version) => real.open(name, version), deleteDatabase: (name) => real.deleteDatabase(name) };
}
// (`missing`: no IndexedDB at all.)
if (factory || mode === 'missing') {
  Object.defineProperty(self, 'indexedDB', { value: factory, configurable: true });
}
importScripts('/dist/web-locks-worker.js');
