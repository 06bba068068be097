// Edges of installing and connecting: the WebIDL shape the minified build keeps, a dedicated
// worker started from a blob: URL, a first connection that reaches a dying lock worker, and
// a first request while the tab hosting the lock worker is busy. Native is the reference
// wherever it has the behaviour; each test opens a fresh browser context (fresh storage: a
// fresh lock manager, for the polyfill a fresh lock worker).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BARE, BROWSER, IMPLS, NO_SHARED_WORKER, freshSessions, hold, launch, needsCrash, needsSharedWorker, needsWorkerInSharedWorker, prepareCrash, newSession, query, until, where } from './browser.mjs';

let env;
before(async () => {
  env = await launch();
});
after(() => env.close());

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A closed tab that says goodbye at its pagehide (it has no database the worker watches):
// `waiter` is then granted `entry`. Firefox ESR loses such a goodbye now and then (README
// "Known limits": measured about 1 close in 4): there the test is skipped, saying so.
async function releasedByGoodbye(t, waiter, entry) {
  const granted = await until(waiter, entry, 5000).then(() => true, () => false);
  if (granted || BROWSER !== 'firefox') return assert.ok(granted, `${entry} within 5 s of the close`);
  console.log(`# ${where}the closed tab's goodbye was lost (${entry} not within 5 s)`);
  t.skip('Firefox lost the closing tab\'s goodbye (docs/lifecycle.md "Known limits")');
  return 'lost';
}
const summary = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  return `min ${sorted[0]} / median ${sorted[sorted.length >> 1]} / max ${sorted[sorted.length - 1]} ms`;
};

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
  describe(`${where}${impl}: edges`, () => {
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

// Records, in page order, the context's IndexedDB opens of its liveness database and the
// hello/watch messages it posts; `mode` makes those opens fail: 'error' (an error event: a
// lower version than the database has) or 'throw' (IndexedDB unusable).
function recordProtocol(mode) {
  const seen = (globalThis.__protocol = []);
  const ours = (name) => typeof name === 'string' && name.startsWith('web-locks-client-');
  const open = IDBFactory.prototype.open;
  if (mode === 'error') open.call(indexedDB, 'edges-higher', 2);
  IDBFactory.prototype.open = function (name, version) {
    if (!ours(name)) return open.call(this, name, version);
    seen.push(`open:${name}`);
    if (mode === 'throw') throw new DOMException('blocked', 'SecurityError');
    return mode === 'error' ? open.call(this, 'edges-higher', 1) : open.call(this, name, version);
  };
  // (Over a port, or a BroadcastChannel where SharedWorker is missing; a hello sent again
  // there until answered, the same message, is seen once.)
  const posted = new WeakSet();
  for (const Link of [MessagePort, BroadcastChannel]) {
    const post = Link.prototype.postMessage;
    Link.prototype.postMessage = function (message, ...rest) {
      if (message && (message.type === 'hello' || message.type === 'watch') && !posted.has(message)) {
        posted.add(message);
        seen.push(`${message.type}:${'db' in message ? message.db : '-'}`);
      }
      return post.call(this, message, ...rest);
    };
  }
}

describe(`${where}polyfill: edges`, () => {
  const sessions = freshSessions(() => env, 'polyfill');
  after(() => sessions.close());

  for (const mode of ['success', 'error', 'throw']) {
    it(`protocol at install, database open ${mode === 'throw' ? 'throws' : mode === 'error' ? 'fails' : 'succeeds'}: open, hello, watch`, async () => {
      const session = await newSession(env, 'polyfill');
      try {
        await session.context.addInitScript(recordProtocol, mode);
        const page = await session.page();
        await page.waitForFunction(() => __protocol.some((e) => e.startsWith('watch:')));
        await sleep(200); // nothing more is sent
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
        // Connected at install: no request needed. (With a failed database the current worker
        // refuses the db-less watch, and serves the context anyway.)
        assert.equal(await page.evaluate(() => navigator.locks.request('p', (l) => l.name)), 'p');
      } finally {
        await session.close();
      }
    });
  }

  // A context without IndexedDB has no database for the worker to watch: it says goodbye at
  // pagehide. A request made after that (here by the app's own pagehide listener, a last
  // save under a lock) must not connect it again as a client that nothing would end.
  it('a context without IndexedDB: a request after its goodbye leaves nothing held', async (t) => {
    const [b] = await sessions.fresh(1);
    await sessions.current.context.addInitScript(() => {
      if (location.search.includes('noidb')) Object.defineProperty(window, 'indexedDB', { value: undefined });
    });
    const a = await sessions.current.page('/tests/e2e/page.html?noidb');
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
    if ((await releasedByGoodbye(t, b, 'granted:b2:other:exclusive')) === 'lost') return;
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
  it('storage cleared under open tabs: a tab open at the clear and one opened after it release their locks when closed', { skip: NO_SHARED_WORKER && 'counts a SharedWorker\'s reconnections' }, async (t) => {
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
      if ((await releasedByGoodbye(t, b, `granted:${key}:${name}:exclusive`)) === 'lost') return;
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
    await sleep(300); // b's request is queued
    await c.close();
    await until(b, 'granted:b:after:exclusive', 5000);
  });

  // Tab V starts the lock worker and holds a lock; tab A, open but not yet connected (it
  // loaded the package without installing it), creates its lock manager the moment V's
  // renderer crashes, taking the worker with it: A's first port can reach the dying worker
  // and never be answered. A must still get the lock, from a new worker.
  it('a client that first connects as the worker dies with its tab is served by a new worker', { skip: needsCrash }, async () => {
    const times = [];
    for (let round = 0; round < 5; round++) {
      const [v] = await sessions.fresh(1);
      await hold(v, 'v', 'x');
      await until(v, 'granted:v:x:exclusive');
      const a = await sessions.current.context.newPage();
      await a.goto(`${env.origin}/tests/e2e/page.html?impl=none`);
      await a.waitForFunction(() => window.T && window.T.ready);
      await a.evaluate(async () => {
        window.P = await import('/dist/index.js');
      });
      const crashV = await prepareCrash(v);
      // A connects right after the crash command, before the browser has noticed the crash
      // (connecting after that reaches a new worker at once).
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
      const workerUrl = `/tests/e2e/degraded-worker.js?fault#wasm=${wasm}`;
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
      const locks = createLockManager({ workerUrl: `/tests/e2e/degraded-worker.js?wasm-fails-once#wasm=${wasm}` });
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
        const workerUrl = `/tests/e2e/degraded-worker.js?${mode}#wasm=${wasm}`;
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
      await page.goto(`${env.origin}/tests/e2e/page.html?impl=bare`);
      const result = await page.evaluate(
        async ({ options, noSharedWorker }) => {
          if (noSharedWorker) delete window.SharedWorker, delete window.BroadcastChannel;
          const { install } = await import('/dist/index.js');
          install(options);
          const log = [];
          const worker = new Worker('/tests/e2e/worker.js?impl=polyfill');
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
    await page.goto(`${env.origin}/tests/e2e/page.html?impl=bare`);
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
    await page.goto(`${env.origin}/tests/e2e/page.html?impl=bare`);
    const log = await page.evaluate(async () => {
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
        const first = start('/tests/e2e/shared-worker.js?impl=polyfill');
        // (Firefox ESR now and then never starts a shared worker's dedicated worker, also
        // with native locks: workers.test.mjs; once its shared worker answered nothing more
        // either, not even its own request's rejection, and spawning again in it failed too.
        // Then that shared worker is closed and another one does it all again, logged.)
        setTimeout(() => {
          if (log.some((line) => line.startsWith('shared-nested:'))) return;
          log.push('done again in another shared worker');
          first.port.postMessage({ cmd: 'close' });
          start('/tests/e2e/shared-worker.js?impl=polyfill&again=1');
        }, 7_000);
        setTimeout(resolve, 20_000);
      });
      return log;
    });
    if (log.includes('done again in another shared worker')) {
      console.log(`# ${where}the shared worker's dedicated worker did not start in 7 s; another shared worker did it all again`);
    }
    assert.ok(log.includes('shared-rejected:s:InvalidStateError'), log.join());
    assert.ok(log.includes('shared-nested:worker-rejected:n:InvalidStateError'), log.join());
  });
});
