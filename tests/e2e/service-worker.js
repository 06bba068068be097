// A service worker for the end-to-end tests (tests/e2e/workers.test.mjs):
// `service-worker.js?impl=<native|polyfill>`. Commands come as messages from a page and are
// answered to that page: {cmd: 'hold', key, name, delay?} requests `name` (after `delay` ms)
// and holds it until {cmd: 'release', key}; {cmd: 'query', key}. The event's lifetime is
// extended until the lock is released, as an application would (event.waitUntil).
if (new URL(location.href).searchParams.get('impl') === 'polyfill') {
  delete WorkerNavigator.prototype.locks;
  delete self.LockManager;
  delete self.Lock;
  importScripts('/dist/web-locks.global.js');
}
const releases = {};
const born = Date.now();
// Replies go to the page that asked, or to every window (the asking page may have gone).
async function say(text) {
  for (const client of await clients.matchAll({ type: 'window', includeUncontrolled: true })) {
    client.postMessage(text);
  }
}
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('message', (event) => {
  const data = event.data;
  if (data.cmd === 'hold') {
    const t0 = Date.now();
    const held = new Promise((resolve) => setTimeout(resolve, data.delay || 0)).then(() =>
      navigator.locks.request(data.name, data.options || {}, (lock) => {
        say(lock ? `sw-granted:${data.key}:${lock.name}:${Date.now() - t0}` : `sw-null:${data.key}`);
        return new Promise((resolve) => (releases[data.key] = resolve));
      }),
    );
    event.waitUntil(
      held.then(
        () => say(`sw-resolved:${data.key}`),
        (e) => say(`sw-rejected:${data.key}:${e && e.name}`),
      ),
    );
  } else if (data.cmd === 'release') {
    releases[data.key]();
  } else if (data.cmd === 'query') {
    event.waitUntil(
      navigator.locks.query().then(({ held, pending }) =>
        say(`sw-query:${data.key}:${JSON.stringify({ held: held.map((l) => l.name), pending: pending.map((l) => l.name) })}`),
      ),
    );
  } else if (data.cmd === 'born') {
    event.waitUntil(say(`sw-born:${born}`));
  }
});
