// A dedicated worker for the end-to-end tests: holds locks when its page tells it to. (Also
// imported by tests/e2e/module-worker.js, which loads the polyfill its own way.)
if (new URL(location.href).searchParams.get('impl') === 'polyfill' && !self.moduleWorker) {
  delete WorkerNavigator.prototype.locks;
  delete self.LockManager;
  delete self.Lock;
  importScripts('/dist/web-locks.global.js', '/dist/web-locks-extras.global.js');
}
const releases = {};
let nested = null;
onmessage = async ({ data }) => {
  if (data.cmd === 'hold') {
    navigator.locks
      .request(data.name, (lock) => {
        postMessage(`worker-granted:${data.key}:${lock.name}`);
        return new Promise((resolve) => (releases[data.key] = resolve));
      })
      .catch((error) => postMessage(`worker-rejected:${data.key}:${error.name}`));
  } else if (data.cmd === 'release') {
    releases[data.key]();
  } else if (data.cmd === 'query') {
    const { held } = await navigator.locks.query();
    postMessage(`worker-query:${held.map((l) => l.name).join(',')}`);
  } else if (data.cmd === 'polyfilled') {
    postMessage(`worker-polyfilled:${typeof WebLocksPolyfill}`);
  } else if (data.cmd === 'spawn') {
    // A worker of this worker, running this script: its log lines reach the page as
    // `nested:<line>`.
    nested = new Worker(location.href);
    nested.onmessage = (event) => postMessage(`nested:${event.data}`);
  } else if (data.cmd === 'nested') {
    nested.postMessage(data.message);
  } else if (data.cmd === 'eval') {
    // Evaluates an expression here (awaiting it) and reports its value as JSON.
    let value;
    try {
      value = await (0, eval)(data.code);
    } catch (e) {
      value = `threw:${e && e.name}:${e && e.message}`;
    }
    postMessage(`worker-eval:${data.key}:${JSON.stringify(value)}`);
  }
};
postMessage('worker-ready');
