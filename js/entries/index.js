// The package's main entry: installs nothing until asked.
import { makeApi } from '../client/install.js';

export const { install, createLockManager, LockManager, Lock } = makeApi({
  workerUrl: () => new URL('./web-locks-worker.js', import.meta.url),
  wasmUrl: () => new URL('./web_locks_bg.wasm', import.meta.url),
  // The in-realm lock service ({ local: true }), loaded only when one is asked for.
  service: () => import('./web-locks-service.js'),
});

// For the extension's entry, 'navigator-locks-polyfill/scopes' (js/extensions/scopes.js): not public API.
export { __internals } from './internals.js';
