// The classic-script build: installs where missing, exposes globalThis.WebLocksPolyfill.
import { findDeadlocks } from './deadlocks.js';
import { makeApi } from './install.js';

const script = typeof document !== 'undefined' && document.currentScript;
const base = script && script.src ? script.src : location.href;

const api = makeApi({
  workerUrl: () => new URL('./web-locks-worker.js', base),
  wasmUrl: () => new URL('./web_locks_bg.wasm', base),
});
globalThis.WebLocksPolyfill = { ...api, findDeadlocks };
api.install();
