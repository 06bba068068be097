// Shared by the suites that load a fixture app (tests/apps/: Vite, webpack, static) in
// Chromium: two tabs, on two different pages of the app, must exclude each other through
// the polyfill, with no failed request and one lock worker URL for both; the extension's
// entry must recognise the installed lock manager, and the in-realm lock manager
// ({ local: true }) must load from the app as well.
import assert from 'node:assert/strict';

// Before any script: the native API hidden (so the polyfill installs), and the URLs the
// page constructs SharedWorkers with recorded.
function instrument() {
  delete Navigator.prototype.locks;
  const Native = window.SharedWorker;
  window.__workerUrls = [];
  window.SharedWorker = class SharedWorker extends Native {
    constructor(url, options) {
      window.__workerUrls.push(new URL(url, location.href).href);
      super(url, options);
    }
  };
}

// Opens `urls[0]` and `urls[1]` in one browser context; returns the worker URL they used
// (`perPage`: the pages must use different ones, as a dev server that varies them per page
// does; the origin's one lock manager excludes them all the same: then the list).
export async function twoTabsExclude(browser, urls, { perPage = false } = {}) {
  const context = await browser.newContext();
  await context.addInitScript(instrument);
  const errors = [];
  context.on('response', (response) => {
    if (response.status() >= 400 && !response.url().endsWith('/favicon.ico')) {
      errors.push(`HTTP ${response.status()} ${response.url()}`);
    }
  });
  const open = async (url) => {
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      const where = m.location().url || '';
      if (m.type() === 'error' && !where.endsWith('/favicon.ico')) errors.push(`${m.text()} (${where})`);
    });
    await page.goto(url);
    await page.waitForFunction(() => window.T && window.T.ready, null, { timeout: 60_000 });
    return page;
  };
  try {
    const a = await open(urls[0]);
    const b = await open(urls[1]);
    assert.deepEqual(await a.evaluate(() => [T.polyfilled, T.deadlockFinder]), [true, 'function']);
    await a.evaluate(() => T.hold('app'));
    await a.waitForFunction(() => T.log.includes('granted:app'));
    await b.evaluate(() => T.hold('app'));
    const state = await b.evaluate(() => T.query());
    assert.equal(state.held.length, 1);
    assert.equal(state.pending.length, 1);
    assert.notEqual(state.held[0].clientId, state.pending[0].clientId);
    await a.evaluate(() => T.release());
    await b.waitForFunction(() => T.log.includes('granted:app'));
    // The extension's entry works on the installed manager, on both pages.
    assert.deepEqual(await Promise.all([a.evaluate(() => T.scope()), b.evaluate(() => T.scope())]), ['s1,s2', 's1,s2']);
    // createLockManager({ local: true }) works from the app too (its own service chunk).
    assert.deepEqual(await Promise.all([a.evaluate(() => T.local()), b.evaluate(() => T.local())]), [
      'local:exclusive',
      'local:exclusive',
    ]);
    const workerUrls = [...(await a.evaluate(() => __workerUrls)), ...(await b.evaluate(() => __workerUrls))];
    assert.deepEqual(errors, []);
    if (perPage) {
      assert.ok(new Set(workerUrls).size > 1, workerUrls.join('\n'));
      return workerUrls;
    }
    assert.equal(new Set(workerUrls).size, 1, workerUrls.join('\n'));
    return workerUrls[0];
  } finally {
    await context.close();
  }
}
