// The Rollup plugin (`navigator-locks-polyfill/rollup`): `plugins: [nodeResolve(),
// webLocks()]`, ES module output. Rollup keeps the polyfill's
// `new URL('./web-locks-worker.js', import.meta.url)` as it is: the plugin emits the lock
// worker and its .wasm at the output folder's root, next to the chunks (Rollup's default
// entryFileNames and chunkFileNames), where that URL points at run time. (Chunks in
// subfolders: pass workerUrl and wasmUrl instead.)
import { ASSETS, asset } from './assets.js';

export default function webLocks() {
  return {
    name: 'navigator-locks-polyfill',
    generateBundle() {
      for (const fileName of ASSETS) this.emitFile({ type: 'asset', fileName, source: asset(fileName) });
    },
  };
}

export { webLocks };
