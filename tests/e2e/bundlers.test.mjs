// The packed package in an esbuild project and a Rollup project (tests/apps/esbuild,
// tests/apps/rollup), built as the README shows (each bundler's plugin from the package):
// the worker and the .wasm land next to the bundle, and two tabs on two pages exclude each
// other through one lock worker URL.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { launch } from './harness/browser.mjs';
import { twoTabsExclude } from './harness/apps.mjs';
import { serve } from '../../scripts/serve.mjs';
import { ROOT, fixtureApp, run } from '../fixtures.mjs';

let env;
before(async () => (env = await launch()));
after(() => env.close());

for (const bundler of ['esbuild', 'rollup']) {
  describe(bundler, () => {
    let files;
    let server;
    let origin;
    before(async () => {
      const app = fixtureApp(join(ROOT, `test-output/${bundler}`), bundler);
      files = JSON.parse(run(process.execPath, ['build.mjs'], app));
      cpSync(join(app, 'public'), join(app, 'dist'), { recursive: true });
      server = await serve(0, { root: join(app, 'dist'), base: '/app/' });
      origin = `http://127.0.0.1:${server.address().port}`;
    });
    after(() => new Promise((ok) => server.close(ok)));

    it('the build writes the worker and the wasm next to the bundle', () => {
      for (const file of ['main.js', 'web-locks-worker.js', 'web_locks_bg.wasm']) assert.ok(files.includes(file), files.join());
    });

    it('two tabs on two pages of the built app exclude each other through one worker', async () => {
      const worker = await twoTabsExclude(env.browser, [`${origin}/app/`, `${origin}/app/other/`]);
      assert.equal(worker, `${origin}/app/web-locks-worker.js#wasm=${encodeURIComponent(`${origin}/app/web_locks_bg.wasm`)}`);
    });
  });
}
