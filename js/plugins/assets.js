// The two files the lock worker needs next to the polyfill's modules in a bundle (their
// `new URL('./…', import.meta.url)`): for the esbuild and Rollup plugins (js/plugins/esbuild.js,
// js/plugins/rollup.js), which read them from the package's dist/.
import { readFileSync } from 'node:fs';

export const ASSETS = ['web-locks-worker.js', 'web_locks_bg.wasm'];

// `file`'s bytes, from the package's dist/ (where this module is bundled to).
export const asset = (file) => readFileSync(new URL(file, import.meta.url));
