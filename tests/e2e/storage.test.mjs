// Liveness without storage: a context without IndexedDB (it says goodbye at pagehide), the
// site's storage cleared under a running lock worker and under open tabs, and a lock worker
// whose own IndexedDB use fails in each way (or whose wasm does not load once). Each test
// opens a fresh browser context.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BARE, BROWSER, NO_SHARED_WORKER, freshSessions, hold, launch, query, until, where } from './harness/browser.mjs';
import { recordProtocol } from './harness/protocol.mjs';

let env;
before(async () => {
  env = await launch();
});
after(() => env.close());

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A closed tab that says goodbye at its pagehide (it has no database the worker watches):
// `waiter` is then granted `entry`. Declared: Firefox ESR loses such a goodbye now and then
// (docs/lifecycle.md "Known limits"): there, if `entry` has not come within 5 s, the lock must
// still be held (by the closed tab, as the limit says) and the rest of the test is not run,
// saying so.
const goodbyeMayBeLost = BROWSER === 'firefox';
async function releasedByGoodbye(waiter, entry, name) {
  const granted = await until(waiter, entry, 5000).then(() => true, () => false);
  if (granted || !goodbyeMayBeLost) return assert.ok(granted, `${entry} within 5 s of the close`);
  const { held } = await query(waiter);
  assert.ok(held.some((h) => h[0] === name), `${name} neither granted nor held: ${JSON.stringify(held)}`);
  console.log(`# ${where}the closed tab's goodbye was lost (declared): ${name} still held 5 s after the close`);
  return 'lost';
}
describe(`${where}polyfill: a context without storage`, () => {
  const sessions = freshSessions(() => env, 'polyfill');
  after(() => sessions.close());

  // A context without IndexedDB has no database for the worker to watch: it says goodbye at
  // pagehide. A request made after that (here by the app's own pagehide listener, a last
  // save under a lock) must not connect it again as a client that nothing would end.
  it('a context without IndexedDB: a request after its goodbye leaves nothing held', async () => {
    const [b] = await sessions.fresh(1);
    await sessions.current.context.addInitScript(() => {
      if (location.search.includes('noidb')) Object.defineProperty(window, 'indexedDB', { value: undefined });
    });
    const a = await sessions.current.page('/tests/e2e/fixtures/page.html?noidb');
    assert.equal(await a.evaluate(() => typeof indexedDB), 'undefined');
    // Without SharedWorker too, there is no lock worker to reach: the polyfill installs
    // nothing (docs/architecture.md "Where SharedWorker is missing").
    if (NO_SHARED_WORKER) return assert.equal(await a.evaluate(() => typeof navigator.locks), 'undefined');
    await a.evaluate(() =>
      addEventListener('pagehide', () => navigator.locks.request('save', () => new Promise((r) => setTimeout(r, 30)))),
    );
    await hold(a, 'a', 'other');
    await until(a, 'granted:a:other:exclusive');
    await a.close();
    await hold(b, 'b2', 'other');
    if ((await releasedByGoodbye(b, 'granted:b2:other:exclusive', 'other')) === 'lost') return;
    await hold(b, 'b', 'save');
    await until(b, 'granted:b:save:exclusive');
  });

  // The site's storage cleared while a tab is open (docs/lifecycle.md "Known limits"): the lock worker
  // lives on without its lifeline, and names it in every welcome. A tab opened afterwards
  // finds it missing: it reconnects once, not in a loop (it did, ~370 times a second), and
  // is served.
  it('storage cleared under a running lock worker: a new tab does not reconnect in a loop', async () => {
    const [a] = await sessions.fresh(1);
    await hold(a, 'a', 'before');
    await until(a, 'granted:a:before:exclusive');
    await a.evaluate(() => fetch('/tests/e2e/clear-site-data'));
    await sleep(300);
    await sessions.current.context.addInitScript(recordProtocol, 'success');
    const d = await sessions.current.page();
    await hold(d, 'd', 'after');
    await until(d, 'granted:d:after:exclusive');
    await sleep(1500);
    const hellos = await d.evaluate(() => __protocol.filter((e) => e.startsWith('hello:')).length);
    assert.ok(hellos <= 2, `${hellos} hellos`);
  });

  // The site's storage cleared under open tabs (docs/lifecycle.md "Known limits"): the lock worker's
  // watches of the contexts' databases see nothing any more (measured: a tab open at the
  // clear, closed afterwards, kept its lock for good in both browsers; in Chromium so did a
  // tab opened after the clear). A tab whose database was closed under it says goodbye at
  // its pagehide instead, and tells the worker to watch it no more; one whose lock worker
  // lost its lifeline says goodbye too, and keeps its database watched (next test).
  // Closing either releases.
  // (Its counts of hellos are a SharedWorker's: a tab-hosted worker loses its lifeline in the
  // clear too, and every context then re-declares to a newly elected one.)
  it('storage cleared under open tabs: a tab open at the clear and one opened after it release their locks when closed', { skip: NO_SHARED_WORKER && 'counts a SharedWorker\'s reconnections' }, async () => {
    await sessions.fresh(0);
    await sessions.current.context.addInitScript(recordProtocol, 'success');
    const [a, b] = [await sessions.current.page(), await sessions.current.page()];
    await hold(a, 'a', 'before');
    await until(a, 'granted:a:before:exclusive');
    await a.evaluate(() => fetch('/tests/e2e/clear-site-data'));
    const c = await sessions.current.page();
    await hold(c, 'c', 'after');
    await until(c, 'granted:c:after:exclusive');
    await hold(b, 'b1', 'before');
    await hold(b, 'b2', 'after');
    // A has told the worker to watch its database no more (a `watch` without `db`); c has
    // not (its lifeline found missing, reconnected once: its second hello's watch too).
    await a.waitForFunction(() => __protocol.includes('watch:-'));
    await c.waitForFunction(() => {
      const hellos = __protocol.flatMap((e, at) => (e.startsWith('hello:') ? [at] : []));
      return hellos.length === 2 && __protocol.slice(hellos[1]).some((e) => e.startsWith('watch:web-locks-client-'));
    });
    assert.deepEqual(await c.evaluate(() => __protocol.filter((e) => e.startsWith('hello:') || e === 'watch:-').length), 2);
    for (const [tab, key, name] of [[a, 'b1', 'before'], [c, 'b2', 'after']]) {
      await tab.close();
      if ((await releasedByGoodbye(b, `granted:${key}:${name}:exclusive`, name)) === 'lost') return;
    }
  });

  // The same tab opened after the clear, whose goodbye is lost (as Firefox ESR loses a
  // closing tab's now and then: docs/lifecycle.md "Known limits"). Firefox's lock worker still sees the
  // end of its database, which it keeps watched: closing it releases. (Not so in Chromium,
  // whose lock worker sees nothing after the clear: its goodbye is what releases. WebKit's
  // sees the end, as Firefox's.)
  // (Declared: WebKit without SharedWorker failed this once seen, not yet understood; an open
  // item of the tab-hosted service, docs/lifecycle.md "Known limits".)
  const clearedSkip =
    (BROWSER === 'chromium' && 'Chromium: the lock worker sees no database end after a clear') ||
    (BROWSER === 'webkit' && NO_SHARED_WORKER && 'WebKit without SharedWorker: not released after a clear (open)');
  it('storage cleared: a tab opened after it, its goodbye lost, releases its locks when closed (Firefox, WebKit)', { skip: clearedSkip }, async () => {
    const [a, b] = await sessions.fresh(2);
    await hold(a, 'a', 'before');
    await until(a, 'granted:a:before:exclusive');
    await a.evaluate(() => fetch('/tests/e2e/clear-site-data'));
    await sessions.current.context.addInitScript(() => {
      const post = MessagePort.prototype.postMessage;
      MessagePort.prototype.postMessage = function (message, ...rest) {
        if (!(message && message.type === 'goodbye')) return post.call(this, message, ...rest);
      };
    });
    const c = await sessions.current.page();
    await hold(c, 'c', 'after');
    await until(c, 'granted:c:after:exclusive');
    await hold(b, 'b', 'after');
    await query(b); // b's request is queued (handled before this query)
    await c.close();
    await until(b, 'granted:b:after:exclusive', 5000);
  });
});

// The lock worker's own IndexedDB use (its lifeline, its survey, its watches) failing in each
// way, or its wasm not compiling while streaming: it still serves, and two lock managers
// still exclude each other.
describe(`${where}polyfill: a lock worker without a usable IndexedDB`, () => {
  const sessions = freshSessions(() => env, 'polyfill', BARE);
  after(() => sessions.close());

  // The lock worker's wasm cannot load (offline): requests reject; the worker stays, and
  // the next request has it load again, which works now: served (a worker that ended instead,
  // for a new one to try, could leave Firefox matching new constructions to it for good).
  it('a wasm that fails to load once: requests reject, the next one is served', async () => {
    const [page] = await sessions.fresh(1);
    const result = await page.evaluate(async () => {
      const { createLockManager } = await import('/dist/index.js');
      const wasm = encodeURIComponent(new URL('/dist/web_locks_bg.wasm', location.href).href);
      const locks = createLockManager({ workerUrl: `/tests/e2e/fixtures/degraded-worker.js?wasm-fails-once#wasm=${wasm}` });
      const outcome = () => locks.request('x', () => 'ran').then((v) => v, (e) => `${e.name}: ${e.message}`);
      const late = new Promise((r) => setTimeout(() => r('not answered within 10 s'), 10_000));
      return [await Promise.race([outcome(), late]), await Promise.race([outcome(), late])];
    });
    assert.match(result[0], /^InvalidStateError: .*could not load its wasm .*offline/);
    assert.equal(result[1], 'ran');
  });

  for (const mode of ['missing', 'throws', 'fails', 'no-databases', 'streaming-fails']) {
    const what = mode === 'streaming-fails' ? 'wasm not compiled while streaming' : `IndexedDB ${mode}`;
    it(`${what}: served, and two lock managers exclude each other`, async () => {
      const [page] = await sessions.fresh(1);
      const result = await page.evaluate(async (mode) => {
        const late = new Promise((r) => setTimeout(() => r('not served within 10 s'), 10_000));
        const { createLockManager } = await import('/dist/index.js');
        const wasm = encodeURIComponent(new URL('/dist/web_locks_bg.wasm', location.href).href);
        const workerUrl = `/tests/e2e/fixtures/degraded-worker.js?${mode}#wasm=${wasm}`;
        const [a, b] = [createLockManager({ workerUrl }), createLockManager({ workerUrl })];
        const log = [];
        let release;
        const first = new Promise((held) =>
          a.request('x', () => {
            log.push('a');
            held();
            return new Promise((r) => (release = r));
          }),
        );
        if ((await Promise.race([first, late])) !== undefined) return await late;
        const second = b.request('x', () => log.push('b'));
        const { held, pending } = await b.query();
        release();
        await second;
        return { log, held: held.length, pending: pending.length };
      }, mode);
      assert.deepEqual(result, { log: ['a', 'b'], held: 1, pending: 1 });
    });
  }
});
