// The in-realm lock manager ({ local: true }) in Chromium pages: it loads the wasm by URL,
// its lock managers exclude each other within the page, and — as README warns — it does not
// coordinate tabs: two tabs each get the same lock at once.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { launch } from './harness/browser.mjs';

let env;
before(async () => {
  env = await launch();
});
after(() => env.close());

async function open(context) {
  const page = await context.newPage();
  await page.goto(`${env.origin}/tests/e2e/fixtures/local.html`);
  await page.waitForFunction(() => window.T && window.T.ready);
  return page;
}

it("a page's local lock managers exclude each other; no SharedWorker is started", async () => {
  const context = await env.browser.newContext();
  const page = await open(context);
  await page.evaluate(() => T.hold('page', 'x'));
  await page.waitForFunction(() => T.log.includes('granted:page:x'));
  await page.evaluate(() => T.hold('other', 'x'));
  const state = await page.evaluate(() => T.query('other'));
  assert.equal(state.held.length, 1);
  assert.equal(state.pending.length, 1);
  assert.notEqual(state.held[0][1], state.pending[0][1]);
  assert.equal(await page.evaluate(() => T.manager === navigator.locks), true);
  await page.evaluate(() => T.release('page', 'x'));
  await page.waitForFunction(() => T.log.includes('granted:other:x'));
  const loaded = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name.split('/').pop()));
  assert.ok(loaded.includes('web_locks_bg.wasm'), loaded.join());
  assert.ok(loaded.includes('web-locks-service.js'), loaded.join());
  assert.ok(!loaded.some((name) => name.startsWith('web-locks-worker.js')), loaded.join());
  await context.close();
});

it('two tabs with local lock managers do not exclude each other (why pages must not use it)', async () => {
  const context = await env.browser.newContext();
  const [a, b] = [await open(context), await open(context)];
  await a.evaluate(() => T.hold('page', 'shared-resource'));
  await b.evaluate(() => T.hold('page', 'shared-resource'));
  await a.waitForFunction(() => T.log.includes('granted:page:shared-resource'));
  await b.waitForFunction(() => T.log.includes('granted:page:shared-resource'));
  const [qa, qb] = [await a.evaluate(() => T.query()), await b.evaluate(() => T.query())];
  assert.equal(qa.held.length, 1);
  assert.equal(qb.held.length, 1);
  await context.close();
});
