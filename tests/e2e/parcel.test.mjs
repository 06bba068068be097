// The packed package in a Parcel 2 app (tests/apps/parcel), served by Parcel's dev server with
// hot reload on (its default), as a user runs it: the dev server gives each page its own
// `?<timestamp>` on the wasm's URL, so each page constructs another lock worker; two tabs on
// two pages still exclude each other (one lock manager per origin: README). And built with
// `parcel build`. The app's package.json has no configuration for the package: Parcel
// resolves its subpaths (`navigator-locks-polyfill/auto`) through their folders.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { launch } from './harness/browser.mjs';
import { twoTabsExclude } from './harness/apps.mjs';
import { serve } from '../../scripts/serve.mjs';
import { ROOT, fixtureApp, run } from '../fixtures.mjs';

// A port nothing listens on now (Parcel's dev server takes a port number).
const freePort = () =>
  new Promise((ok) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => ok(port));
    });
  });

let env;
let app;
let server;
let origin;
before(async () => {
  app = fixtureApp(join(ROOT, 'test-output/parcel'), 'parcel');
  const port = await freePort();
  const args = ['serve', 'index.html', 'other/index.html', '--port', String(port), '--dist-dir', 'dist-dev', '--no-autoinstall'];
  server = spawn(process.execPath, ['node_modules/parcel/lib/bin.js', ...args], { cwd: app, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((ok, fail) => {
    let out = '';
    server.stdout.on('data', (chunk) => (out += chunk) && /Built in/.test(out) && ok());
    server.once('exit', (code) => fail(new Error(`parcel serve exited (${code}): ${out}`)));
  });
  origin = `http://127.0.0.1:${port}`;
  env = await launch();
});
after(async () => {
  if (env) await env.close();
  if (server) server.kill();
});

describe('parcel dev server (hot reload)', () => {
  it('two tabs on two pages, each with its own lock worker URL, exclude each other', async () => {
    const workers = await twoTabsExclude(env.browser, [`${origin}/`, `${origin}/other/`], { perPage: true });
    for (const url of workers) assert.match(url, /\/web-locks-worker\.[^/]+\.js#wasm=.*web_locks_bg\.[^/]+\.wasm%3F\d+$/);
  });
});

describe('parcel build', () => {
  let built;
  let builtOrigin;
  before(async () => {
    const args = ['build', 'index.html', 'other/index.html', '--dist-dir', 'dist', '--public-url', '/app/', '--no-autoinstall'];
    run(process.execPath, ['node_modules/parcel/lib/bin.js', ...args], app);
    built = await serve(0, { root: join(app, 'dist'), base: '/app/' });
    builtOrigin = `http://127.0.0.1:${built.address().port}`;
  });
  after(() => new Promise((ok) => built.close(ok)));

  it('two tabs on two pages of the built app exclude each other through one worker', async () => {
    const worker = await twoTabsExclude(env.browser, [`${builtOrigin}/app/`, `${builtOrigin}/app/other/`]);
    assert.match(worker, /\/app\/web-locks-worker\.[^/]+\.js#wasm=.*web_locks_bg\.[^/]+\.wasm$/);
  });
});
