// `node build.mjs`: a Rollup project's build as the README shows it: node-resolve and the
// package's plugin, ES module output into dist/. Prints the output files.
import { rollup } from 'rollup';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { readdirSync } from 'node:fs';
import webLocks from 'navigator-locks-polyfill/rollup';

const bundle = await rollup({ input: 'main.js', plugins: [nodeResolve(), webLocks()] });
await bundle.write({ dir: 'dist', format: 'es' });
await bundle.close();
console.log(JSON.stringify(readdirSync('dist').sort()));
