// The esbuild plugin (`navigator-locks-polyfill/esbuild`): `plugins: [webLocks()]` in a
// build with `bundle: true, format: 'esm'`. esbuild bundles the polyfill's modules but does
// not follow their `new URL('./web-locks-worker.js', import.meta.url)`: the plugin writes the
// lock worker and its .wasm next to the output (the outdir, or the outfile's folder), where
// that URL points at run time. (Output files in subfolders, through entryNames or
// chunkNames: pass workerUrl and wasmUrl instead.)
// (Nothing is written where esbuild writes nothing: `write: false`, or no output path.)
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ASSETS, asset } from './assets.js';

export default function webLocks() {
  return {
    name: 'navigator-locks-polyfill',
    setup(build) {
      build.onEnd((result) => {
        const { outdir, outfile, absWorkingDir = process.cwd(), write = true } = build.initialOptions;
        const out = outdir || (outfile && dirname(outfile));
        if (!out || !write || result.errors.length) return;
        const dir = resolve(absWorkingDir, out);
        mkdirSync(dir, { recursive: true });
        for (const file of ASSETS) writeFileSync(join(dir, file), asset(file));
      });
    },
  };
}

export { webLocks };
