// The browser floor the README gives for the wasm (Chrome 75, Firefox 79, Safari 15): the
// shipped module validates with only the post-MVP features those versions have, bulk memory
// and non-trapping float-to-int (binaryen's validator, the build's own wasm-opt).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const validate = (features) =>
  new Promise((ok) =>
    execFile(
      resolve(ROOT, 'node_modules/.bin/wasm-opt'),
      ['--mvp-features', ...features.map((f) => `--enable-${f}`), 'dist/web_locks_bg.wasm', '-o', '/dev/null'],
      { cwd: ROOT },
      (error, stdout, stderr) => ok(error ? stderr.split('\n')[0] : 'valid'),
    ),
  );

it('the wasm needs no post-MVP feature but bulk memory and non-trapping float-to-int', async () => {
  assert.equal(await validate(['bulk-memory', 'nontrapping-float-to-int']), 'valid');
  // (And it does need each of them: the check can fail.)
  assert.notEqual(await validate(['bulk-memory']), 'valid');
  assert.notEqual(await validate(['nontrapping-float-to-int']), 'valid');
});
