// Contexts that end without asking: crashes, removed and navigated iframes, terminated
// workers; and a busy holder that must keep its lock. Native is the reference.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { IMPLS, freshSessions, hold, launch, loggedAt, prepareCrash, query, spawnNested, until, where } from './harness/browser.mjs';


let env;
before(async () => {
  env = await launch();
});
after(() => env.close());

async function addFrame(page, id) {
  const impl = await page.evaluate(() => T.impl);
  await page.evaluate(
    ([id, impl]) =>
      new Promise((resolve) => {
        const frame = document.createElement('iframe');
        frame.id = id;
        frame.src = `/tests/e2e/fixtures/page.html?impl=${impl}`;
        frame.onload = resolve;
        document.body.append(frame);
      }),
    [id, impl],
  );
  const frame = await (await page.$(`#${id}`)).contentFrame();
  await frame.waitForFunction(() => window.T && window.T.ready);
  return frame;
}

for (const impl of IMPLS) {
  describe(`${where}${impl}: lifecycle`, () => {
    const sessions = freshSessions(() => env, impl);
    const fresh = sessions.fresh;
    after(() => sessions.close());

    it('a crashed tab (no pagehide) loses its lock: the waiter is granted within 1 s', async () => {
      const [b, a] = await fresh(2);
      await query(b); // b starts the lock worker: a's crash does not take the worker with it
      await hold(a, 'a', 'crash');
      await until(a, 'granted:a:crash:exclusive');
      await hold(b, 'b', 'crash');
      await query(b);
      const t0 = (await prepareCrash(a))();
      const latency = (await loggedAt(b, 'granted:b:crash:exclusive', 5_000)) - t0;
      console.log(`# ${where}${impl}: tab crash → waiter granted in ${latency} ms`);
      assert.ok(latency <= 1000, `granted after ${latency} ms`);
    });

    it('a holder busy in a 10 s synchronous task keeps its lock', async () => {
      const [a, b] = await fresh(2);
      await hold(a, 'a', 'busy');
      await until(a, 'granted:a:busy:exclusive');
      await hold(b, 'b', 'busy');
      await query(b);
      await a.evaluate(() => {
        setTimeout(() => {
          const end = Date.now() + 10_000;
          while (Date.now() < end);
        }, 0);
      });
      await new Promise((r) => setTimeout(r, 10_500));
      assert.deepEqual((await query(b)).held.length, 1);
      assert.ok(!(await b.evaluate(() => T.log)).some((e) => e.startsWith('granted:b')));
      await a.evaluate(() => T.release('a'));
      await until(b, 'granted:b:busy:exclusive');
    });

    it('an iframe is its own client; removing it releases its locks and drops its requests', async () => {
      const [page] = await fresh(1);
      const frame = await addFrame(page, 'f1');
      await hold(frame, 'f', 'frame-lock');
      await until(frame, 'granted:f:frame-lock:exclusive');
      await hold(page, 'p0', 'frame-queued');
      await until(page, 'granted:p0:frame-queued:exclusive');
      await hold(frame, 'f2', 'frame-queued'); // queued behind the page
      const state = await query(page);
      const ids = new Set(state.held.map((r) => r[2]));
      assert.equal(ids.size, 2, 'page and iframe have distinct clientIds');
      await hold(page, 'p', 'frame-lock');
      await page.evaluate(() => document.getElementById('f1').remove());
      await until(page, 'granted:p:frame-lock:exclusive');
      const after = await query(page);
      assert.deepEqual(after.pending, [], "the iframe's queued request is gone");
    });

    it('navigating an iframe away releases its locks', async () => {
      const [page] = await fresh(1);
      const frame = await addFrame(page, 'f2');
      await hold(frame, 'f', 'nav-lock');
      await until(frame, 'granted:f:nav-lock:exclusive');
      await hold(page, 'p', 'nav-lock');
      await page.evaluate(() => (document.getElementById('f2').src = 'about:blank'));
      await until(page, 'granted:p:nav-lock:exclusive');
    });

    it("a detached iframe's request() and query() reject with InvalidStateError", async () => {
      const [page] = await fresh(1);
      const result = await page.evaluate(async () => {
        const frame = document.createElement('iframe');
        frame.src = location.href;
        document.body.append(frame);
        while (!(frame.contentWindow.T && frame.contentWindow.T.ready)) await new Promise((r) => setTimeout(r, 10));
        const locks = frame.contentWindow.navigator.locks;
        frame.remove();
        // Settled through this realm's then: a job in the detached realm (awaiting its
        // promise, or its then's result) never runs in Firefox, as HTML specifies.
        const name = (p) =>
          new Promise((resolve) => Promise.prototype.then.call(p, () => resolve('resolved'), (e) => resolve(e.name)));
        // (With a signal too: converting it needs the realm's AbortSignal, which a detached
        // realm that had not used it yet has lost.)
        const signal = new AbortController().signal;
        return [
          await name(locks.request('x', { signal }, () => {})),
          await name(locks.request('x', () => {})),
          await name(locks.query()),
        ];
      });
      assert.deepEqual(result, ['InvalidStateError', 'InvalidStateError', 'InvalidStateError']);
    });

    for (const module of [false, true]) {
      it(`a dedicated ${module ? 'module worker (importing auto.js)' : 'worker'}: its locks exclude the window's, and terminate() releases them`, async () => {
        const [page] = await fresh(1);
        await page.evaluate((module) => T.spawn('w', module), module);
        await until(page, 'worker-ready');
        await page.evaluate(() => T.tell('w', { cmd: 'hold', key: 'w1', name: 'shared-res' }));
        await until(page, 'worker-granted:w1:shared-res');
        await hold(page, 'p', 'shared-res');
        const state = await query(page);
        assert.equal(state.held.length, 1);
        assert.equal(state.pending.length, 1, "the window waits for the worker's lock");
        assert.notEqual(state.held[0][2], state.pending[0][2], 'the worker is its own client');
        await page.evaluate(() => T.spawn('w2'));
        await until(page, 'worker-ready');
        await page.evaluate(() => T.tell('w2', { cmd: 'query' }));
        await until(page, 'worker-query:shared-res');
        await page.evaluate(() => T.terminate('w'));
        await until(page, 'granted:p:shared-res:exclusive');
      });
    }

    // A worker of a dedicated worker asks its parent for its link; the parent hands the
    // request on to the page.
    it("a worker of a dedicated worker: its locks exclude the window's, and its parent's terminate() releases them", async () => {
      const [page] = await fresh(1);
      await page.evaluate(() => T.spawn('w'));
      await until(page, 'worker-ready');
      await spawnNested(page, impl);
      await page.evaluate(() => T.tell('w', { cmd: 'nested', message: { cmd: 'hold', key: 'n1', name: 'deep' } }));
      await until(page, 'nested:worker-granted:n1:deep');
      await hold(page, 'p', 'deep');
      const state = await query(page);
      assert.deepEqual([state.held.length, state.pending.length], [1, 1], "the window waits for the nested worker's lock");
      assert.notEqual(state.held[0][2], state.pending[0][2], 'the nested worker is its own client');
      await page.evaluate(() => T.tell('w', { cmd: 'nested', message: { cmd: 'query' } }));
      await until(page, 'nested:worker-query:deep');
      await page.evaluate(() => T.terminate('w'));
      await until(page, 'granted:p:deep:exclusive');
    });
  });
}
