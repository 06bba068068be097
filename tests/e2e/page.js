// In-page helpers for the end-to-end tests: hold locks until told, and log what happens.
const impl = new URLSearchParams(location.search).get('impl');
if (impl === 'polyfill') await import('/dist/auto.js');

const releases = new Map();
const T = {
  impl,
  log: [],
  // Requests `name`; the callback logs `granted:<key>` (or `null:<key>`), then holds the lock
  // until T.release(key). The request's promise logs `resolved:<key>:<value>` or
  // `rejected:<key>:<error name>`.
  hold(key, name, options = {}) {
    if (options.abortable) {
      const controller = new AbortController();
      T.controllers[key] = controller;
      options = { ...options, signal: controller.signal };
      delete options.abortable;
    }
    navigator.locks
      .request(name, options, (lock) => {
        T.log.push(lock ? `granted:${key}:${lock.name}:${lock.mode}` : `null:${key}`);
        if (!lock) return `none-${key}`;
        return new Promise((resolve) => releases.set(key, () => resolve(`done-${key}`)));
      })
      .then(
        (value) => T.log.push(`resolved:${key}:${value}`),
        (error) => T.log.push(`rejected:${key}:${error && error.name}:${error instanceof DOMException}`),
      );
  },
  release(key) {
    releases.get(key)();
    releases.delete(key);
  },
  abort(key) {
    T.controllers[key].abort();
  },
  controllers: {},
  workers: {},
  // A dedicated worker running tests/e2e/worker.js; its log lines land in T.log.
  spawn(key) {
    const worker = new Worker(`/tests/e2e/worker.js?impl=${impl}`);
    worker.onmessage = (event) => T.log.push(event.data);
    T.workers[key] = worker;
  },
  tell(key, message) {
    T.workers[key].postMessage(message);
  },
  terminate(key) {
    T.workers[key].terminate();
  },
  has(entry) {
    return T.log.includes(entry);
  },
  // query() reduced to comparable rows: [name, mode, clientId].
  async query() {
    const { held, pending } = await navigator.locks.query();
    const row = (i) => [i.name, i.mode, i.clientId];
    return { held: held.map(row), pending: pending.map(row) };
  },
  ready: true,
};
window.T = T;
