// The packed package, installed into a tiny app and bundled by Vite (hashed assets, a base
// path): the worker and the .wasm survive bundling and two tabs exclude each other.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { launch } from './browser.mjs';
import { serve } from '../../scripts/serve.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const WORK = join(ROOT, 'test-output/vite');
const APP = join(WORK, 'app');

let env;
let server;
let origin;
before(async () => {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] }).toString();
  const tarball = run('npm', ['pack', '--silent', '--pack-destination', WORK], ROOT).trim().split('\n').pop();
  cpSync(join(ROOT, 'tests/vite/app'), APP, { recursive: true });
  writeFileSync(
    join(APP, 'package.json'),
    JSON.stringify({ private: true, type: 'module', dependencies: { 'web-locks-polyfill': `file:../${tarball}` } }),
  );
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--silent'], APP);
  run(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--base', '/app/', '--logLevel', 'warn'], APP);
  server = await serve(0, { root: join(APP, 'dist'), base: '/app/' });
  origin = `http://127.0.0.1:${server.address().port}`;
  env = await launch();
});
after(async () => {
  await env.close();
  await new Promise((ok) => server.close(ok));
});

it('emits the worker and the wasm as hashed assets', () => {
  const assets = readdirSync(join(APP, 'dist/assets'));
  assert.ok(assets.some((f) => /^web-locks-worker-.+\.js$/.test(f)), assets.join());
  assert.ok(assets.some((f) => /^web_locks_bg-.+\.wasm$/.test(f)), assets.join());
});

it('two tabs of the bundled app exclude each other through the polyfill', async () => {
  const context = await env.browser.newContext();
  await context.addInitScript(() => {
    delete Navigator.prototype.locks;
  });
  const errors = [];
  const open = async () => {
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${origin}/app/`);
    await page.waitForFunction(() => window.T && window.T.ready);
    return page;
  };
  const [a, b] = [await open(), await open()];
  assert.deepEqual(await a.evaluate(() => [T.polyfilled, T.deadlockFinder]), [true, 'function']);
  await a.evaluate(() => T.hold('bundled'));
  await a.waitForFunction(() => T.log.includes('granted:bundled'));
  await b.evaluate(() => T.hold('bundled'));
  const state = await b.evaluate(() => T.query());
  assert.equal(state.held.length, 1);
  assert.equal(state.pending.length, 1);
  await a.evaluate(() => T.release());
  await b.waitForFunction(() => T.log.includes('granted:bundled'));
  assert.deepEqual(errors, []);
  await context.close();
});
