// A lock worker whose IndexedDB is unusable in one way (the query string says which), for
// tests/e2e/edges.test.mjs: the loader (js/worker-entry.js) must still serve — welcoming
// without a lifeline, surveying nothing — and the worker must serve its clients unwatched.
const mode = location.search.slice(1);
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
Object.defineProperty(self, 'indexedDB', { value: factory, configurable: true });
importScripts('/dist/web-locks-worker.js');
