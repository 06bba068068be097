// The packed package in a Vite project (tests/apps/vite, configured as README says: the
// plugin): built (hashed assets, a base path) and served by the dev server (which
// pre-bundles dependencies); in both, two tabs on two pages exclude each other through one
// lock worker URL. The dev server's SSR loads the entries without effect.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { launch } from './harness/browser.mjs';
import { twoTabsExclude } from './harness/apps.mjs';
import { serve } from '../../scripts/serve.mjs';
import { ROOT, fixtureApp, run } from '../fixtures.mjs';

let app;
let env;
before(async () => {
  app = fixtureApp(join(ROOT, 'test-output/vite'), 'vite');
  env = await launch();
});
after(() => env.close());

describe('vite build', () => {
  let server;
  let origin;
  before(async () => {
    run(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--base', '/app/', '--logLevel', 'warn'], app);
    server = await serve(0, { root: join(app, 'dist'), base: '/app/' });
    origin = `http://127.0.0.1:${server.address().port}`;
  });
  after(() => new Promise((ok) => server.close(ok)));

  it('emits the worker and the wasm as hashed assets', () => {
    const assets = readdirSync(join(app, 'dist/assets'));
    assert.ok(assets.some((f) => /^web-locks-worker-.+\.js$/.test(f)), assets.join());
    assert.ok(assets.some((f) => /^web_locks_bg-.+\.wasm$/.test(f)), assets.join());
  });

  it('two tabs on two pages of the built app exclude each other through one worker', async () => {
    const worker = await twoTabsExclude(env.browser, [`${origin}/app/`, `${origin}/app/other/`]);
    assert.match(worker, /\/app\/assets\/web-locks-worker-[^/]+\.js#wasm=.*%2Fapp%2Fassets%2Fweb_locks_bg-/);
  });
});

// An app that raises the inline limit above the worker's and the wasm's size: the plugin
// keeps both files out of it (a data: URL lock worker would have an opaque origin).
describe('vite build with a raised assetsInlineLimit', () => {
  let server;
  let origin;
  before(async () => {
    const args = ['build', '--base', '/app/', '--assetsInlineLimit', '1000000', '--outDir', 'dist-inline'];
    run(process.execPath, ['node_modules/vite/bin/vite.js', ...args, '--logLevel', 'warn'], app);
    server = await serve(0, { root: join(app, 'dist-inline'), base: '/app/' });
    origin = `http://127.0.0.1:${server.address().port}`;
  });
  after(() => new Promise((ok) => server.close(ok)));

  it('still emits the worker and the wasm as files; two tabs exclude each other', async () => {
    const assets = readdirSync(join(app, 'dist-inline/assets'));
    assert.ok(assets.some((f) => /^web-locks-worker-.+\.js$/.test(f)), assets.join());
    assert.ok(assets.some((f) => /^web_locks_bg-.+\.wasm$/.test(f)), assets.join());
    const worker = await twoTabsExclude(env.browser, [`${origin}/app/`, `${origin}/app/other/`]);
    assert.match(worker, /\/app\/assets\/web-locks-worker-[^/]+\.js#wasm=.*%2Fapp%2Fassets%2Fweb_locks_bg-/);
  });
});

describe('vite dev server', () => {
  let server;
  before(async () => {
    const { createServer } = await import(join(app, 'node_modules/vite/dist/node/index.js'));
    server = await createServer({ root: app, server: { host: '127.0.0.1', port: 0 }, logLevel: 'warn' });
    await server.listen();
  });
  after(() => server.close());

  it('two tabs on two pages exclude each other; the worker is served from the package', async () => {
    const origin = server.resolvedUrls.local[0].replace(/\/$/, '');
    const worker = await twoTabsExclude(env.browser, [`${origin}/`, `${origin}/other/`]);
    assert.equal(
      worker,
      `${origin}/node_modules/navigator-locks-polyfill/dist/web-locks-worker.js#wasm=` +
        encodeURIComponent(`${origin}/node_modules/navigator-locks-polyfill/dist/web_locks_bg.wasm`),
    );
  });

  it('SSR (ssrLoadModule): the entries import, install() does nothing', async () => {
    const module = await server.ssrLoadModule('/ssr.js');
    assert.equal(module.installed, undefined);
    assert.equal(module.navigatorType, 'undefined');
    const error = await module.manager.query().catch((e) => e);
    assert.equal(error.name, 'NotSupportedError');
  });
});

// The same app served without the plugin (no config file): Vite's dependency optimizer moves
// the package's modules to node_modules/.vite/deps/, where the worker is not; every request
// rejects, and the error says which plugin fixes it.
describe('vite dev server without the plugin', () => {
  let server;
  before(async () => {
    const { createServer } = await import(join(app, 'node_modules/vite/dist/node/index.js'));
    server = await createServer({ root: app, configFile: false, server: { host: '127.0.0.1', port: 0 }, logLevel: 'silent' });
    await server.listen();
  });
  after(() => server.close());

  it("a request rejects with an error that names the plugin", async () => {
    const origin = server.resolvedUrls.local[0].replace(/\/$/, '');
    const context = await env.browser.newContext();
    await context.addInitScript(() => delete Navigator.prototype.locks);
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/`);
      await page.waitForFunction(() => window.T && window.T.ready, null, { timeout: 60_000 });
      const outcome = await page.evaluate(() => navigator.locks.request('x', () => 'granted').catch((e) => `${e.name}: ${e.message}`));
      assert.match(outcome, /^InvalidStateError: the lock worker failed to start \(.*\/\.vite\/deps\/web-locks-worker\.js.*\): Vite needs the plugin navigator-locks-polyfill\/vite$/);
    } finally {
      await context.close();
    }
  });
});
