// The classic-script build: installs where missing, exposes globalThis.WebLocksPolyfill (the
// main entry's API). The deadlock detector and the extension are a classic script of their
// own, loaded after this one where wanted (js/entries/global-extras.js).
import { makeApi } from '../client/install.js';
import { __internals } from './internals.js';

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
// `__internals` (not enumerable, not public API): for web-locks-extras.global.js.
globalThis.WebLocksPolyfill = Object.defineProperty({ ...api }, '__internals', { value: __internals });
api.install();
