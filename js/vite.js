// The Vite plugin (`web-locks-polyfill/vite`): `plugins: [webLocks()]`. Vite's dev server
// pre-bundles dependencies into node_modules/.vite/deps/, where the polyfill's
// `new URL('./web-locks-worker.js', import.meta.url)` would point to a file that is not
// there. Kept out of the optimizer, the package is served from its own directory, so the
// worker and the .wasm are found next to it, at one URL for every page of the dev server.
// (Builds need nothing: Vite emits both as assets.)
// (Every entry, those that import the main one included: a pre-bundled copy of it would be
// a second package on the page.)
const ENTRIES = ['', '/auto', '/local', '/scopes', '/deadlocks'];

export default function webLocks() {
  return {
    name: 'web-locks-polyfill',
    config: () => ({ optimizeDeps: { exclude: ENTRIES.map((entry) => 'web-locks-polyfill' + entry) } }),
  };
}

export { webLocks };
