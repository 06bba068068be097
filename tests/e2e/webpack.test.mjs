// The packed package in a webpack 5 project (tests/apps/webpack), built in production mode
// with no configuration for the polyfill: the worker and the .wasm are emitted as assets,
// and two tabs on two pages exclude each other through one lock worker URL.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { launch } from './harness/browser.mjs';
import { twoTabsExclude } from './harness/apps.mjs';
import { serve } from '../../scripts/serve.mjs';
import { ROOT, fixtureApp, run } from '../fixtures.mjs';

let app;
let stats;
let env;
let server;
let origin;
before(async () => {
  app = fixtureApp(join(ROOT, 'test-output/webpack'), 'webpack');
  stats = JSON.parse(run(process.execPath, ['build.mjs'], app));
  cpSync(join(app, 'public'), join(app, 'dist'), { recursive: true });
  server = await serve(0, { root: join(app, 'dist'), base: '/app/' });
  origin = `http://127.0.0.1:${server.address().port}`;
  env = await launch();
});
after(async () => {
  await env.close();
  await new Promise((ok) => server.close(ok));
});

it('builds without errors or warnings; the worker, the wasm and the local service are emitted', () => {
  assert.deepEqual([stats.errors, stats.warnings], [[], []]);
  assert.equal(stats.assets.filter((name) => name.endsWith('.wasm')).length, 1, stats.assets.join());
  // main.js, the worker, and the chunk of the in-realm service (loaded only by { local: true }).
  assert.equal(stats.assets.filter((name) => name.endsWith('.js')).length, 3, stats.assets.join());
});

it('two tabs on two pages of the built app exclude each other through one worker', async () => {
  const worker = await twoTabsExclude(env.browser, [`${origin}/app/`, `${origin}/app/other/`]);
  assert.match(worker, new RegExp(`^${origin}/app/[0-9a-f]+\\.js#wasm=${encodeURIComponent(`${origin}/app/`)}[0-9a-f]+\\.wasm$`));
});
