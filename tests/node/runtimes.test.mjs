// Importing the entries never throws in the server-side runtimes apps run on (SSR, scripts):
// Node 18, 22 and 24, Bun and Deno (tests/node/runtimes.mjs: npm packages at fixed versions,
// fetched by setup and run offline with npx). In each: install() — with no lock worker to
// reach — returns the runtime's own navigator.locks (Node 24 and Deno have one: README
// "Browser and context support"), or undefined, and so does install({ local: true }) where
// there is one; then every ESM entry imports and both classic scripts evaluate; where there
// is one, `force` replaces it.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RUNTIMES } from './runtimes.mjs';

const DIST = resolve(import.meta.dirname, '../../dist');
const at = (file) => JSON.stringify(pathToFileURL(join(DIST, file)).href);

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
    native: own !== undefined,
  };
  if (own) result.local = install({ local: true }) === own;
  // The other entries (local.js last: it installs this realm's own lock manager).
  (0, eval)(await read(${at('web-locks-extras.global.js')}));
  result.extras = typeof globalThis.WebLocksPolyfill.findDeadlocks;
  const imported = [];
  for (const entry of [${['scopes.js', 'deadlocks.js', 'vite.js', 'local.js'].map(at)}]) {
    await import(entry);
    imported.push(entry.split('/').pop());
  }
  result.imported = imported.join();
  // (The local entry, too, leaves a runtime's own in place.)
  result.afterLocal = globalThis.navigator.locks === own;
  // There, install({ local: true, force: true }) puts the package's in place of the runtime's,
  // and another local lock manager excludes it.
  if (own) {
    const forced = install({ local: true, force: true });
    const other = createLockManager({ local: true });
    result.forced = forced === navigator.locks && forced !== own &&
      (await forced.request('x', () => other.request('x', { ifAvailable: true }, (lock) => lock === null)));
  }
  console.log(JSON.stringify(result));
  // (Deno 2.9 keeps running once a message has gone through a MessagePort, even an unref'd
  // one, until it is closed: docs/architecture.md "In-process lock manager".)
  if (typeof Deno === 'object') Deno.exit(0);
`;

for (const [runtime, [[pkg, ...args], native]] of Object.entries(RUNTIMES)) {
  it(`${runtime}: every entry imports; install() leaves the runtime as it is`, async () => {
    const script = join(mkdtempSync(join(tmpdir(), 'web-locks-runtime-')), 'check.mjs');
    writeFileSync(script, SCRIPT);
    const out = await new Promise((ok, fail) => {
      execFile('npx', ['--offline', '-y', pkg, ...args, script], { timeout: 240_000 }, (error, stdout, stderr) => {
        if (error) return fail(new Error(`${error.message}\n${stderr}`));
        ok(JSON.parse(stdout.trim().split('\n').pop()));
      });
    });
    assert.deepEqual(out, {
      install: true,
      global: true,
      manager: 'object',
      native,
      afterLocal: native,
      ...(native && { local: true, forced: true }),
      extras: 'function',
      imported: 'scopes.js,deadlocks.js,vite.js,local.js',
    });
  });
}
