// The classic-script build: installs where missing, exposes globalThis.WebLocksPolyfill.
import { findDeadlocks } from './deadlocks.js';
import { makeApi } from './install.js';
import { queryScopes, requestAll } from './scopes.js';

// document.currentScript is only set while this script first runs; location.href is read
// later, and only if a SharedWorker is constructed (never in a dedicated worker, whose
// blob: URL, for one, could not serve as a base).
const script = typeof document !== 'undefined' && document.currentScript;
const src = script && script.src;
const base = () => src || location.href;

const api = makeApi({
  workerUrl: () => new URL('./web-locks-worker.js', base()),
  wasmUrl: () => new URL('./web_locks_bg.wasm', base()),
  service: () => import(new URL('./web-locks-service.js', base()).href),
});
globalThis.WebLocksPolyfill = { ...api, findDeadlocks, requestAll, queryScopes };
api.install();
