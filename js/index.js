// The package's main entry: installs nothing until asked.
import { makeApi } from './install.js';

export const { install, createLockManager, LockManager, Lock } = makeApi({
  workerUrl: () => new URL('./web-locks-worker.js', import.meta.url),
  wasmUrl: () => new URL('./web_locks_bg.wasm', import.meta.url),
  // The in-realm lock service ({ local: true }), loaded only when one is asked for.
  service: () => import('./web-locks-service.js'),
});

export { findDeadlocks } from './deadlocks.js';
// The non-standard extension (README "Extensions"): atomic multi-name requests, timeouts.
export { queryScopes, requestAll } from './scopes.js';
