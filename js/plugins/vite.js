// The Vite plugin (`navigator-locks-polyfill/vite`): `plugins: [webLocks()]`. Vite's dev server
// pre-bundles dependencies into node_modules/.vite/deps/, where the polyfill's
// `new URL('./web-locks-worker.js', import.meta.url)` would point to a file that is not
// there. Kept out of the optimizer, the package is served from its own directory, so the
// worker and the .wasm are found next to it, at one URL for every page of the dev server.
// (Every entry, those that import the main one included: a pre-bundled copy of it would be
// a second package on the page.)
// Builds emit both as assets, unless `build.assetsInlineLimit` is raised above their size:
// then they would be inlined as data: URLs, and a SharedWorker from a data: URL has an
// opaque origin (no IndexedDB: no crash detection; refused by a `worker-src 'self'` CSP).
// The plugin keeps those two files out of inlining, and leaves the rest to the app's limit.
const ENTRIES = ['', '/auto', '/local', '/scopes', '/deadlocks'];
const OWN = /[\\/](web-locks-worker\.js|web_locks_bg\.wasm)$/;

export default function webLocks() {
  return {
    name: 'navigator-locks-polyfill',
    config(user) {
      const limit = user.build && user.build.assetsInlineLimit;
      const inline = (file, content) => {
        if (OWN.test(file)) return false;
        if (typeof limit === 'function') return limit(file, content);
        return limit === undefined ? undefined : content.length < Number(limit); // (undefined: Vite's default)
      };
      return {
        optimizeDeps: { exclude: ENTRIES.map((entry) => 'navigator-locks-polyfill' + entry) },
        build: { assetsInlineLimit: inline },
      };
    },
  };
}

export { webLocks };
