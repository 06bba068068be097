// A service worker for the end-to-end tests (tests/e2e/workers.test.mjs):
// `service-worker.js?impl=<native|polyfill>`. Commands come as messages from a page and are
// answered to every window: {cmd: 'hold', key, name, delay?, timeout?} requests `name` (after
// `delay` ms; with a signal that aborts after `timeout` ms), says
// `sw-granted:<key>:<name>:<ms since the message>:<Date.now()>`, and holds it until
// {cmd: 'release', key}; {cmd: 'query', key}; {cmd: 'said', key}. The event's lifetime is
// extended until the lock is released, as an application would (event.waitUntil), unless
// `unextended`.
if (new URL(location.href).searchParams.get('impl') === 'polyfill') {
  delete WorkerNavigator.prototype.locks;
  delete self.LockManager;
  delete self.Lock;
  importScripts('/dist/web-locks.global.js');
}
const releases = {};
const said = [];
// Replies go to every window: the asking page may have gone. {cmd: 'said', key} repeats
// everything said so far (also what no window was there to hear).
async function say(text) {
  said.push(text);
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
      navigator.locks.request(data.name, data.timeout ? { signal: AbortSignal.timeout(data.timeout) } : {}, (lock) => {
        say(`sw-granted:${data.key}:${lock.name}:${Date.now() - t0}:${Date.now()}`);
        return new Promise((resolve) => (releases[data.key] = resolve));
      }),
    );
    const settled = held.then(
      () => say(`sw-resolved:${data.key}`),
      (e) => say(`sw-rejected:${data.key}:${e && e.name}`),
    );
    // {unextended: true}: the event ends at once; the lock is held by an idle worker.
    if (!data.unextended) event.waitUntil(settled);
  } else if (data.cmd === 'release') {
    releases[data.key]();
  } else if (data.cmd === 'query') {
    event.waitUntil(
      navigator.locks.query().then(({ held, pending }) =>
        say(`sw-query:${data.key}:${JSON.stringify({ held: held.map((l) => l.name), pending: pending.map((l) => l.name) })}`),
      ),
    );
  } else if (data.cmd === 'said') {
    event.waitUntil(say(`sw-said:${data.key}:${JSON.stringify(said)}`));
  }
});
