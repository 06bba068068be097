// A module dedicated worker (`new Worker(url, { type: 'module' })`) that loads the polyfill as
// the README says for one: `import 'navigator-locks-polyfill/auto'` (by path here: a worker has no
// import map). Then it runs tests/e2e/worker.js's commands.
if (new URL(import.meta.url).searchParams.get('impl') === 'polyfill') {
  delete WorkerNavigator.prototype.locks;
  delete self.LockManager;
  delete self.Lock;
  await import('/dist/auto.js');
}
self.moduleWorker = true; // (worker.js: loaded already)
await import('/tests/e2e/worker.js');
