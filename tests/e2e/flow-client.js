// The page's side of tests/e2e/flow-worker.js: `flowLocks.request(name, callback)` posts
// what the polyfill's glue posts (js/client/lock-manager.js), with none of its checks.
(() => {
  const port = new SharedWorker('/tests/e2e/flow-worker.js').port;
  const waiting = new Map(); // id -> on granted
  let next = 0;
  port.onmessage = ({ data }) => {
    const granted = waiting.get(data.id);
    waiting.delete(data.id);
    granted();
  };
  self.flowLocks = {
    request: (name, callback) =>
      new Promise((resolve) => {
        const id = ++next;
        waiting.set(id, () => {
          const done = Promise.resolve(callback());
          const settle = () => {
            port.postMessage({ v: 4, type: 'release', id });
            resolve(done);
          };
          done.then(settle, settle);
        });
        port.postMessage({ v: 4, type: 'request', id, name, mode: 'exclusive', ifAvailable: false, steal: false });
      }),
  };
})();
