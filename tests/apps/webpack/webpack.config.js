// A webpack 5 project's config: nothing for the polyfill (webpack emits the worker and the
// .wasm referenced by `new URL(..., import.meta.url)` as assets).
import { fileURLToPath } from 'node:url';

export default {
  mode: 'production',
  entry: './main.js',
  output: { path: fileURLToPath(new URL('./dist', import.meta.url)), filename: 'main.js', clean: true },
};
