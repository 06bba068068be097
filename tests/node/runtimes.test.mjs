// Importing the entries never throws in the server-side runtimes apps run on (SSR, scripts):
// Node 18 and 22, Bun and Deno, each fetched from the npm registry at a fixed version (npx).
// In each: install() — with no lock worker to reach — returns the runtime's own
// navigator.locks, or undefined; then every ESM entry imports and both classic scripts
// evaluate.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const DIST = resolve(import.meta.dirname, '../../dist');
const at = (file) => JSON.stringify(pathToFileURL(join(DIST, file)).href);
const RUNTIMES = {
  'Node 18': ['node@18.20.8'],
  'Node 22': ['node@22.23.3'],
  Bun: ['bun@1.4.5'],
  Deno: ['deno@2.9.6', 'run', '--allow-read'],
};

const SCRIPT = `
  const { install, createLockManager } = await import(${at('index.js')});
  await import(${at('auto.js')});
  const read = (file) => typeof Deno === 'object' ? Deno.readTextFile(new URL(file))
    : import('node:fs').then((fs) => fs.readFileSync(new URL(file), 'utf8'));
  (0, eval)(await read(${at('web-locks.global.js')}));
  const own = globalThis.navigator && globalThis.navigator.locks;
  const result = {
    install: install() === own,
    global: globalThis.WebLocksPolyfill.install() === own,
    manager: typeof createLockManager(),
  };
  // The other entries (local.js last: it installs this realm's own lock manager).
  (0, eval)(await read(${at('web-locks-extras.global.js')}));
  result.extras = typeof globalThis.WebLocksPolyfill.findDeadlocks;
  const imported = [];
  for (const entry of [${['scopes.js', 'deadlocks.js', 'vite.js', 'local.js'].map(at)}]) {
    await import(entry);
    imported.push(entry.split('/').pop());
  }
  result.imported = imported.join();
  console.log(JSON.stringify(result));
`;

for (const [runtime, [pkg, ...args]] of Object.entries(RUNTIMES)) {
  it(`${runtime}: every entry imports; install() leaves the runtime as it is`, async () => {
    const script = join(mkdtempSync(join(tmpdir(), 'web-locks-runtime-')), 'check.mjs');
    writeFileSync(script, SCRIPT);
    const out = await new Promise((ok, fail) => {
      execFile('npx', ['-y', pkg, ...args, script], { timeout: 240_000 }, (error, stdout, stderr) => {
        if (error) return fail(new Error(`${error.message}\n${stderr}`));
        ok(JSON.parse(stdout.trim().split('\n').pop()));
      });
    });
    assert.deepEqual(out, {
      install: true,
      global: true,
      manager: 'object',
      extras: 'function',
      imported: 'scopes.js,deadlocks.js,vite.js,local.js',
    });
  });
}
