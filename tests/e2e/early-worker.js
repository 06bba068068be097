// A dedicated worker whose first action is a lock request (tests/e2e/service-edges.test.mjs):
// `early-worker.js?impl=<native|polyfill>&name=<name>` requests `name`, posts `early-granted`
// when granted and holds the lock until it is terminated.
const params = new URL(location.href).searchParams;
if (params.get('impl') === 'polyfill') {
  delete WorkerNavigator.prototype.locks;
  delete self.LockManager;
  delete self.Lock;
  importScripts('/dist/web-locks.global.js');
}
navigator.locks.request(params.get('name'), () => {
  postMessage('early-granted');
  return new Promise(() => {});
});
