// Shared and service workers: a user's SharedWorker (tests/e2e/fixtures/shared-worker.js) and a
// service worker (tests/e2e/fixtures/service-worker.js) take locks that exclude a window's, release
// them when they end, keep them (and their link to the lock worker) when the page that
// carried their port goes away; a SharedWorker's own dedicated worker; a service worker with
// no window open. Native is the reference wherever it has the behaviour.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { BROWSER, CHROMIUM_ARGS, IMPLS, freshSessions, hold, launch, needsCdp, needsSharedWorker, needsWorkerInSharedWorker, nestedWorkerMayNotStart, query, spawnChromium, until, untilQuery, where } from './harness/browser.mjs';
import { serve } from '../../scripts/serve.mjs';

let env;
before(async () => {
  env = await launch();
});
after(() => env.close());

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// The first entry of the page's T.log that starts with `prefix`, once there is one.
const said = (target, prefix, timeout = 10_000) =>
  target.waitForFunction((p) => T.log.find((e) => typeof e === 'string' && e.startsWith(p)), prefix, { timeout }).then((h) => h.jsonValue());
// The window waits behind the worker: one holder, one waiter, two clientIds.
// Closes `page`, and waits until `other` sees the lock `page` held released: the close has
// been handled (what it would have released with it is, by then).
async function closeHandled(page, other) {
  await hold(page, 'marker', 'closing-marker');
  await until(page, 'granted:marker:closing-marker:exclusive');
  await page.close();
  await untilQuery(other, (s) => !s.held.some((l) => l.name === 'closing-marker'));
}

async function assertWaitsBehind(page, name) {
  const state = await query(page);
  assert.deepEqual(state.held.map((r) => r[0]), [name]);
  assert.deepEqual(state.pending.map((r) => r[0]), [name]);
  assert.notEqual(state.held[0][2], state.pending[0][2], 'the worker is a client of its own');
  assert.equal(await page.evaluate((n) => navigator.locks.request(n, { ifAvailable: true }, (l) => l), name), null);
}

for (const impl of IMPLS) {
  describe(`${where}${impl}: shared and service workers`, () => {
    const sessions = freshSessions(() => env, impl);
    const fresh = sessions.fresh;
    after(async () => {
      assert.deepEqual(sessions.current.errors, [], 'no uncaught page errors');
      await sessions.close();
    });
    // No message of the polyfill's reaches a user's handler: T.log has what the pages'
    // handlers of their workers, SharedWorkers' ports and service workers heard. (Pages
    // closed by the test are passed over.)
    afterEach(async () => {
      for (const page of sessions.current.pages) {
        const heard = await page.evaluate(() => T.log.filter((e) => e && typeof e === 'object' && '__webLocksPolyfillConnect' in e).length).catch(() => 0);
        assert.equal(heard, 0, "a handler heard the polyfill's request for a link");
      }
    });
    const ready = `shared-ready:${impl === 'polyfill' ? 'object' : 'undefined'}`;

    for (const start of [false, true]) {
      it(`a user's SharedWorker (its page listening with ${start ? 'port.start()' : 'onmessage'}): its lock excludes a window's; close() in the worker releases it`, { skip: needsSharedWorker }, async () => {
        const [a, b] = await fresh(2);
        await a.evaluate((start) => T.connectShared('s', undefined, '', start), start);
        await until(a, ready);
        await a.evaluate(() => T.tellShared('s', { cmd: 'hold', key: 's1', name: 'shared-res' }));
        await until(a, 'shared-granted:s1:shared-res');
        await hold(b, 'b', 'shared-res');
        await assertWaitsBehind(b, 'shared-res');
        const t0 = Date.now();
        await a.evaluate(() => T.tellShared('s', { cmd: 'close' }));
        await until(b, 'granted:b:shared-res:exclusive');
        console.log(`# ${where}${impl}: SharedWorker close() → waiter granted in ${Date.now() - t0} ms`);
      });
    }

    // A dedicated worker of a SharedWorker asks the SharedWorker for its link, as it would
    // a page; it ends with it.
    it("a dedicated worker of a user's SharedWorker: its lock excludes a window's; the SharedWorker's close() releases it", { skip: needsSharedWorker || needsWorkerInSharedWorker }, async () => {
      const [a, b] = await fresh(2);
      await a.evaluate(() => T.connectShared('s'));
      await until(a, ready);
      await a.evaluate(() => T.tellShared('s', { cmd: 'spawn' }));
      // (Where declared, `nestedWorkerMayNotStart`: that shared worker is closed, and another
      // one spawns it.)
      const first = await said(a, 'shared-nested:').catch(async (e) => {
        if (!nestedWorkerMayNotStart) throw e;
        console.log(`# ${where}${impl}: the shared worker's dedicated worker did not start in 10 s; another shared worker spawns it`);
        await a.evaluate(() => T.tellShared('s', { cmd: 'close' }));
        await a.evaluate(() => T.connectShared('s', undefined, '&again=1'));
        await a.evaluate(() => T.tellShared('s', { cmd: 'spawn' }));
        return said(a, 'shared-nested:');
      });
      assert.notEqual(first, 'shared-nested:none', 'this browser has no Worker in shared workers');
      await until(a, 'shared-nested:worker-ready');
      const message = { cmd: 'hold', key: 'n1', name: 'shared-child' };
      await a.evaluate((m) => T.tellShared('s', { cmd: 'nested', message: m }), message);
      await until(a, 'shared-nested:worker-granted:n1:shared-child');
      await hold(b, 'b', 'shared-child');
      await assertWaitsBehind(b, 'shared-child');
      await a.evaluate(() => T.tellShared('s', { cmd: 'close' }));
      await until(b, 'granted:b:shared-child:exclusive');
    });

    it("a user's SharedWorker ends with its last page: its lock is released", { skip: needsSharedWorker }, async () => {
      const [c, b] = await fresh(2); // only c connects to the SharedWorker
      await c.evaluate(() => T.connectShared('s'));
      await until(c, ready);
      await c.evaluate(() => T.tellShared('s', { cmd: 'hold', key: 's1', name: 'last-page' }));
      await until(c, 'shared-granted:s1:last-page');
      await hold(b, 'b', 'last-page');
      await assertWaitsBehind(b, 'last-page');
      const t0 = Date.now();
      await c.close();
      await until(b, 'granted:b:last-page:exclusive');
      console.log(`# ${where}${impl}: SharedWorker's last page closed → waiter granted in ${Date.now() - t0} ms`);
    });

    // The polyfill's SharedWorker asks for its link through the first page that connects
    // to it (c1): that page going away must not cut the link, nor release the lock.
    it('the page that carried a SharedWorker’s port goes away: the worker keeps its locks and its link', { skip: needsSharedWorker }, async () => {
      const [c1, c2, b] = await fresh(3);
      await c1.evaluate(() => T.connectShared('s'));
      await until(c1, ready);
      await c1.evaluate(() => T.tellShared('s', { cmd: 'hold', key: 's1', name: 'courier' }));
      await until(c1, 'shared-granted:s1:courier');
      await c2.evaluate(() => T.connectShared('s'));
      await until(c2, ready);
      await hold(b, 'b', 'courier');
      await query(b);
      await closeHandled(c1, b);
      await assertWaitsBehind(b, 'courier');
      await c2.evaluate(() => T.tellShared('s', { cmd: 'hold', key: 's2', name: 'courier-2' }));
      await until(c2, 'shared-granted:s2:courier-2');
      await c2.evaluate(() => T.tellShared('s', { cmd: 'query', key: 'q' }));
      const seen = JSON.parse((await said(c2, 'shared-query:q:')).slice('shared-query:q:'.length));
      assert.deepEqual(seen.held.sort(), ['courier', 'courier-2']);
      await c2.evaluate(() => T.tellShared('s', { cmd: 'release', key: 's1' }));
      await until(b, 'granted:b:courier:exclusive');
    });

    it("a service worker: its lock excludes a window's; stopping the worker releases it", { skip: needsCdp }, async () => {
      const [a, b] = await fresh(2);
      assert.equal(await a.evaluate(() => T.registerSW()), 'activated');
      await a.evaluate(() => T.tellSW({ cmd: 'hold', key: 'w1', name: 'sw-res' }));
      await said(a, 'sw-granted:w1:sw-res');
      await hold(b, 'b', 'sw-res');
      await assertWaitsBehind(b, 'sw-res');
      const cdp = await sessions.current.context.newCDPSession(a);
      await cdp.send('ServiceWorker.enable');
      const t0 = Date.now();
      await cdp.send('ServiceWorker.stopAllWorkers');
      await until(b, 'granted:b:sw-res:exclusive');
      console.log(`# ${where}${impl}: service worker stopped → waiter granted in ${Date.now() - t0} ms`);
    });

    // Chromium does not end a service worker that DevTools is attached to (Playwright
    // attaches to every one): neither when it is unregistered nor when idle. The driverless
    // test below covers Chromium. Firefox lets an unregistered worker finish the events it
    // is extending (waitUntil) first: here the lock is held by an idle worker.
    it(
      'a service worker: unregistering it ends it and releases its lock',
      { skip: BROWSER === 'chromium' && 'chromium: a driven Chromium keeps service workers alive (see the driverless test)' },
      async () => {
        const [a] = await fresh(1);
        await a.evaluate(() => T.registerSW());
        await a.evaluate(() => T.tellSW({ cmd: 'hold', key: 'w1', name: 'unregister', unextended: true }));
        await said(a, 'sw-granted:w1:unregister');
        await hold(a, 'a', 'unregister');
        await assertWaitsBehind(a, 'unregister');
        const t0 = Date.now();
        assert.equal(await a.evaluate(() => T.unregisterSW()), true);
        await until(a, 'granted:a:unregister:exclusive');
        console.log(`# ${where}${impl}: service worker unregistered → waiter granted in ${Date.now() - t0} ms`);
      },
    );

    // The polyfill's service worker gets its link at install through the only window then
    // open (a): a going away must not cut the link, nor release the lock.
    it('the page that carried a service worker’s port goes away: the worker keeps its locks and its link', async () => {
      const [a] = await fresh(1);
      await a.evaluate(() => T.registerSW());
      await a.evaluate(() => T.tellSW({ cmd: 'hold', key: 'w1', name: 'sw-courier' }));
      await said(a, 'sw-granted:w1:sw-courier');
      const b = await sessions.current.page();
      await b.evaluate(() => T.listenSW());
      await hold(b, 'b', 'sw-courier');
      await query(b);
      await closeHandled(a, b);
      await assertWaitsBehind(b, 'sw-courier');
      await b.evaluate(() => T.tellSW({ cmd: 'hold', key: 'w2', name: 'sw-courier-2' }));
      await said(b, 'sw-granted:w2:sw-courier-2');
      await b.evaluate(() => T.tellSW({ cmd: 'release', key: 'w1' }));
      await until(b, 'granted:b:sw-courier:exclusive');
    });

    // Native serves a service worker by itself. The polyfill's lock worker lives only while
    // a window (or a worker of one) does: with none, a service worker's requests wait until
    // a window with the polyfill opens (docs/lifecycle.md "Contexts and lifecycle").
    it('a service worker with no window open: native grants; the polyfill waits for a window', async () => {
      const [a] = await fresh(1);
      await a.evaluate(() => T.registerSW());
      // Held throughout: for the polyfill, re-declared to the lock worker the next window starts.
      await a.evaluate(() => T.tellSW({ cmd: 'hold', key: 'k', name: 'kept' }));
      await said(a, 'sw-granted:k:kept');
      // Both requests are made 1 s later, when no window is open; the second gives up after 1.5 s.
      await a.evaluate(() => T.tellSW({ cmd: 'hold', key: 'w', name: 'no-window', delay: 1000 }));
      await a.evaluate(() => T.tellSW({ cmd: 'hold', key: 't', name: 'no-window-2', delay: 1000, timeout: 1500 }));
      await a.close();
      await sleep(4000);
      const t0 = Date.now();
      const b = await sessions.current.page();
      await b.evaluate(() => T.listenSW());
      // What the worker said, asked until it has the grant (its message may have come before
      // b listened).
      let all;
      for (let i = 0; ; i++) {
        await b.evaluate((key) => T.tellSW({ cmd: 'said', key }), `${i}`);
        all = JSON.parse((await said(b, `sw-said:${i}:`)).slice(`sw-said:${i}:`.length));
        if (all.some((e) => e.startsWith('sw-granted:w:')) || i === 100) break;
        await sleep(100);
      }
      const granted = all.find((e) => e.startsWith('sw-granted:w:no-window:'));
      assert.ok(granted, JSON.stringify(all));
      const [msAfterAsking, at] = granted.split(':').slice(-2).map(Number);
      const ms = at - t0; // (the worker and this process share the clock)
      const state = await query(b);
      const held = impl === 'native' ? ['kept', 'no-window', 'no-window-2'] : ['kept', 'no-window'];
      assert.deepEqual(state.held.map((r) => r[0]).sort(), held);
      assert.equal(await b.evaluate(() => navigator.locks.request('kept', { ifAvailable: true }, (l) => l)), null);
      if (impl === 'native') {
        assert.ok(msAfterAsking < 2000, `granted ${msAfterAsking} ms after the message (no window needed)`);
        assert.ok(all.some((e) => e.startsWith('sw-granted:t:')), 'the second request too');
      } else {
        assert.ok(msAfterAsking > 4000, 'granted only once a window is open');
        assert.ok(all.includes('sw-rejected:t:TimeoutError'), 'a signal bounds the wait');
        console.log(`# ${where}polyfill: service worker with no window → granted ${ms} ms after a window opens (page load included)`);
        assert.ok(ms < 5000, `granted ${ms} ms after the window opened`);
      }
    });
  });
}

describe(`${where}polyfill: couriers`, () => {
  const sessions = freshSessions(() => env, 'polyfill');
  after(() => sessions.close());

  // The first page to connect to the SharedWorker has no polyfill: it never answers, and
  // after the 1 s welcome watchdog the worker asks the next page.
  it('a SharedWorker’s first page does not answer: the next one carries its port', { skip: needsSharedWorker }, async () => {
    await sessions.fresh(0);
    const none = await sessions.current.context.newPage();
    await none.goto(`${env.origin}/tests/e2e/fixtures/page.html?impl=none`);
    await none.waitForFunction(() => window.T && window.T.ready);
    await none.evaluate(() => T.connectShared('s', 'polyfill'));
    await until(none, 'shared-ready:object');
    await none.evaluate(() => T.tellShared('s', { cmd: 'hold', key: 's1', name: 'unanswered' }));
    await sleep(200);
    const p = await sessions.current.page();
    const t0 = Date.now();
    await p.evaluate(() => T.connectShared('s'));
    await until(none, 'shared-granted:s1:unanswered');
    console.log(`# ${where}polyfill: SharedWorker's first courier silent → granted ${Date.now() - t0} ms after a polyfilled page connected`);
    const state = await query(p);
    assert.deepEqual(state.held.map((r) => r[0]), ['unanswered']);
    // The silent page saw the worker's request for a link (it has no polyfill to answer it).
    assert.ok(await none.evaluate(() => T.log.some((e) => e && e.__webLocksPolyfillConnect === 1)));
  });

  // Two lock managers in one SharedWorker (navigator.locks and the package's
  // createLockManager()) ask for a link at the top of its script, before any page has
  // connected: each gets one (the second's offer replaced the first's, which waited forever).
  it('a SharedWorker with two lock managers: both get a link', { skip: needsSharedWorker }, async () => {
    const [p] = await sessions.fresh(1);
    await p.evaluate(() => T.connectShared('s', 'polyfill&second=1'));
    await until(p, 'shared-ready:object');
    await p.evaluate(() => T.tellShared('s', { cmd: 'hold', key: 's1', name: 'one' }));
    await p.evaluate(() => T.tellShared('s', { cmd: 'hold2', key: 's2', name: 'two' }));
    await until(p, 'shared-granted:s2:two', 8000);
    await until(p, 'shared-granted:s1:one', 8000);
  });
});

// A service worker unregistered while it holds a lock, in a Chromium no driver is attached
// to (a driven one keeps its service workers alive): the page reports what it saw to a
// server of the test's own.
describe(`${where}undriven Chromium: unregistering a service worker`, { skip: BROWSER !== 'chromium' && `${BROWSER}: covered by the driven test` }, () => {
  for (const impl of IMPLS) {
    it(`${impl}: ends it and releases its lock`, async () => {
      const server = await serve(0);
      let got;
      const report = new Promise((resolve) => (got = resolve));
      const reports = createServer((req, res) => {
        got(JSON.parse(decodeURIComponent(req.url.slice(2))));
        res.end();
      });
      await new Promise((ok) => reports.listen(0, '127.0.0.1', ok));
      const url = `http://127.0.0.1:${server.address().port}/tests/e2e/fixtures/sw-unregister.html?impl=${impl}&report=${reports.address().port}`;
      const args = CHROMIUM_ARGS.filter((a) => !a.startsWith('--host-resolver-rules'));
      const chromium = await spawnChromium(['--headless=new', ...args, url]);
      try {
        const seen = await Promise.race([report, sleep(60_000).then(() => ['no report in 60 s'])]);
        const granted = seen.find((e) => e.startsWith('granted:'));
        assert.deepEqual(seen.filter((e) => !e.startsWith('granted:') && !e.startsWith('sw-granted:')), ['ifAvailable:null', 'unregister:true']);
        assert.ok(granted, JSON.stringify(seen));
        const ms = Number(granted.slice('granted:'.length));
        console.log(`# undriven Chromium, ${impl}: service worker unregistered → waiter granted in ${ms} ms`);
        assert.ok(ms < 1000, `granted ${ms} ms after unregister()`);
      } finally {
        await chromium.close();
        await new Promise((ok) => reports.close(ok));
        await new Promise((ok) => server.close(ok));
      }
    });
  }
});
