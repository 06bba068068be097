// When the lock worker fails: a first connection that reaches a lock worker dying with its
// tab, a fault inside the lock worker, and dedicated workers whose page cannot reach a lock
// worker (the wasm or the worker's script does not load, another origin's URL, no
// SharedWorker). Each test opens a fresh browser context.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BARE, BROWSER, NO_SHARED_WORKER, freshSessions, hold, launch, needsSharedWorker, needsWorkerInSharedWorker, nestedWorkerMayNotStart, prepareCrash, until, where } from './harness/browser.mjs';

let env;
before(async () => {
  env = await launch();
});
after(() => env.close());

const summary = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  return `min ${sorted[0]} / median ${sorted[sorted.length >> 1]} / max ${sorted[sorted.length - 1]} ms`;
};

describe(`${where}polyfill: a first connection as the lock worker dies`, () => {
  const sessions = freshSessions(() => env, 'polyfill');
  after(() => sessions.close());

  // Tab V starts the lock worker and holds a lock; tab A, open but not yet connected (it
  // loaded the package without installing it), creates its lock manager the moment V's
  // renderer crashes, taking the worker with it: A's first port can reach the dying worker
  // and never be answered. A must still get the lock, from a new worker.
  it('a client that first connects as the worker dies with its tab is served by a new worker', async () => {
    const times = [];
    for (let round = 0; round < 5; round++) {
      const [v] = await sessions.fresh(1);
      await hold(v, 'v', 'x');
      await until(v, 'granted:v:x:exclusive');
      const a = await sessions.current.context.newPage();
      await a.goto(`${env.origin}/tests/e2e/fixtures/page.html?impl=none`);
      await a.waitForFunction(() => window.T && window.T.ready);
      await a.evaluate(async () => {
        window.P = await import('/dist/index.js');
      });
      const crashV = await prepareCrash(v);
      // A connects right after the crash command, before the browser has noticed the crash
      // (connecting after that reaches a new worker at once). (WebKit: the harness runs A's
      // command once it has a new session, after the browser saw the crash: webkit.mjs.)
      crashV();
      const ms = await a.evaluate(
        () =>
          new Promise((resolve) => {
            const t0 = performance.now();
            P.createLockManager().request('x', () => resolve(Math.round(performance.now() - t0)));
            setTimeout(() => resolve(null), 20_000);
          }),
      );
      assert.notEqual(ms, null, `round ${round}: not granted within 20 s`);
      times.push(ms);
    }
    // A port that reached the dying worker is replaced after the 1 s watchdog; the others
    // reached a new worker at once. (Firefox now and then keeps the dead worker matched by
    // every later construction: the port after the next goes to a URL of its own, whose
    // worker, finding the dead one still recorded, sends it back once, and by the next
    // retry serves: about 5 s.)
    const swallowed = times.filter((ms) => ms >= 1000).length;
    console.log(
      `# polyfill: first connection during the worker's death → granted: ${summary(times)}` +
        ` (${swallowed} of ${times.length} rounds reached the dying worker)`,
    );
  });
});

// A fault inside the lock worker (here: reading one name throws) ends it (docs/lifecycle.md "Known
// limits"). Chromium and WebKit: its clients rebuild the state in a new one. Firefox reports the
// worker's uncaught error to every page's SharedWorker object, as for a script that failed to
// load, and a SharedWorker that ends itself with an IndexedDB open pending (its watches of
// the contexts) stays matched by new constructors that never connect: no new worker can
// start, so waiting requests reject (InvalidStateError) rather than wait for good; a held
// lock's callback runs on and its promise settles.
describe(`${where}polyfill: a fault inside the lock worker`, () => {
  const sessions = freshSessions(() => env, 'polyfill', BARE);
  after(() => sessions.close());

  // (Firefox rebuilds no faulted SharedWorker lock worker; a tab's, where SharedWorker is
  // missing, is rebuilt there too: docs/lifecycle.md "Known limits".)
  const rebuilt = BROWSER !== 'firefox' || NO_SHARED_WORKER;
  it(rebuilt ? 'a waiting request is re-sent to the new worker; the held lock is kept' : 'a waiting request rejects; the held lock is kept', async () => {
    const [page] = await sessions.fresh(1);
    const result = await page.evaluate(async (rebuilt) => {
      const { createLockManager } = await import('/dist/index.js');
      const wasm = encodeURIComponent(new URL('/dist/web_locks_bg.wasm', location.href).href);
      const workerUrl = `/tests/e2e/fixtures/degraded-worker.js?fault#wasm=${wasm}`;
      const [a, b] = [createLockManager({ workerUrl }), createLockManager({ workerUrl })];
      const log = [];
      let release;
      const held = a.request('x', () => new Promise((r) => (release = r))).then(
        () => log.push('a done'),
        (e) => log.push(`a ${e.name}`),
      );
      await a.query();
      const waiting = b.request('x', () => log.push('b')).then(
        () => log.push('b done'),
        (e) => log.push(`b ${e.name}`),
      );
      await b.query();
      // The fault, at this request's name; aborted at once, so that it is not sent again.
      const abort = new AbortController();
      a.request('fault', { signal: abort.signal }, () => {}).catch(() => {});
      abort.abort();
      await new Promise((r) => setTimeout(r, 1500)); // the state is rebuilt meanwhile
      const during = log.slice();
      const holders = rebuilt ? (await b.query()).held.map((l) => l.name) : [];
      release();
      const late = new Promise((r) => setTimeout(() => r('not settled within 10 s'), 10_000));
      await Promise.race([Promise.all([held, waiting]), late]);
      return { during, holders, log };
    }, rebuilt);
    assert.deepEqual(
      result,
      rebuilt
        ? { during: [], holders: ['x'], log: ['a done', 'b', 'b done'] }
        : { during: ['b InvalidStateError'], holders: [], log: ['b InvalidStateError', 'a done'] },
    );
  });
});

// A page whose polyfill cannot give its dedicated workers a lock worker: the wasm does not
// load, the lock worker's script does not (a 404: it fails to start), its URL is another
// origin's (Chromium throws at the construction, Firefox fails to start it), or the page
// has no SharedWorker at all (older Safari and Android: the polyfill installs nothing
// there). The worker's request rejects with InvalidStateError, rather than waiting forever
// (its port was lost inside the page's unread `adopt`, or with the worker that never
// started, or never answered) while the app's own listener got the polyfill's connection
// requests every 2 s.
describe(`${where}polyfill: a dedicated worker whose page cannot reach a lock worker`, () => {
  const sessions = freshSessions(() => env, 'polyfill', BARE);
  after(() => sessions.close());

  for (const [what, options, noSharedWorker] of [
    ['the wasm does not load', { wasmUrl: '/missing.wasm' }],
    ['the lock worker does not start (404)', { workerUrl: '/no-such-worker.js' }],
    ['the lock worker is cross-origin', { workerUrl: 'http://cross-origin.test/web-locks-worker.js' }],
    // (Without SharedWorker alone a tab hosts the lock worker: tests/e2e/tab-host.test.mjs.)
    ['neither SharedWorker nor BroadcastChannel in the page', {}, true],
  ]) {
    it(`${what}: the worker's request rejects`, async () => {
      const [page] = await sessions.fresh(1);
      // (`impl=bare` first: page.js installs nothing; the page installs as the case says.)
      await page.goto(`${env.origin}/tests/e2e/fixtures/page.html?impl=bare`);
      const result = await page.evaluate(
        async ({ options, noSharedWorker }) => {
          if (noSharedWorker) delete window.SharedWorker, delete window.BroadcastChannel;
          const { install } = await import('/dist/index.js');
          install(options);
          const log = [];
          const worker = new Worker('/tests/e2e/fixtures/worker.js?impl=polyfill');
          const done = new Promise((resolve) => {
            worker.onmessage = ({ data }) => {
              log.push(typeof data === 'string' ? data : 'an object');
              if (data === 'worker-ready') worker.postMessage({ cmd: 'hold', key: 'k', name: 'x' });
              if (typeof data === 'string' && data.startsWith('worker-rejected')) resolve();
            };
            setTimeout(resolve, 10_000);
          });
          await done;
          return { log, locks: typeof navigator.locks };
        },
        { options, noSharedWorker },
      );
      assert.deepEqual(result.log, ['worker-ready', 'worker-rejected:k:InvalidStateError']);
      assert.equal(result.locks, noSharedWorker ? 'undefined' : 'object');
    });
  }

  // The lock worker failed to start once (a 404 during a deploy), then started for the
  // page's request: a dedicated worker created later is served, not told that no lock
  // worker can be reached (it was, by a failure the page kept after its welcome).
  it("the lock worker failed to start once, then started: a later worker's request is granted", async () => {
    const [page] = await sessions.fresh(1);
    await page.goto(`${env.origin}/tests/e2e/fixtures/page.html?impl=bare`);
    const result = await page.evaluate(async () => {
      // (Its 404 reported: the polyfill logs it.)
      const failed = new Promise((resolve) => {
        const log = console.error;
        console.error = (...args) => (String(args[0]).includes('failed to start') && resolve(), log.apply(console, args));
      });
      const { install } = await import('/dist/index.js');
      install({ workerUrl: `/dist/web-locks-worker.js?fail-once=${Math.random()}` });
      const within = (promise, what) =>
        Promise.race([promise.then(() => 0), new Promise((resolve) => setTimeout(resolve, 10_000, what))]);
      const stuck =
        (await within(failed, 'the 404 was not reported within 10 s')) ||
        (await within(navigator.locks.request('a', () => {}), 'the request after it was not granted within 10 s'));
      if (stuck) return stuck;
      // (Its request made as it starts: before any answer to its first port.)
      const source = `delete WorkerNavigator.prototype.locks;
        importScripts('${location.origin}/dist/web-locks.global.js');
        navigator.locks.request('x', (lock) => lock.name)
          .then((name) => postMessage('granted:' + name), (error) => postMessage('rejected:' + error.name));`;
      const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
      return new Promise((resolve) => {
        worker.onmessage = ({ data }) => resolve(data);
        setTimeout(() => resolve('nothing within 10 s'), 10_000);
      }).finally(() => worker.terminate());
    });
    assert.equal(result, 'granted:x');
  });

  // Two levels down: a user's SharedWorker reaches the lock worker through the page, its
  // dedicated worker through it (their ports inside the adopts inside the page's port).
  it("the wasm does not load: a user's SharedWorker's dedicated worker's request rejects", { skip: needsWorkerInSharedWorker || needsSharedWorker }, async () => {
    const [page] = await sessions.fresh(1);
    await page.goto(`${env.origin}/tests/e2e/fixtures/page.html?impl=bare`);
    const log = await page.evaluate(async (mayNotStart) => {
      const { install } = await import('/dist/index.js');
      install({ wasmUrl: '/missing.wasm' });
      const log = [];
      await new Promise((resolve) => {
        const start = (url) => {
          const shared = new SharedWorker(url);
          shared.port.onmessage = ({ data }) => {
            log.push(data);
            if (data.startsWith('shared-ready')) {
              shared.port.postMessage({ cmd: 'hold', key: 's', name: 'x' });
              shared.port.postMessage({ cmd: 'spawn' });
            }
            if (data === 'shared-nested:worker-ready') {
              shared.port.postMessage({ cmd: 'nested', message: { cmd: 'hold', key: 'n', name: 'x' } });
            }
            if (data.startsWith('shared-nested:worker-rejected')) resolve();
          };
          return shared;
        };
        const first = start('/tests/e2e/fixtures/shared-worker.js?impl=polyfill');
        // (Where declared, `nestedWorkerMayNotStart`: that shared worker is closed and another
        // one does it all again, logged. Once the first one answered nothing more either,
        // not even its own request's rejection.)
        setTimeout(() => {
          if (!mayNotStart || log.some((line) => line.startsWith('shared-nested:'))) return;
          log.push('done again in another shared worker');
          first.port.postMessage({ cmd: 'close' });
          start('/tests/e2e/fixtures/shared-worker.js?impl=polyfill&again=1');
        }, 7_000);
        setTimeout(resolve, 20_000);
      });
      return log;
    }, nestedWorkerMayNotStart);
    if (log.includes('done again in another shared worker')) {
      console.log(`# ${where}the shared worker's dedicated worker did not start in 7 s; another shared worker did it all again`);
    }
    assert.ok(log.includes('shared-rejected:s:InvalidStateError'), log.join());
    assert.ok(log.includes('shared-nested:worker-rejected:n:InvalidStateError'), log.join());
  });
});
