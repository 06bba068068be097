// A user's SharedWorker for the end-to-end tests (tests/e2e/workers.test.mjs):
// `shared-worker.js?impl=<native|polyfill>`. It answers each connected page on that page's
// port: {cmd: 'hold', key, name} requests `name` and holds it until {cmd: 'release', key}
// ({cmd: 'hold2', ...} the same through a second lock manager, the package's
// createLockManager(), made at the top of the script with `&second=1`);
// {cmd: 'query', key}; {cmd: 'close'} ends the worker (self.close()); {cmd: 'spawn'} starts
// a dedicated worker of its own (tests/e2e/worker.js), {cmd: 'nested', message} tells it
// `message`, its lines coming back as `shared-nested:<line>`. Replies are strings.
if (new URL(location.href).searchParams.get('impl') === 'polyfill') {
  delete WorkerNavigator.prototype.locks;
  delete self.LockManager;
  delete self.Lock;
  importScripts('/dist/web-locks.global.js');
}
const second = new URL(location.href).searchParams.get('second') && WebLocksPolyfill.createLockManager();
const releases = {};
let nested = null;
onconnect = ({ ports: [port] }) => {
  const say = (text) => port.postMessage(text);
  port.onmessage = async ({ data }) => {
    if (data.cmd === 'hold' || data.cmd === 'hold2') {
      (data.cmd === 'hold' ? navigator.locks : second)
        .request(data.name, (lock) => {
          say(`shared-granted:${data.key}:${lock.name}`);
          return new Promise((resolve) => (releases[data.key] = resolve));
        })
        .then(
          () => say(`shared-resolved:${data.key}`),
          (e) => say(`shared-rejected:${data.key}:${e && e.name}`),
        );
    } else if (data.cmd === 'release') {
      releases[data.key]();
    } else if (data.cmd === 'query') {
      const { held, pending } = await navigator.locks.query();
      say(`shared-query:${data.key}:${JSON.stringify({ held: held.map((l) => l.name), pending: pending.map((l) => l.name) })}`);
    } else if (data.cmd === 'close') {
      self.close();
    } else if (data.cmd === 'spawn') {
      // (Chromium has no Worker in shared workers.)
      if (typeof Worker !== 'function') return say('shared-nested:none');
      nested = new Worker(`/tests/e2e/worker.js${location.search}`);
      nested.onmessage = (event) => say(`shared-nested:${event.data}`);
    } else if (data.cmd === 'nested') {
      nested.postMessage(data.message);
    }
  };
  say(`shared-ready:${typeof WebLocksPolyfill}`);
};
