// Assembles dist/ from pkg/ (wasm-pack output) and js/, with esbuild. Every shipped script is
// compiled for the oldest browsers the README claims, so syntax they lack fails the build.
import { build, transform } from 'esbuild';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';

export const TARGETS = ['chrome69', 'edge79', 'firefox91', 'safari15'];
const common = { bundle: true, minify: true, target: TARGETS, legalComments: 'none', logLevel: 'warning' };

await rm('dist', { recursive: true, force: true });
await mkdir('dist');

// The worker: wasm-bindgen's classic glue + our entry, one classic script.
const glue = await readFile('pkg/web_locks.js', 'utf8');
const entry = await readFile('js/worker-entry.js', 'utf8');
const worker = await transform(glue + '\n' + entry, { minify: true, target: TARGETS, legalComments: 'none' });
await writeFile('dist/web-locks-worker.js', worker.code);
await copyFile('pkg/web_locks_bg.wasm', 'dist/web_locks_bg.wasm');

// The in-realm service ({ local: true }): the same glue as an ES module, loaded on demand by
// the entries. Its tail is not minified, so that its bundler hints survive.
const glueModule = await transform(glue, { minify: true, target: TARGETS, legalComments: 'none' });
const service = await transform(await readFile('js/local-service.js', 'utf8'), { format: 'esm', target: TARGETS });
await writeFile('dist/web-locks-service.js', glueModule.code + service.code);

// The entries that load the service do so by import(): it stays a file (a chunk) of its own.
const lazy = ['./web-locks-service.js'];
await build({ ...common, entryPoints: ['js/index.js'], format: 'esm', outfile: 'dist/index.js', external: lazy });
// auto.js and local.js import ./index.js rather than a copy: one LockManager class per page.
for (const [entry, out] of [['auto', 'auto'], ['local-entry', 'local']]) {
  await build({ ...common, entryPoints: [`js/${entry}.js`], format: 'esm', outfile: `dist/${out}.js`, external: ['./index.js'] });
}
await build({ ...common, entryPoints: ['js/global.js'], format: 'iife', outfile: 'dist/web-locks.global.js' });
// The Vite plugin runs in Node (Vite's config): plain ESM, no browser targets.
await build({ ...common, entryPoints: ['js/vite.js'], format: 'esm', outfile: 'dist/vite.js', target: 'node18', minify: false });
