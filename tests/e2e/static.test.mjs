// The packed package on plain static pages, no bundler: one page with an import map and
// bare specifiers (tests/apps/shared/main.js), one importing the files by path in an inline
// `<script type="module">`, one with the classic script. Two tabs, on two of them, exclude
// each other through one worker URL.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launch } from './harness/browser.mjs';
import { twoTabsExclude } from './harness/apps.mjs';
import { serve } from '../../scripts/serve.mjs';
import { ROOT, fixtureApp } from '../fixtures.mjs';

let env;
let server;
let origin;
before(async () => {
  const app = fixtureApp(join(ROOT, 'test-output/static'), 'static');
  server = await serve(0, { root: app });
  origin = `http://127.0.0.1:${server.address().port}`;
  env = await launch();
});
after(async () => {
  await env.close();
  await new Promise((ok) => server.close(ok));
});

const worker = () => {
  const dist = `${origin}/node_modules/navigator-locks-polyfill/dist/`;
  return `${dist}web-locks-worker.js#wasm=${encodeURIComponent(`${dist}web_locks_bg.wasm`)}`;
};

it('a page with an import map and one without exclude each other through one worker', async () => {
  assert.equal(await twoTabsExclude(env.browser, [`${origin}/`, `${origin}/other/`]), worker());
});

it('a page with the classic script and a module page exclude each other through one worker', async () => {
  assert.equal(await twoTabsExclude(env.browser, [`${origin}/classic/`, `${origin}/`]), worker());
});
