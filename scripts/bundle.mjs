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

await build({ ...common, entryPoints: ['js/index.js'], format: 'esm', outfile: 'dist/index.js' });
// auto.js imports ./index.js rather than a copy: one LockManager class per page.
await build({ ...common, entryPoints: ['js/auto.js'], format: 'esm', outfile: 'dist/auto.js', external: ['./index.js'] });
await build({ ...common, entryPoints: ['js/global.js'], format: 'iife', outfile: 'dist/web-locks.global.js' });
