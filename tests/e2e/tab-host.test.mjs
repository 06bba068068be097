// Where SharedWorker is missing (src/service/tabs.rs, docs/architecture.md "Where
// SharedWorker is missing"): every page here has it removed before any script runs, so the
// polyfill hosts its lock worker in a tab. The tab that hosts it ends in every way a tab
// can, while others hold and wait; a hidden host hands the service to a visible tab; a tab
// with SharedWorker and one without share one lock manager; tabs come and go under load.
// Each case runs against native too, which has none of this machinery: it shows what the
// polyfill must match.
//
// Declared deviations (decided here, never from an outcome):
// - native, a frozen tab: Chromium keeps a frozen page's locks (the others wait until it is
//   thawed; here the freeze is only its event, see `frozen`, which native ignores); the
//   polyfill's host tab, as it freezes, ends its lock worker and says goodbye, so its locks go
//   at once (lost, as entering the back/forward cache) and the others are
//   served (src/service/tabs.rs).
// - a freeze: Firefox and WebKit fire no `freeze` event.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSER, IMPLS, hold, launch, loggedAt, newSession, prepareCrash, query, release, until, untilQuery, where } from './harness/browser.mjs';

let env;
before(async () => {
  env = await launch();
});
after(() => env.close());

const PAGE = '/tests/e2e/fixtures/page.html';
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

// A session whose pages have no SharedWorker, unless a page is opened with `shared` (an
// init script of the context's, which every browser's harness has, decides by the URL).
async function session(impl) {
  const s = await newSession(env, impl);
  await s.context.addInitScript(() => {
    if (!location.search.includes('shared')) delete globalThis.SharedWorker;
  });
  return { ...s, page: ({ shared = false } = {}) => s.page(shared ? `${PAGE}?shared` : PAGE) };
}

// The origin's record of its serving lock worker (js/shared/election.js): [epoch, url], or null.
const leader = (page) =>
  page.evaluate(
    () =>
      new Promise((done) => {
        const request = indexedDB.open('web-locks-election');
        request.onsuccess = () => {
          const db = request.result;
          if (!db.objectStoreNames.contains('leader')) return done(null), db.close();
          const get = db.transaction('leader').objectStore('leader').get(0);
          get.onsuccess = () => done(get.result ? [get.result.epoch, get.result.url] : null);
          db.close();
        };
      }),
  );

// Makes `page` report itself hidden (or visible) as a browser does for a background tab:
// headless pages are always visible.
const setHidden = (page, hidden) =>
  page.evaluate((hidden) => {
    Object.defineProperty(document, 'visibilityState', { value: hidden ? 'hidden' : 'visible', configurable: true });
    Object.defineProperty(document, 'hidden', { value: hidden, configurable: true });
    document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
  }, hidden);

const ENDS = {
  closed: { end: (page) => page.close() },
  navigated: { end: (page) => page.goto('about:blank') },
  crashed: { prepare: prepareCrash },
  // Headless Chromium 156 freezes no page through DevTools (`Page.setWebLifecycleState`
  // answered, yet no `freeze` event fired and the page's timers ran on: measured), so the
  // test fires the document's `freeze` and `resume` as the browser does around a freeze; the
  // page is not stopped meanwhile. Firefox and WebKit have no `freeze` event (a hidden
  // Safari page is suspended without one: the hidden hand-off below is what covers them).
  frozen: {
    skip: BROWSER !== 'chromium' && `${BROWSER}: no freeze event`,
    end: (page) => page.evaluate(() => document.dispatchEvent(new Event('freeze'))),
    thaw: (page) => page.evaluate(() => document.dispatchEvent(new Event('resume'))),
  },
};

for (const impl of IMPLS) {
  describe(`${where}${impl}: where SharedWorker is missing`, () => {
    for (const [kind, { skip, end, prepare, thaw }] of Object.entries(ENDS)) {
      it(`the hosting tab is ${kind} while others hold and wait: no double grant, waiters granted within 1 s`, { skip }, async () => {
        const s = await session(impl);
        try {
          // (The first page's worker serves the origin.)
          const a = await s.page();
          const b = await s.page();
          const c = await s.page();
          const before = impl === 'polyfill' && (await leader(a));
          if (before) assert.match(before[1], /^about:blank#/, 'a tab-hosted worker serves');
          await hold(a, 'a', 'y');
          await until(a, 'granted:a:y:exclusive');
          await hold(b, 'b', 'x');
          await until(b, 'granted:b:x:exclusive');
          await hold(c, 'cx', 'x');
          await hold(c, 'cy', 'y');
          await untilQuery(b, (s) => s.pending.length === 2);
          const crash = prepare && (await prepare(a));
          const ended = Date.now();
          await (crash ? crash() : end(a));
          // Natively a frozen page keeps what it holds (declared above).
          const keeps = impl === 'native' && kind === 'frozen';
          if (keeps) {
            const { held } = await query(b);
            assert.deepEqual(held.map((h) => h[0]).sort(), ['x', 'y']);
          } else {
            const latency = (await loggedAt(c, 'granted:cy:y:exclusive', 5000)) - ended;
            console.log(`# ${where}${impl}: hosting tab ${kind} → waiter granted in ${latency} ms`);
            assert.ok(latency <= 1000, `granted ${latency} ms after the hosting tab was ${kind}`);
          }
          // No double grant: b still holds x, c's request for it waits (the new serving
          // worker's state, rebuilt from b's and c's re-declarations).
          const { held, pending } = await query(b);
          assert.deepEqual(held.filter((h) => h[0] === 'x').length, 1);
          assert.deepEqual(pending.filter((p) => p[0] === 'x').length, 1);
          assert.ok(!(await c.evaluate(() => T.log)).includes('granted:cx:x:exclusive'));
          if (impl === 'polyfill' && !keeps) assert.notEqual((await leader(b))[0], before[0], 'another worker serves');
          const released = Date.now();
          await release(b, 'b');
          await until(c, 'granted:cx:x:exclusive', 5000);
          assert.ok(Date.now() - released <= 1000);
          if (thaw) {
            await thaw(a);
            // Its lock went while it was frozen: the polyfill says so when it resumes.
            if (impl === 'polyfill') await until(a, 'rejected:a:AbortError:true', 5000);
          }
          assert.deepEqual(s.errors, []);
        } finally {
          await s.close();
        }
      });
    }

    it('a hidden hosting tab hands the service to a visible one; what both hold stays held', async () => {
      const s = await session(impl);
      try {
        const a = await s.page();
        const b = await s.page();
        await hold(a, 'a', 'y');
        await until(a, 'granted:a:y:exclusive');
        await hold(b, 'b', 'x');
        await until(b, 'granted:b:x:exclusive');
        const before = impl === 'polyfill' && (await leader(a));
        const hidden = Date.now();
        await setHidden(a, true);
        if (impl === 'polyfill') {
          await b.waitForFunction(
            (epoch) =>
              new Promise((done) => {
                const request = indexedDB.open('web-locks-election');
                request.onsuccess = () => {
                  const get = request.result.transaction('leader').objectStore('leader').get(0);
                  get.onsuccess = () => done(get.result.epoch !== epoch);
                  request.result.close();
                };
              }),
            before[0],
            { timeout: 5000, polling: 20 },
          );
          console.log(`# ${where}polyfill: hidden hosting tab → another serves in ${Date.now() - hidden} ms`);
          assert.ok(Date.now() - hidden <= 1000);
        }
        // Both locks survived the hand-off (re-declared), and the hidden tab is still served.
        await hold(a, 'a2', 'z');
        await until(a, 'granted:a2:z:exclusive', 5000);
        const { held } = await query(b);
        assert.deepEqual(held.map((h) => h[0]).sort(), ['x', 'y', 'z']);
        const log = await a.evaluate(() => T.log);
        assert.ok(!log.some((line) => line.startsWith('rejected:a:')), log.join());
        assert.deepEqual(s.errors, []);
      } finally {
        await s.close();
      }
    });

    it('the last tab keeps the service when hidden', async () => {
      const s = await session(impl);
      try {
        const a = await s.page();
        await hold(a, 'a', 'y');
        await until(a, 'granted:a:y:exclusive');
        const before = impl === 'polyfill' && (await leader(a));
        await setHidden(a, true);
        // (A visible tab's worker would have answered the hidden one's question by now.)
        await sleep(300);
        await hold(a, 'a2', 'z');
        await until(a, 'granted:a2:z:exclusive', 5000);
        if (impl === 'polyfill') assert.deepEqual(await leader(a), before);
        assert.deepEqual(s.errors, []);
      } finally {
        await s.close();
      }
    });

    for (const first of ['with', 'without']) {
      it(`a tab with SharedWorker and one without share one lock manager (the one ${first} it first)`, async () => {
        const s = await session(impl);
        try {
          const one = await s.page({ shared: first === 'with' });
          const two = await s.page({ shared: first !== 'with' });
          assert.equal(await one.evaluate(() => typeof SharedWorker), first === 'with' ? 'function' : 'undefined');
          await hold(one, 'one', 'x');
          await until(one, 'granted:one:x:exclusive');
          await hold(two, 'two', 'x');
          await untilQuery(one, (s) => s.pending.length === 1);
          assert.deepEqual(await query(two), await query(one));
          assert.ok(!(await two.evaluate(() => T.log)).includes('granted:two:x:exclusive'));
          await release(one, 'one');
          await until(two, 'granted:two:x:exclusive', 5000);
          await hold(one, 'one2', 'x');
          await untilQuery(two, (s) => s.pending.length === 1);
          await release(two, 'two');
          await until(one, 'granted:one2:x:exclusive', 5000);
          if (impl === 'polyfill') {
            const [, url] = await leader(one);
            assert.equal(url.startsWith('about:blank#'), first === 'without', `serving: ${url}`);
          }
          assert.deepEqual(s.errors, []);
        } finally {
          await s.close();
        }
      });
    }

    it("garbage on the serving worker's channel is refused; the origin's locks work on", async () => {
      const s = await session(impl);
      try {
        const [a, b] = [await s.page(), await s.page()];
        await hold(a, 'a', 'x');
        await until(a, 'granted:a:x:exclusive');
        await b.evaluate(() => {
          const channel = new BroadcastChannel('web-locks-polyfill');
          const junk = [null, 1, 'hello', {}, { p: 5 }, { p: 'web-locks-polyfill junk', v: 4, type: 'nonsense' }];
          junk.push({ p: 'web-locks-polyfill junk', v: 4, type: 'hello', clientId: 7 }, { p: 'web-locks-polyfill junk2', v: 1 });
          for (const message of junk) channel.postMessage(message);
          channel.close();
        });
        await hold(b, 'b', 'x');
        await untilQuery(a, (s) => s.pending.length === 1);
        await release(a, 'a');
        await until(b, 'granted:b:x:exclusive', 5000);
        assert.deepEqual(s.errors, []);
      } finally {
        await s.close();
      }
    });

    it('churn: tabs open and close every 0.5 s for 20 s, each adding to an IndexedDB counter under one lock', async () => {
      const s = await session(impl);
      try {
        // Each section reads the counter, waits, and writes it + 1 with a ledger entry in one
        // transaction: two overlapping sections would lose an increment (counter < ledger).
        const work = () => {
          const idb = (request) => new Promise((ok, ko) => ((request.onsuccess = () => ok(request.result)), (request.onerror = ko)));
          const open = indexedDB.open('churn', 1);
          open.onupgradeneeded = () => (open.result.createObjectStore('counter'), open.result.createObjectStore('ledger', { autoIncrement: true }));
          idb(open).then(async (db) => {
            for (;;) {
              await navigator.locks.request('counter', async () => {
                const n = (await idb(db.transaction('counter').objectStore('counter').get(0))) || 0;
                await new Promise((ok) => setTimeout(ok, 2));
                const tx = db.transaction(['counter', 'ledger'], 'readwrite');
                tx.objectStore('counter').put(n + 1, 0);
                tx.objectStore('ledger').add(1);
                await new Promise((ok) => (tx.oncomplete = ok));
              });
            }
          });
        };
        const open = [];
        const started = Date.now();
        let opened = 0;
        while (Date.now() - started < 20_000) {
          const page = await s.page();
          await page.evaluate(work);
          open.push(page);
          opened++;
          if (open.length > 4) await open.shift().close();
          await sleep(500);
        }
        for (const page of open) await page.close();
        const check = await s.page();
        const [counter, ledger] = await check.evaluate(
          () =>
            new Promise((done) => {
              const request = indexedDB.open('churn', 1);
              request.onsuccess = () => {
                const tx = request.result.transaction(['counter', 'ledger']);
                const n = tx.objectStore('counter').get(0);
                const entries = tx.objectStore('ledger').count();
                tx.oncomplete = () => done([n.result, entries.result]);
              };
            }),
        );
        console.log(`# ${where}${impl}: churn: ${opened} tabs, counter ${counter}, ledger ${ledger}`);
        assert.equal(counter, ledger, 'no increment lost: never two sections at once');
        assert.ok(ledger > 100, `progress: ${ledger} sections`);
        assert.deepEqual(s.errors, []);
      } finally {
        await s.close();
      }
    });
  });
}
