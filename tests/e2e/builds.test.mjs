// One lock manager per origin, whatever the URLs of its lock workers: two builds of an app
// in two tabs (a deploy while tabs are open), the old build's files deleted, the serving
// worker's tab crashing, a wasm URL that varies per tab, two copies of the package on one
// page, and a build of the protocol's fixture (tests/fixtures/) against this one in both
// directions. Native is the reference wherever it has the behaviour (one manager per origin
// by construction). Builds are served at /builds/<name>/ (tests/e2e/harness/routes.mjs).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { IMPLS, NO_SHARED_WORKER, crash, hold, launch, loggedAt, newSession, query, release, until, where } from './harness/browser.mjs';

let env;
before(async () => {
  env = await launch();
});
after(() => env.close());

const names = (list) => list.map((row) => row[0]).sort();
const page = (session, build) => session.page(`/tests/e2e/fixtures/page.html?build=${build}`);
// A fresh name for each test's `old` and `new` builds (one deleted stays deleted).
let made = 0;
const builds = () => [`old-${++made}`, `new-${made}`];
// Whether `target` logged `entry` within `ms` (for what must not happen).
const within = (target, entry, ms) => until(target, entry, ms).then(() => true, () => false);
// Declared: the protocol-4 build predates tab hosting: where SharedWorker is missing it
// installs nothing (docs/lifecycle.md, known limits).
const predatesTabs = (impl, tabs) =>
  NO_SHARED_WORKER && impl === 'polyfill' && tabs.includes('protocol-4') && 'protocol-4 predates tab hosting: without SharedWorker it installs nothing';

for (const impl of IMPLS) {
  describe(`${where}${impl}: one lock manager per origin, whatever build`, () => {
    let session;
    const fresh = async () => {
      if (session) await session.close();
      session = await newSession(env, impl);
      return session;
    };
    after(() => session && session.close());

    // Both directions: the first tab's build serves (its lock worker claimed the origin),
    // the other's lock worker sends its tab there.
    for (const [first, second] of [builds(), ['protocol-4', 'current'], ['current', 'protocol-4']]) {
      it(`builds ${first} then ${second} in two tabs exclude each other both ways; query() sees both`, { skip: predatesTabs(impl, [first, second]) }, async () => {
        const s = await fresh();
        const a = await page(s, first);
        await hold(a, 'a', 'x');
        await until(a, 'granted:a:x:exclusive');
        const b = await page(s, second);
        await hold(b, 'b', 'x', { ifAvailable: true });
        await until(b, 'null:b');
        await hold(b, 'by', 'y');
        await until(b, 'granted:by:y:exclusive');
        await hold(a, 'ay', 'y', { ifAvailable: true });
        await until(a, 'null:ay');
        for (const tab of [a, b]) assert.deepEqual(names((await query(tab)).held), ['x', 'y']);
        await hold(b, 'bx', 'x');
        const t0 = Date.now();
        await release(a, 'a');
        await until(b, 'granted:bx:x:exclusive');
        console.log(`# ${where}${impl}: ${first} → ${second}: the waiter of the other build granted ${Date.now() - t0} ms after the release`);
      });
    }

    // A frame speaks through its page's port (`via`, src/protocol.rs); the protocol-4 build's
    // worker refuses that, and the frame takes a port of its own after its welcome watchdog.
    it("a frame of this build's page while the protocol-4 build serves: served, excluded from the other's lock", { skip: predatesTabs(impl, ['protocol-4']) }, async () => {
      const s = await fresh();
      const a = await page(s, 'protocol-4');
      await hold(a, 'a', 'x');
      await until(a, 'granted:a:x:exclusive');
      const b = await page(s, 'current');
      const found = await b.evaluate(async (polyfill) => {
        const frame = document.createElement('iframe');
        document.body.append(frame);
        // (Native hidden in the frame too before the polyfill reaches it, as in the page: WebKit's
        // driver runs the session's init scripts in pages only. `frames[i]` reaches nothing.)
        if (polyfill) delete frames[frames.length - 1].Navigator.prototype.locks;
        const locks = frame.contentWindow.navigator.locks;
        const t0 = performance.now();
        const busy = await locks.request('x', { ifAvailable: true }, (lock) => lock === null);
        return { busy, ms: Math.round(performance.now() - t0), held: await locks.request('y', () => 'held') };
      }, impl === 'polyfill');
      console.log(`# ${where}${impl}: the frame's first answer under the protocol-4 worker: ${found.ms} ms`);
      assert.deepEqual({ busy: found.busy, held: found.held }, { busy: true, held: 'held' });
      assert.deepEqual(names((await query(a)).held), ['x']);
    });

    it("the old build's files are deleted before the new build's tab loads", async () => {
      const [old, current] = builds();
      const s = await fresh();
      const a = await page(s, old);
      await hold(a, 'a', 'x');
      await until(a, 'granted:a:x:exclusive');
      await a.evaluate((old) => fetch(`/builds/delete?name=${old}`), old);
      const b = await page(s, current);
      const t0 = Date.now();
      await hold(b, 'b', 'x', { ifAvailable: true });
      await until(b, 'null:b');
      console.log(`# ${where}${impl}: the new build's first answer (from the old build's worker): ${Date.now() - t0} ms`);
      await hold(b, 'bx', 'x');
      await release(a, 'a');
      await until(b, 'granted:bx:x:exclusive');
    });

    // The waiters re-declare their requests as their tabs reach the new lock worker, at times
    // "c"'s first (its build's worker took over); the worker queues them in the order they
    // were made (src/service/recovery.rs), as natively: "b" first.
    it("the serving lock worker's tab crashes while tabs of both builds hold and wait: no double grant, the first waiter granted within 1 s", async () => {
      const [old, current] = builds();
      const s = await fresh();
      const a = await page(s, old); // its lock worker serves
      await hold(a, 'a', 'x');
      await until(a, 'granted:a:x:exclusive');
      const [b, c] = [await page(s, current), await page(s, old)];
      await hold(b, 'b', 'x');
      await hold(c, 'cy', 'y');
      await until(c, 'granted:cy:y:exclusive');
      await hold(c, 'cx', 'x');
      await query(c);
      const t0 = await crash(a);
      const waiters = [[b, 'b'], [c, 'cx']].map(([tab, key]) => ({ tab, key, entry: `granted:${key}:x:exclusive` }));
      const first = await Promise.any(waiters.map((w) => until(w.tab, w.entry, 5_000).then(() => w)));
      const latency = (await loggedAt(first.tab, first.entry)) - t0;
      console.log(`# ${where}${impl}: the serving worker's tab crashed → waiter ${first.key} (${first.key == 'b' ? 'the first request' : 'the second'}) granted in ${latency} ms`);
      assert.ok(latency <= 1000, `granted after ${latency} ms`);
      assert.equal(first.key, 'b', 'the first request is granted first');
      const other = waiters.find((w) => w !== first);
      assert.ok(!(await within(other.tab, other.entry, 300)), 'x is not granted twice');
      const d = await page(s, current);
      await hold(d, 'd', 'y', { ifAvailable: true });
      await until(d, 'null:d');
      await release(first.tab, first.key);
      await until(other.tab, other.entry);
    });

    if (impl === 'native') return;

    // Parcel's dev server gives each page its own `?<timestamp>` on the wasm's URL, and so
    // does cache busting: each URL is another lock worker.
    it('lock managers whose wasm URLs differ by a query exclude each other and the page\'s', async () => {
      const s = await fresh();
      const [a, b] = [await page(s, 'current'), await page(s, 'current')];
      const requestWith = (tab, wasmUrl, options) =>
        tab.evaluate(
          async ([wasmUrl, options]) => {
            const { createLockManager } = await import('/builds/current/index.js');
            const locks = createLockManager({ wasmUrl });
            return new Promise((answered) => locks.request('x', options, (lock) => (answered(lock && lock.name), lock && new Promise(() => {}))));
          },
          [wasmUrl, options],
        );
      assert.equal(await requestWith(a, '/builds/current/web_locks_bg.wasm?1764259200001', {}), 'x');
      assert.equal(await requestWith(b, '/builds/current/web_locks_bg.wasm?1764259200002', { ifAvailable: true }), null);
      await hold(b, 'b', 'x', { ifAvailable: true });
      await until(b, 'null:b');
    });

    // The record names a lock worker by the URL its pages construct it with (its name says
    // so), not by its `location`: a worker whose script URL redirects is still reached.
    it('a lock worker whose script URL redirects serves another build\'s tab', async () => {
      const s = await fresh();
      const a = await page(s, 'current');
      await a.evaluate(async () => {
        const { createLockManager } = await import('/builds/current/index.js');
        const locks = createLockManager({ workerUrl: '/builds/current/web-locks-worker.js?redirect' });
        await new Promise((held) => locks.request('x', () => (held(), new Promise(() => {}))));
      });
      const b = await page(s, 'other');
      await hold(b, 'b', 'x', { ifAvailable: true });
      await until(b, 'null:b');
    });

    it('two copies of the package on one page are two clients of one lock manager; navigator.locks stays the first\'s', async () => {
      const s = await fresh();
      const a = await page(s, 'current');
      await hold(a, 'a', 'x');
      await until(a, 'granted:a:x:exclusive');
      const copy = await a.evaluate(async () => {
        const first = navigator.locks;
        const { createLockManager, install } = await import('/builds/copy/index.js');
        const locks = createLockManager();
        const excluded = await locks.request('x', { ifAvailable: true }, (lock) => lock === null);
        const held = await locks.request('y', () => navigator.locks.request('y', { ifAvailable: true }, (lock) => lock === null));
        return { excluded, held, kept: install() === first && navigator.locks === first };
      });
      assert.deepEqual(copy, { excluded: true, held: true, kept: true });
    });
  });
}
