// Installing and starting: the WebIDL shape the minified build keeps, in a window and a
// dedicated worker; a dedicated worker started from a blob: URL; what a context says as it
// installs (its database open, hello and watch); a first request while another tab is
// busy, or loads during another tab's long task. Native is the reference wherever it has the
// behaviour; each test opens a fresh browser context (fresh storage: a fresh lock manager,
// for the polyfill a fresh lock worker).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSER, IMPLS, NO_SHARED_WORKER, freshSessions, hold, launch, newSession, query, until, where } from './harness/browser.mjs';
import { recordProtocol } from './harness/protocol.mjs';

let env;
before(async () => {
  env = await launch();
});
after(() => env.close());

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Evaluated in a window and in a dedicated worker: the interface objects and the `locks`
// getter of (Worker)Navigator.prototype, as seen from script.
const SHAPE = `(async () => {
  const proto = Object.getPrototypeOf(navigator);
  const desc = Object.getOwnPropertyDescriptor(proto, 'locks');
  const call = (receiver) => {
    try {
      return desc.get.call(receiver) === navigator.locks ? 'the manager' : 'something else';
    } catch (e) {
      return e.constructor.name;
    }
  };
  const construct = (make) => {
    try {
      make();
      return 'constructed';
    } catch (e) {
      return e.constructor.name;
    }
  };
  return {
    names: [Lock.name, LockManager.name],
    lengths: [Lock.length, LockManager.length],
    nameDescriptor: Object.getOwnPropertyDescriptor(Lock, 'name'),
    lengthDescriptor: Object.getOwnPropertyDescriptor(LockManager, 'length'),
    constructors: [construct(() => new Lock()), construct(() => new LockManager()), construct(() => LockManager())],
    getter: [desc.get.name, desc.get.length, desc.enumerable, desc.configurable, desc.set === undefined],
    onNavigator: call(navigator),
    onObject: call({}),
    onPrototype: call(proto),
    onUndefined: call(undefined),
    onGlobal: call(globalThis),
    onInheritor: call(Object.create(proto)),
    viaNavigator: navigator.locks instanceof LockManager,
  };
})()`;

const EXPECTED_SHAPE = {
  names: ['Lock', 'LockManager'],
  lengths: [0, 0],
  nameDescriptor: { value: 'Lock', writable: false, enumerable: false, configurable: true },
  lengthDescriptor: { value: 0, writable: false, enumerable: false, configurable: true },
  constructors: ['TypeError', 'TypeError', 'TypeError'],
  getter: ['get locks', 0, true, true, true],
  onNavigator: 'the manager',
  onObject: 'TypeError',
  onPrototype: 'TypeError',
  onUndefined: 'TypeError',
  onGlobal: 'TypeError',
  onInheritor: 'TypeError',
  viaNavigator: true,
};

for (const impl of IMPLS) {
  describe(`${where}${impl}: installing and starting`, () => {
    const sessions = freshSessions(() => env, impl);
    const fresh = sessions.fresh;
    after(() => sessions.close());

    it('WebIDL shape in a window (minified build): names, lengths, brand-checked locks getter', async () => {
      const [page] = await fresh(1);
      assert.deepEqual(await page.evaluate(SHAPE), EXPECTED_SHAPE);
      assert.deepEqual(sessions.current.errors, []);
    });

    it('WebIDL shape in a dedicated worker', async () => {
      const [page] = await fresh(1);
      await page.evaluate(() => T.spawn('w'));
      await until(page, 'worker-ready');
      await page.evaluate((code) => T.tell('w', { cmd: 'eval', key: 'shape', code }), SHAPE);
      const entry = await page
        .waitForFunction(() => T.log.find((e) => e.startsWith('worker-eval:shape:')))
        .then((h) => h.jsonValue());
      assert.deepEqual(JSON.parse(entry.slice('worker-eval:shape:'.length)), EXPECTED_SHAPE);
    });

    it('a dedicated worker from a blob: URL that importScripts the global build by absolute URL', async () => {
      const [page] = await fresh(1);
      await page.evaluate(
        ({ polyfill, script }) => {
          const source = `
            if (${polyfill}) {
              delete WorkerNavigator.prototype.locks;
              delete self.LockManager;
              delete self.Lock;
              importScripts(${JSON.stringify(script)});
            }
            let release;
            onmessage = ({ data }) => {
              if (data === 'hold') {
                navigator.locks.request('blob-res', () => {
                  postMessage('blob-held');
                  return new Promise((r) => (release = r));
                });
              } else if (data === 'release') {
                release();
              }
            };
            postMessage('blob-ready:' + typeof WebLocksPolyfill);
          `;
          const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
          const worker = new Worker(url);
          worker.onmessage = (event) => T.log.push(event.data);
          worker.onerror = (event) => T.log.push(`blob-error:${event.message}`);
          T.workers.blob = worker;
        },
        { polyfill: impl === 'polyfill', script: new URL('/dist/web-locks.global.js', env.origin).href },
      );
      const ready = await page
        .waitForFunction(() => T.log.find((e) => e.startsWith('blob-')))
        .then((h) => h.jsonValue());
      assert.equal(ready, `blob-ready:${impl === 'polyfill' ? 'object' : 'undefined'}`);
      await page.evaluate(() => T.tell('blob', 'hold'));
      await until(page, 'blob-held');
      // The window is excluded while the worker holds the lock, and is its own client.
      const free = await page.evaluate(() => navigator.locks.request('blob-res', { ifAvailable: true }, (l) => l));
      assert.equal(free, null, "the worker's lock excludes the window");
      await hold(page, 'p', 'blob-res');
      const state = await query(page);
      assert.equal(state.held.length, 1);
      assert.equal(state.pending.length, 1);
      assert.notEqual(state.held[0][2], state.pending[0][2], 'the worker is its own client');
      await page.evaluate(() => T.tell('blob', 'release'));
      await until(page, 'granted:p:blob-res:exclusive');
      assert.ok(!(await page.evaluate(() => T.log)).some((e) => e.startsWith('blob-error')));
    });

    // A 3 s long task in `host`; 300 ms into it, the first request() of the page `pageOf()`
    // gives: when it was made and granted, and when the task began and ended (ms).
    async function firstRequestDuringLongTask(host, pageOf) {
      await host.evaluate(() => {
        setTimeout(() => {
          window.busy = [Date.now()];
          while (Date.now() < window.busy[0] + 3000);
          window.busy.push(Date.now());
        }, 0);
      });
      await sleep(300);
      const page = await pageOf();
      const times = await page.evaluate(
        () =>
          new Promise((resolve) => {
            const t0 = Date.now();
            navigator.locks.request('first', () => resolve([t0, Date.now()]));
          }),
      );
      return [...times, ...(await host.evaluate(() => window.busy))];
    }

    // Declared: where the engine serves the polyfill's lock worker through the main thread
    // of the tab that started it. WebKitGTK 2.50 relays every message of a SharedWorker so
    // (a user's SharedWorker shows it too: a connected port's round trip waits for that
    // tab's long task), and runs a tab's dedicated worker's (the lock worker's host where
    // SharedWorker is missing) only between that tab's tasks; Chromium services a
    // SharedWorker's new connection so (README "Known limits").
    const WAITS_FOR_HOST = {
      busy: impl === 'polyfill' && BROWSER === 'webkit' && (NO_SHARED_WORKER ? 'WebKitGTK 2.50 serves the lock worker its tab hosts only between that tab\'s tasks' : "WebKitGTK 2.50 relays a SharedWorker's messages through the main thread of the tab that started it"),
      loading:
        impl === 'polyfill' &&
        (BROWSER === 'webkit' || (BROWSER === 'chromium' && !NO_SHARED_WORKER)) &&
        (BROWSER === 'webkit' ? 'WebKitGTK 2.50: as above, for a new tab' : "Chromium 156 services a SharedWorker's new connection on the main thread of the tab that started it"),
    };
    it("a tab busy in a 3 s long task does not delay another tab's first request()", async () => {
      const [host] = await fresh(1);
      await query(host); // for the polyfill: the host tab starts the lock worker
      const b = await sessions.current.page();
      await sleep(1000); // b has loaded (and installed) well before the long task
      const [asked, granted, from, to] = await firstRequestDuringLongTask(host, () => b);
      assert.ok(from <= asked && asked < to, 'the request was made during the long task');
      const latency = granted - asked;
      console.log(`# ${where}${impl}: first request() while the worker's host tab is busy: granted in ${latency} ms`);
      if (WAITS_FOR_HOST.busy) {
        console.log(`# ${where}declared: ${WAITS_FOR_HOST.busy}`);
        assert.ok(latency >= 1500, `declared to wait for the long task, granted in ${latency} ms`);
      } else assert.ok(latency < 1500, `granted after ${latency} ms`);
    });

    it("a tab that loads during another tab's 3 s long task: its first request() is granted during it", async () => {
      const [host] = await fresh(1);
      await query(host); // for the polyfill: the host tab starts the lock worker
      const [asked, granted, from, to] = await firstRequestDuringLongTask(host, () => sessions.current.page());
      console.log(
        `# ${where}${impl}: a tab loaded during another tab's 3 s long task: first request() granted` +
          ` ${granted - from} ms after the long task began (${granted - asked} ms after it was made; the task took ${to - from} ms)`,
      );
      if (WAITS_FOR_HOST.loading) {
        console.log(`# ${where}declared: ${WAITS_FOR_HOST.loading}`);
        assert.ok(granted >= to - 100, `declared to wait for the long task, granted ${to - granted} ms before its end`);
      } else assert.ok(granted < to, `granted ${granted - to} ms after the long task ended`);
    });
  });
}

describe(`${where}polyfill: what a context says as it installs`, () => {
  const sessions = freshSessions(() => env, 'polyfill');
  after(() => sessions.close());

  for (const mode of ['success', 'error', 'throw']) {
    it(`protocol at install, database open ${mode === 'throw' ? 'throws' : mode === 'error' ? 'fails' : 'succeeds'}: open, hello, watch`, async () => {
      const session = await newSession(env, 'polyfill');
      try {
        await session.context.addInitScript(recordProtocol, mode);
        const page = await session.page();
        await page.waitForFunction(() => __protocol.some((e) => e.startsWith('watch:')));
        // Connected at install: a request needs nothing more. (With a failed database the
        // current worker refuses the db-less watch, and serves the context anyway.) Its grant
        // answers the hello: no hello is sent again after it, nor anything else at install.
        assert.equal(await page.evaluate(() => navigator.locks.request('p', (l) => l.name)), 'p');
        // (Without SharedWorker, the first tab's context says hello again, over a port, once its
        // tab's own lock worker serves: js/client/connection.js. Counted once.)
        const seen = (await page.evaluate(() => __protocol)).filter((e, at, all) => !(NO_SHARED_WORKER && e.startsWith('hello:') && at && all[at - 1].startsWith('hello:')));
        const db = seen[0].slice('open:'.length);
        const expected = {
          success: [`open:${db}`, `hello:${db}`, `watch:${db}`],
          error: [`open:${db}`, `hello:${db}`, 'watch:-'],
          throw: [`open:${db}`, 'hello:-', 'watch:-'],
        }[mode];
        assert.deepEqual(seen, expected);
      } finally {
        await session.close();
      }
    });
  }
});
