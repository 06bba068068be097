// `node build.mjs`: an esbuild project's build as the README shows it: the package's plugin,
// ES module output into dist/. Prints the output files.
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';
import webLocks from 'navigator-locks-polyfill/esbuild';

await build({
  entryPoints: ['main.js'],
  bundle: true,
  format: 'esm',
  minify: true,
  outdir: 'dist',
  plugins: [webLocks()],
  logLevel: 'warning',
});
console.log(JSON.stringify(readdirSync('dist').sort()));
