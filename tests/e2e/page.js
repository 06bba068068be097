// In-page helpers for the end-to-end tests: hold locks until told, and log what happens.
const params = new URLSearchParams(location.search);
const impl = params.get('impl');
// (`build=<name>`: the polyfill as served at /builds/<name>/, another build of the app: see
// scripts/serve.mjs; `dist=<path>`: the one whose files are there, the benchmark's baseline.)
const build = params.get('build');
const dist = params.get('dist') || '/dist';
if (impl === 'polyfill') await import(build ? `/builds/${build}/auto.js` : `${dist}/auto.js`);

const releases = new Map();
// What T.hold and T.holdAll share: `abortable` makes T.abort(key) abort the request, the
// callback logs and holds until T.release(key), the outcome is logged.
function signalOf(key, options) {
  if (!options.abortable) return options;
  const controller = new AbortController();
  T.controllers[key] = controller;
  options = { ...options, signal: controller.signal };
  delete options.abortable;
  return options;
}
const callback = (key) => (lock) => {
  T.log.push(lock ? `granted:${key}:${lock.names ? lock.names.join() : lock.name}:${lock.mode}` : `null:${key}`);
  if (!lock) return `none-${key}`;
  return new Promise((resolve) => releases.set(key, () => resolve(`done-${key}`)));
};
const track = (key, promise) =>
  promise.then(
    (value) => T.log.push(`resolved:${key}:${value}`),
    (error) => T.log.push(`rejected:${key}:${error && error.name}:${error instanceof DOMException}`),
  );
const T = {
  impl,
  log: [],
  // Requests `name`; the callback logs `granted:<key>` (or `null:<key>`), then holds the lock
  // until T.release(key). The request's promise logs `resolved:<key>:<value>` or
  // `rejected:<key>:<error name>`.
  hold(key, name, options = {}) {
    track(key, navigator.locks.request(name, signalOf(key, options), callback(key)));
  },
  // The same with the package's requestAll (docs/extensions.md): `names` a list; the log
  // says `granted:<key>:<names joined by ,>:<mode>`. `options.native`: the browser's own
  // navigator.locks as `manager` (the fallback path).
  async holdAll(key, names, options = {}) {
    const { requestAll } = await import('/dist/scopes.js');
    if (options.native) options = { ...options, manager: navigator.locks, native: undefined };
    track(key, requestAll(names, signalOf(key, options), callback(key)));
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
  // A dedicated worker running tests/e2e/worker.js (`module`: tests/e2e/module-worker.js, a
  // module worker); its log lines land in T.log.
  spawn(key, module) {
    const worker = module
      ? new Worker(`/tests/e2e/module-worker.js?impl=${impl}`, { type: 'module' })
      : new Worker(`/tests/e2e/worker.js?impl=${impl}`);
    worker.onmessage = (event) => T.log.push(event.data);
    T.workers[key] = worker;
  },
  tell(key, message) {
    T.workers[key].postMessage(message);
  },
  terminate(key) {
    T.workers[key].terminate();
  },
  // A user's SharedWorker running tests/e2e/shared-worker.js (one per origin and impl, the
  // page's unless `workerImpl`): its replies to this page land in T.log.
  shared: {},
  // (`again`: another instance of it. `start`: listened to with addEventListener and
  // port.start(), not onmessage.)
  connectShared(key, workerImpl = impl, again = '', start = false) {
    const worker = new SharedWorker(`/tests/e2e/shared-worker.js?impl=${workerImpl}${again}`);
    const log = (event) => T.log.push(event.data);
    if (start) worker.port.addEventListener('message', log), worker.port.start();
    else worker.port.onmessage = log;
    T.shared[key] = worker;
  },
  tellShared(key, message) {
    T.shared[key].port.postMessage(message);
  },
  // The service worker tests/e2e/service-worker.js: registered (and active) for
  // /tests/e2e/sw/ (no page is in its scope, so none is controlled); what it says to
  // windows lands in T.log.
  listenSW() {
    navigator.serviceWorker.onmessage = (event) => T.log.push(event.data);
  },
  async registerSW() {
    T.listenSW();
    const reg = await navigator.serviceWorker.register(`/tests/e2e/service-worker.js?impl=${impl}`, { scope: '/tests/e2e/sw/' });
    const worker = reg.installing || reg.waiting || reg.active;
    if (worker.state !== 'activated') {
      await new Promise((ok) => worker.addEventListener('statechange', () => worker.state === 'activated' && ok()));
    }
    return worker.state;
  },
  async tellSW(message) {
    const reg = await navigator.serviceWorker.getRegistration('/tests/e2e/sw/');
    reg.active.postMessage(message);
  },
  async unregisterSW() {
    const reg = await navigator.serviceWorker.getRegistration('/tests/e2e/sw/');
    return reg.unregister();
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
  // A context's end and its callback (§2.6): `tick(name)` holds `name` with a callback that
  // never ends and posts the time on BroadcastChannel `name` at every timer task; in another
  // tab, `listen(name)` requests it, noting every post heard and when it was granted (then
  // `ticked`); `lateTicks()` gives the posts made after that grant, in ms after it.
  tick(name) {
    const channel = new BroadcastChannel(name);
    const tick = () => {
      channel.postMessage(Date.now());
      setTimeout(tick, 0);
    };
    navigator.locks
      .request(name, () => {
        tick();
        return new Promise(() => {});
      })
      .catch(() => {}); // (rejects with AbortError where the page enters the bfcache)
  },
  listen(name) {
    T.heard = [];
    new BroadcastChannel(name).onmessage = ({ data }) => T.heard.push(data);
    navigator.locks.request(name, () => {
      T.ticked = Date.now();
    });
  },
  lateTicks() {
    return T.heard.filter((t) => t > T.ticked + 1).map((t) => t - T.ticked);
  },
  // The soak test: `sections` exclusive sections, each a non-atomic increment of a counter
  // in IndexedDB (read, await a tick, write), with a ledger entry per section written in
  // the same transaction as the counter. Lost updates would leave counter < ledger size.
  soakDone: 0,
  // `names`: another lock name, or a list taken with requestAll (`native`: on the browser's
  // own manager).
  async soak(tab, sections, names = 'soak', native = false) {
    const db = await soakDb();
    const { requestAll } = await import('/dist/scopes.js');
    const take = Array.isArray(names)
      ? (fn) => requestAll(names, native ? { manager: navigator.locks } : {}, fn)
      : (fn) => navigator.locks.request(names, fn);
    for (let i = 0; i < sections; i++) {
      await take(async () => {
        const n = await idb(db.transaction('c').objectStore('c').get('n'));
        await new Promise((r) => setTimeout(r, 0));
        const tx = db.transaction(['c', 'ledger'], 'readwrite');
        tx.objectStore('c').put((n || 0) + 1, 'n');
        tx.objectStore('ledger').put(1, `${tab}-${i}`);
        await new Promise((ok, fail) => ((tx.oncomplete = ok), (tx.onerror = fail)));
      });
      T.soakDone = i + 1;
    }
  },
  async soakTotals() {
    const db = await soakDb();
    const n = await idb(db.transaction('c').objectStore('c').get('n'));
    const ledger = await idb(db.transaction('ledger').objectStore('ledger').count());
    return { counter: n || 0, ledger };
  },
  ready: true,
};

const idb = (request) => new Promise((ok, fail) => ((request.onsuccess = () => ok(request.result)), (request.onerror = fail)));
function soakDb() {
  const open = indexedDB.open('soak', 1);
  open.onupgradeneeded = () => {
    open.result.createObjectStore('c');
    open.result.createObjectStore('ledger');
  };
  return idb(open);
}
window.T = T;
