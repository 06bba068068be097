// Every realm of the origin (§3.1: each environment's lock manager is its origin's). Windows
// a page's script creates — an about:blank iframe, a srcdoc one, a popup, a frame in a
// frame — have navigator.locks, LockManager and Lock of the one lock manager, as natively,
// and all their lock manager hands out is of their own realm; their end (removed, navigated,
// closed) releases what they and their workers held within 1 s, and settles nothing of
// theirs; a new document gets a new LockManager, the old one rejects; the polyfill's own
// messages never reach a worker's user handlers. And where storage is denied (a third-party
// frame, third-party storage blocked), request() and query() reject as natively (§2.2: no
// lock manager to obtain), or are served where native serves them.
//
// Native runs on the secure 127.0.0.1; the polyfill on the plain-http insecure.test, where
// it installs itself and nothing native is there to hide.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSER, IMPLS, hideNative, launch, where } from './harness/browser.mjs';

let env;
before(async () => {
  env = await launch();
});
after(() => env.close());

// In-page helpers (evaluated in the page): `R.hold(win, name)` takes `name` in window `win`
// and resolves once granted (held until R.free(name)); `R.tryIn(win, name)` says whether
// `name` is free there (ifAvailable); `R.waitFor(name, end)` calls `end()`, then says how
// long after it the page was granted `name` (or 'timeout' after 5 s); `R.shape(win)` what
// the realm exposes; `R.outcome(p)` how promise `p` (of any realm) settles, seen through this
// realm's `then` (a job of a detached realm never runs: HTML), within `ms` (else
// 'unsettled'); `R.navigate(frame, go)` calls `go()` and waits for the frame's next load.
function helpers() {
  const frees = {};
  window.R = {
    outcome: (p, ms = 5000) =>
      new Promise((resolve) => {
        Promise.prototype.then.call(p, (value) => resolve({ value }), (error) => resolve({ error }));
        setTimeout(() => resolve('unsettled'), ms);
      }),
    navigate(frame, go) {
      const loaded = new Promise((ok) => frame.addEventListener('load', ok, { once: true }));
      go();
      return loaded;
    },
    hold: (win, name) =>
      new Promise((granted) => {
        win.navigator.locks.request(name, () => (granted(), new Promise((free) => (frees[name] = free))));
      }),
    free: (name) => frees[name](),
    tryIn: (win, name) => win.navigator.locks.request(name, { ifAvailable: true }, (lock) => (lock ? 'free' : 'taken')),
    async waitFor(name, end) {
      const start = performance.now();
      const granted = navigator.locks.request(name, () => Math.round(performance.now() - start));
      await end();
      return Promise.race([granted, new Promise((late) => setTimeout(() => late('timeout'), 5000))]);
    },
    shape: (win) => ({
      locks: typeof win.navigator.locks,
      manager: win.navigator.locks instanceof win.LockManager,
      own: win.navigator.locks !== navigator.locks,
      lock: typeof win.Lock,
    }),
    frame(attributes = {}, doc = document) {
      const frame = doc.createElement('iframe');
      for (const [key, value] of Object.entries(attributes)) frame.setAttribute(key, value);
      const loaded = new Promise((ok) => (frame.onload = ok));
      doc.body.append(frame);
      return attributes.srcdoc ? loaded.then(() => frame) : frame;
    },
  };
}

const SHAPE = { locks: 'object', manager: true, own: true, lock: 'function' };

// Declared: where native departs from the spec (decided here, never from an outcome). The
// case then expects native's measured outcome there, so that the table fails when it is no
// longer true; the polyfill follows the spec everywhere.
const NATIVE_OFF_SPEC = {
  chromium: {
    lockRealm: "Chromium 156 makes the callback's Lock in the realm of the script that called request() (the page's here), not the LockManager's",
    order: "Chromium 156 may queue a frame's request after a later one of its page (§4.1 enqueues each in call order): 1 of 20 runs measured; only the queue's contents are checked",
    workerOrder: "Chromium 156 may queue a dedicated worker's request before the earlier one of its page that told it of it: 2 of 40 runs measured; only the queue's contents are checked",
  },
  webkit: {
    goneSettles: 'WebKitGTK 2.50.6 settles the pending promises of a document that has gone (removed or navigated away)',
  },
};
const offSpec = (impl, key) => impl === 'native' && (NATIVE_OFF_SPEC[BROWSER] || {})[key];
// Declared: an engine without the behaviour, natively too.
const WEBKIT_WORKERS_WAIT =
  "WebKitGTK 2.50.6 grants a dedicated worker's lock only once its page's running task ends, natively too (a timer of the worker's own asks during it)";
// Declared: where the polyfill falls short of the spec, so that the case checks what it does
// and says what it lacks.
const POLYFILL_SHORT = {
  workerOrder:
    "in Chromium and Firefox a dedicated worker's messages take a port of its own to the lock worker (so that a busy page holds none back, as natively there: the next case; in WebKit they go through its page's), and both deliver them out of order with its page's now and then",
};

for (const impl of IMPLS) {
  describe(`${where}${impl}: every same-origin realm the page creates`, () => {
    let context;
    let page;
    before(async () => {
      context = await env.browser.newContext();
      page = await context.newPage();
      const origin = impl === 'native' ? env.origin : env.insecureOrigin;
      await page.goto(`${origin}/tests/e2e/fixtures/page.html?impl=${impl}`);
      await page.waitForFunction(() => window.T && window.T.ready);
      await page.evaluate(helpers);
    });
    after(() => context.close());

    it('an about:blank iframe: the origin’s lock manager, its locks released when it is removed', async () => {
      const found = await page.evaluate(async () => {
        const frame = R.frame();
        const win = frame.contentWindow;
        const shape = R.shape(win);
        const ownPromise = win.navigator.locks.query() instanceof win.Promise;
        await R.hold(window, 'blank-page');
        const pageHeld = await R.tryIn(win, 'blank-page');
        await R.hold(win, 'blank-frame');
        const frameHeld = await R.tryIn(window, 'blank-frame');
        const seen = (await win.navigator.locks.query()).held.map((lock) => lock.name).sort();
        R.free('blank-page');
        const waited = await R.waitFor('blank-frame', () => frame.remove());
        return { shape, ownPromise, pageHeld, frameHeld, seen, waited };
      });
      assert.equal(found.ownPromise, true);
      console.log(`# ${where}${impl}: a removed about:blank iframe's lock granted to the page after ${found.waited} ms`);
      assert.deepEqual(found.shape, SHAPE);
      assert.equal(found.pageHeld, 'taken');
      assert.equal(found.frameHeld, 'taken');
      assert.deepEqual(found.seen, ['blank-frame', 'blank-page']);
      assert.ok(found.waited < 1000, `waited ${found.waited}`);
    });

    it('a srcdoc iframe, and a frame in a frame: released when navigated, and when the outer one is removed', async () => {
      const found = await page.evaluate(async () => {
        const frame = await R.frame({ srcdoc: '<p>srcdoc</p>' });
        const win = frame.contentWindow;
        const shape = R.shape(win);
        const url = win.location.href;
        await R.hold(win, 'srcdoc');
        const held = await R.tryIn(window, 'srcdoc');
        const navigated = await R.waitFor('srcdoc', () => (win.location.href = '/tests/e2e/fixtures/page.html?impl=bare'));
        const outer = R.frame();
        const inner = R.frame({}, outer.contentWindow.document).contentWindow;
        const innerShape = R.shape(inner);
        await R.hold(inner, 'nested');
        const nestedHeld = await R.tryIn(window, 'nested');
        const removed = await R.waitFor('nested', () => outer.remove());
        return { shape, url, held, navigated, innerShape, nestedHeld, removed };
      });
      console.log(`# ${where}${impl}: granted ${found.navigated} ms after a srcdoc frame navigated, ${found.removed} ms after a frame's frame's parent was removed`);
      assert.deepEqual(found.shape, SHAPE);
      assert.equal(found.url, 'about:srcdoc');
      assert.equal(found.held, 'taken');
      assert.ok(found.navigated < 1000, `navigated: waited ${found.navigated}`);
      assert.deepEqual(found.innerShape, SHAPE);
      assert.equal(found.nestedHeld, 'taken');
      assert.ok(found.removed < 1000, `removed: waited ${found.removed}`);
    });

    it('an iframe reached before its same-origin page has loaded: that page’s locks, released when it is removed', async () => {
      const found = await page.evaluate(async (impl) => {
        const frame = document.createElement('iframe');
        frame.src = `/tests/e2e/fixtures/page.html?impl=${impl}`;
        const loaded = new Promise((ok) => (frame.onload = ok));
        document.body.append(frame);
        const early = typeof frame.contentWindow.navigator.locks; // (its initial about:blank)
        await loaded;
        const win = frame.contentWindow;
        while (!(win.T && win.T.ready)) await new Promise((r) => setTimeout(r, 20));
        win.T.hold('k', 'reached-early');
        while (!win.T.log.includes('granted:k:reached-early:exclusive')) await new Promise((r) => setTimeout(r, 20));
        const shape = R.shape(win);
        const held = await R.tryIn(window, 'reached-early');
        const waited = await R.waitFor('reached-early', () => frame.remove());
        return { early, shape, held, waited };
      }, impl);
      console.log(`# ${where}${impl}: the lock of a removed iframe reached before its page loaded granted to the page after ${found.waited} ms`);
      assert.equal(found.early, 'object');
      assert.deepEqual(found.shape, SHAPE);
      assert.equal(found.held, 'taken');
      assert.ok(found.waited < 1000, `waited ${found.waited}`);
    });

    it('a popup: the origin’s lock manager, its locks released when it closes', async () => {
      const found = await page.evaluate(async () => {
        const win = open('about:blank', '', 'popup');
        if (!win) return 'blocked';
        const shape = R.shape(win);
        await R.hold(win, 'popup');
        const held = await R.tryIn(window, 'popup');
        const waited = await R.waitFor('popup', () => win.close());
        return { shape, held, waited };
      });
      assert.notEqual(found, 'blocked', 'the popup was blocked (no user activation)');
      console.log(`# ${where}${impl}: a closed popup's lock granted to the page after ${found.waited} ms`);
      assert.deepEqual(found.shape, SHAPE);
      assert.equal(found.held, 'taken');
      assert.ok(found.waited < 1000, `waited ${found.waited}`);
    });

    // WebIDL makes what an operation returns in the relevant realm of its object (its
    // promises, Lock, dictionaries and sequences), and its exceptions in the realm of the
    // operation: a frame's navigator.locks hands out nothing of the page's realm. Its own
    // errors are remade there; an abort reason is the signal's own.
    it('an about:blank iframe’s promises, Lock, snapshot and errors are of its realm', async () => {
      const found = await page.evaluate(async () => {
        const frame = R.frame();
        const win = frame.contentWindow;
        const locks = win.navigator.locks;
        const ofFrame = (value, name) => value instanceof win[name] && !(value instanceof window[name]);
        // (What a rejection or a throw gave: its constructor's name, and whether it is the
        // frame's DOMException or TypeError and not the page's.)
        const error = (e) => (e ? [e.name, ofFrame(e, e instanceof win.TypeError ? 'TypeError' : 'DOMException')] : ['no error']);
        const rejection = async (p) => [ofFrame(p, 'Promise'), ...error((await R.outcome(p)).error)];
        const thrown = (f) => {
          try {
            f();
          } catch (e) {
            return error(e);
          }
        };
        const out = {};
        out.interfaces = [
          ofFrame(locks, 'LockManager'),
          locks instanceof win.Object,
          win.Lock !== window.Lock,
          Object.getPrototypeOf(win.Lock) === win.Function.prototype,
          Object.getPrototypeOf(win.LockManager.prototype) === win.Object.prototype,
        ];
        // Granted: the callback's Lock, the request's and the query's promises.
        const granted = locks.request('realm-objects', (lock) => {
          out.lock = [ofFrame(lock, 'Lock'), lock instanceof win.Object, lock.name, lock.mode];
          return 'done';
        });
        out.granted = [ofFrame(granted, 'Promise'), await granted];
        // A snapshot with a held lock (the page's) and a pending request (the frame's).
        await R.hold(window, 'realm-snapshot');
        const waiting = locks.request('realm-snapshot', () => 'late');
        const queried = locks.query();
        const snapshot = await queried;
        const mine = snapshot.pending.find((info) => info.name === 'realm-snapshot');
        out.snapshot = [
          ofFrame(queried, 'Promise'),
          ofFrame(snapshot, 'Object'),
          ofFrame(snapshot.held, 'Array'),
          ofFrame(snapshot.pending, 'Array'),
          ofFrame(snapshot.held.find((info) => info.name === 'realm-snapshot'), 'Object'),
          ofFrame(mine, 'Object'),
          Object.keys(mine).join(),
        ];
        R.free('realm-snapshot');
        await waiting;
        // Rejections: the conversions' TypeErrors, the steps' DOMExceptions.
        out.rejected = {
          noCallback: await rejection(locks.request('realm-x')),
          badMode: await rejection(locks.request('realm-x', { mode: 'bogus' }, () => {})),
          notCallable: await rejection(locks.request('realm-x', {}, 'no')),
          reserved: await rejection(locks.request('-realm', () => {})),
          stealIfAvailable: await rejection(locks.request('realm-x', { steal: true, ifAvailable: true }, () => {})),
          notAManager: await rejection(win.LockManager.prototype.query.call({})),
        };
        // Thrown: the interfaces' constructors and a getter's brand check.
        out.thrown = {
          construct: thrown(() => new win.Lock()),
          brand: thrown(() => Object.getOwnPropertyDescriptor(win.Lock.prototype, 'name').get.call({})),
        };
        // A stolen lock's AbortError (settled by the lock manager, later).
        let stolen;
        await new Promise((granted) => {
          stolen = locks.request('realm-stolen', () => (granted(), new Promise(() => {})));
        });
        window.navigator.locks.request('realm-stolen', { steal: true }, () => {});
        out.stolen = await rejection(stolen);
        // An abort, of a request queued behind the frame's own lock: the signal's own reason,
        // whatever its realm.
        await R.hold(win, 'realm-abort');
        const controller = new AbortController();
        const aborted = locks.request('realm-abort', { signal: controller.signal }, () => {});
        controller.abort();
        out.abortReason = (await R.outcome(aborted)).error === controller.signal.reason;
        R.free('realm-abort');
        frame.remove();
        return out;
      });
      assert.deepEqual(found.interfaces, [true, true, true, true, true]);
      const lockOfFrame = !offSpec(impl, 'lockRealm');
      assert.deepEqual(found.lock, [lockOfFrame, lockOfFrame, 'realm-objects', 'exclusive']);
      assert.deepEqual(found.granted, [true, 'done']);
      assert.deepEqual(found.snapshot, [true, true, true, true, true, true, 'clientId,mode,name']);
      assert.deepEqual(found.rejected, {
        noCallback: [true, 'TypeError', true],
        badMode: [true, 'TypeError', true],
        notCallable: [true, 'TypeError', true],
        reserved: [true, 'NotSupportedError', true],
        stealIfAvailable: [true, 'NotSupportedError', true],
        notAManager: [true, 'TypeError', true],
      });
      assert.deepEqual(found.thrown, { construct: ['TypeError', true], brand: ['TypeError', true] });
      assert.deepEqual(found.stolen, [true, 'AbortError', true]);
      assert.equal(found.abortReason, true);
    });

    // A document that has gone runs nothing more: what its realm waited for never settles,
    // no callback of it runs, and nothing surfaces in the page (no unhandled rejection);
    // what it held is released.
    it('an iframe removed by its own lock’s callback: its promises never settle, the page hears nothing, its locks are released', async () => {
      const found = await page.evaluate(async () => {
        const heard = [];
        const listen = (e) => heard.push(`${e.reason && e.reason.name}: ${e.reason && e.reason.message}`);
        addEventListener('unhandledrejection', listen);
        const frame = R.frame();
        const win = frame.contentWindow;
        const locks = win.navigator.locks;
        const ran = [];
        // Queued behind the page's lock: never granted once the frame is gone.
        await R.hold(window, 'removed-queued');
        const queued = locks.request('removed-queued', () => ran.push('queued'));
        // Held by a callback of the frame's own realm (a function of its own, as its scripts
        // make) that never ends.
        let forever;
        await new Promise((granted) => {
          const callback = new win.Function('granted', 'return () => (granted(), new Promise(() => {}))')(granted);
          forever = locks.request('removed-forever', callback);
        });
        // Held by the callback that removes the frame, and returns.
        let removing;
        await new Promise((removed) => {
          removing = locks.request('removed-held', () => {
            ran.push('removing');
            frame.remove();
            removed();
            return 'returned';
          });
        });
        const outcomes = Promise.all([removing, queued, forever].map((p) => R.outcome(p, 2000)));
        const waited = await R.waitFor('removed-held', () => {});
        const waitedForever = await R.waitFor('removed-forever', () => {});
        R.free('removed-queued');
        const requeued = await R.waitFor('removed-queued', () => {});
        const settled = await outcomes;
        await new Promise((r) => setTimeout(r, 500));
        removeEventListener('unhandledrejection', listen);
        return { ran, settled, heard, released: [waited, waitedForever, requeued].map((ms) => ms < 1000) };
      });
      assert.deepEqual(found.ran, ['removing']);
      if (offSpec(impl, 'goneSettles')) assert.ok(found.settled.every((outcome) => outcome !== 'unsettled'));
      else assert.deepEqual(found.settled, ['unsettled', 'unsettled', 'unsettled']);
      assert.deepEqual(found.heard, []);
      assert.deepEqual(found.released, [true, true, true]);
    });

    // §3.2.1 step 3 and §3.2.2 step 2 come before any check of the request's options (steps
    // 5–9), and reject with the frame's own InvalidStateError.
    it('a detached iframe: request() and query() reject with its own InvalidStateError, before the options are checked', async () => {
      const found = await page.evaluate(async () => {
        const frame = R.frame();
        const win = frame.contentWindow;
        const locks = win.navigator.locks;
        // (Read before: a detached window's globals may be gone.)
        const { Promise: FramePromise, DOMException: FrameDOMException } = win;
        frame.remove();
        const outcome = async (p) => {
          const { error } = await R.outcome(p);
          return [p instanceof FramePromise, error && error.name, error instanceof FrameDOMException, !(error instanceof DOMException)];
        };
        return [
          await outcome(locks.request('detached', () => {})),
          await outcome(locks.request('-detached', () => {})),
          await outcome(locks.request('detached', { steal: true, ifAvailable: true }, () => {})),
          await outcome(locks.request('detached', { mode: 'shared', steal: true }, () => {})),
          await outcome(locks.request('detached', { signal: AbortSignal.abort() }, () => {})),
          await outcome(locks.query()),
        ];
      });
      for (const result of found) assert.deepEqual(result, [true, 'InvalidStateError', true, true]);
    });

    // An iframe appended again after its removal gets a new browsing context, with a new
    // window and navigator: a new LockManager. The old one, read after the removal too,
    // rejects with the old window's InvalidStateError.
    it('a reactivated iframe (removed, then appended again): a new LockManager, the old one rejects', async () => {
      const found = await page.evaluate(async () => {
        const frame = R.frame();
        const { navigator: old, DOMException: OldDOMException } = frame.contentWindow;
        frame.remove();
        const oldLocks = old.locks; // (read once the frame has gone)
        document.body.append(frame);
        const win = frame.contentWindow;
        const outcome = async (p) => {
          const { error } = await R.outcome(p);
          return [error && error.name, error instanceof OldDOMException];
        };
        const found = {
          navigator: win.navigator !== old,
          fresh: win.navigator.locks !== oldLocks && win.navigator.locks instanceof win.LockManager,
          usable: await R.tryIn(win, 'reactivated'),
          request: await outcome(oldLocks.request('reactivated', () => {})),
          query: await outcome(oldLocks.query()),
        };
        frame.remove();
        return found;
      });
      assert.deepEqual(found, {
        navigator: true,
        fresh: true,
        usable: 'free',
        request: ['InvalidStateError', true],
        query: ['InvalidStateError', true],
      });
    });

    // A window kept for a new same-origin document (an iframe's initial about:blank,
    // navigated) gives that document a new LockManager; the old one's document has gone: it
    // rejects, its pending promises never settle, its locks are released. And so on for the
    // documents after it, of windows of their own, and one gone back to.
    it('an iframe navigated from about:blank and back: a new LockManager for each document, the old ones reject', async () => {
      const found = await page.evaluate(async () => {
        const frame = R.frame();
        const first = frame.contentWindow;
        const { DOMException: FirstDOMException } = first;
        const initial = first.navigator.locks;
        await R.hold(first, 'kept-initial');
        const pending = initial.request('kept-initial', () => 'late');
        const url = '/tests/e2e/fixtures/page.html?impl=bare';
        const waited = await R.waitFor('kept-initial', () => R.navigate(frame, () => (first.location.href = url)));
        const second = frame.contentWindow;
        const kept = second.DOMException === FirstDOMException; // (the same window)
        const next = second.navigator.locks;
        const { DOMException: SecondDOMException } = second;
        const rejected = async (locks, D) => {
          const results = [await R.outcome(locks.request('kept-x', () => {})), await R.outcome(locks.query())];
          return results.map(({ error }) => [error && error.name, error instanceof D]);
        };
        const afterFirst = {
          fresh: next !== initial && next instanceof second.LockManager,
          usable: await R.tryIn(second, 'kept-second'),
          initial: await rejected(initial, FirstDOMException),
          pending: await R.outcome(pending, 500),
        };
        await R.navigate(frame, () => (second.location.href = `${url}&again`));
        await R.navigate(frame, () => frame.contentWindow.history.back());
        const back = frame.contentWindow;
        const afterBack = {
          url: back.location.search,
          fresh: ![initial, next].includes(back.navigator.locks) && back.navigator.locks instanceof back.LockManager,
          usable: await R.tryIn(back, 'kept-back'),
          initial: await rejected(initial, FirstDOMException),
          next: await rejected(next, SecondDOMException),
        };
        frame.remove();
        return { kept, released: waited < 1000, afterFirst, afterBack };
      });
      // (Where history.back() lands in a frame differs: WebKitGTK's polyfill run landed on
      // a document without the query. Each document there is another all the same.)
      const { url, ...afterBack } = found.afterBack;
      console.log(`# ${where}${impl}: the iframe's window kept for its first same-origin document: ${found.kept}; back at '${url}'`);
      const invalid = [['InvalidStateError', true], ['InvalidStateError', true]];
      assert.equal(found.released, true);
      const { pending, ...afterFirst } = found.afterFirst;
      assert.deepEqual(afterFirst, { fresh: true, usable: 'free', initial: invalid });
      if (offSpec(impl, 'goneSettles')) assert.notEqual(pending, 'unsettled');
      else assert.equal(pending, 'unsettled');
      assert.deepEqual(afterBack, { fresh: true, usable: 'free', initial: invalid, next: invalid });
    });

    it('requests a page and its frames make one after another are queued in that order (20 runs)', async () => {
      // Each run: three new about:blank frames and one in the second of them, each first
      // holding a lock of its own (so that query() tells its clientId), then, while the page
      // holds `name`, requests for it from frame 0, the page, frame 1, the nested frame and
      // frame 2, in that order, all in one task: the pending queue must be that order.
      const orders = await page.evaluate(async () => {
        const orders = [];
        for (let run = 0; run < 20; run++) {
          const outer = [R.frame(), R.frame(), R.frame()];
          const nested = R.frame({}, outer[1].contentWindow.document);
          const wins = [outer[0].contentWindow, window, outer[1].contentWindow, nested.contentWindow, outer[2].contentWindow];
          const name = `order-${run}`;
          await R.hold(window, name);
          await Promise.all(wins.map((win, i) => win != window && R.hold(win, `${name}-id-${i}`)));
          for (const win of wins) win.navigator.locks.request(name, () => {});
          const who = {};
          let snapshot;
          const deadline = Date.now() + 5000;
          do {
            await new Promise((r) => setTimeout(r, 20));
            snapshot = await navigator.locks.query();
          } while (snapshot.pending.filter((p) => p.name == name).length < wins.length && Date.now() < deadline);
          for (const { name: held, clientId } of snapshot.held) {
            if (held == name) who[clientId] ??= 'page';
            const i = held.startsWith(`${name}-id-`) && held.slice(-1);
            if (i) who[clientId] = i;
          }
          orders.push(snapshot.pending.filter((p) => p.name == name).map((p) => (who[p.clientId] == 'page' ? 1 : who[p.clientId])).join(''));
          R.free(name);
          for (const frame of outer) frame.remove();
        }
        return orders;
      });
      console.log(`# ${where}${impl}: the queue's orders: ${orders.join(' ')}`);
      const sorted = (order) => [...order].sort().join('');
      if (offSpec(impl, 'order')) assert.deepEqual(orders.map(sorted), Array(20).fill('01234'));
      else assert.deepEqual(orders, Array(20).fill('01234'));
    });

    for (const [whose, inFrame] of [['its', false], ["an about:blank frame's", true]]) it(`a request of the page, then one of ${whose} dedicated worker told of it (and the other way round), are queued in that order (20 runs each)`, async () => {
      // One worker, identified by a lock it holds; each run, while the page holds `name`, the
      // page requests it and then tells the worker, which requests it too, or the worker
      // requests it and then tells the page, which requests it: the pending queue must follow
      // that causal order ('pw' or 'wp').
      const orders = await page.evaluate(async ([polyfill, inFrame]) => {
        const code = `${polyfill ? `importScripts(${JSON.stringify(`${location.origin}/dist/web-locks.global.js`)});` : ''}
          onmessage = ({ data: [hold, name] }) => {
            if (hold) navigator.locks.request(name, () => (postMessage(0), new Promise(() => {})));
            else navigator.locks.request(name, () => {}), postMessage(0);
          };`;
        const frame = inFrame && R.frame();
        const worker = new (frame ? frame.contentWindow : window).Worker(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })));
        const tell = (hold, name) =>
          new Promise((heard) => {
            worker.onmessage = heard;
            worker.postMessage([hold, name]);
          });
        const prefix = inFrame ? 'causal-frame' : 'causal';
        await tell(true, `${prefix}-worker`);
        const workerId = (await navigator.locks.query()).held.find((lock) => lock.name == `${prefix}-worker`).clientId;
        const orders = [];
        for (let run = 0; run < 40; run++) {
          const name = `${prefix}-${run}`;
          await R.hold(window, name);
          if (run % 2) {
            await tell(false, name);
            navigator.locks.request(name, () => {});
          } else {
            navigator.locks.request(name, () => {});
            await tell(false, name);
          }
          let pending;
          const deadline = Date.now() + 5000;
          do {
            await new Promise((r) => setTimeout(r, 20));
            pending = (await navigator.locks.query()).pending.filter((p) => p.name == name);
          } while (pending.length < 2 && Date.now() < deadline);
          orders.push(pending.map((p) => (p.clientId == workerId ? 'w' : 'p')).join(''));
          R.free(name);
        }
        worker.terminate();
        if (frame) frame.remove();
        return orders;
      }, [impl === 'polyfill', inFrame]);
      console.log(`# ${where}${impl}: the queue's orders (${whose} worker): ${orders.join(' ')}`);
      const expected = Array.from({ length: 40 }, (_, run) => (run % 2 ? 'wp' : 'pw'));
      const sorted = (order) => [...order].sort().join('');
      const declared = impl === 'polyfill' && BROWSER != 'webkit' ? POLYFILL_SHORT.workerOrder : offSpec(impl, 'workerOrder');
      if (declared) {
        console.log(`# ${where}declared: ${declared}`);
        assert.deepEqual(orders.map(sorted), expected.map(sorted));
      } else assert.deepEqual(orders, expected);
    });

    it("a dedicated worker's request is granted while its page's thread is busy, as natively", async () => {
      // Why a worker's messages go through its page's link (as a frame's do, which keeps the
      // order above) only in WebKit: the worker asks, from a timer of its own, while its page
      // runs a 2 s task; it must be granted before that task ends, except in WebKit, which
      // natively grants it only after.
      const found = await page.evaluate(async (polyfill) => {
        const code = `${polyfill ? `importScripts(${JSON.stringify(`${location.origin}/dist/web-locks.global.js`)});` : ''}
          onmessage = ({ data: [name, after] }) => {
            const ask = () => navigator.locks.request(name, () => postMessage(performance.timeOrigin + performance.now()));
            if (after) setTimeout(ask, after), postMessage('armed');
            else ask();
          };`;
        const worker = new Worker(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })));
        const next = () => new Promise((heard) => (worker.onmessage = (event) => heard(event.data)));
        let heard = next();
        worker.postMessage(['busy-page-warm', 0]);
        await heard; // (its first connection goes through the page: adopt)
        heard = next();
        worker.postMessage(['busy-page', 300]);
        await heard;
        const granted = next();
        const busyEnd = performance.timeOrigin + performance.now() + 2000;
        while (performance.timeOrigin + performance.now() < busyEnd);
        const early = busyEnd - (await granted);
        worker.terminate();
        return { early };
      }, impl === 'polyfill');
      console.log(`# ${where}${impl}: the worker was granted ${Math.round(found.early)} ms before its page's task ended`);
      if (BROWSER == 'webkit') {
        console.log(`# ${where}declared: ${WEBKIT_WORKERS_WAIT}`);
        assert.ok(found.early <= 0, `granted ${found.early} ms before the page's task ended`);
      } else assert.ok(found.early > 0, `granted ${-found.early} ms after the page's task ended`);
    });

    it('a worker made with an about:blank iframe’s Worker: granted, its lock released with the iframe, and no message of the polyfill reaches its handlers', async () => {
      const found = await page.evaluate(async (polyfill) => {
        const frame = R.frame();
        const win = frame.contentWindow;
        const code = `${polyfill ? `importScripts(${JSON.stringify(`${location.origin}/dist/web-locks.global.js`)});` : ''}
          navigator.locks.request('frame-worker', () => (postMessage('granted'), new Promise(() => {})));`;
        const worker = new win.Worker(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })));
        const heard = [];
        worker.onmessage = (event) => heard.push(event.data);
        worker.addEventListener('message', (event) => heard.push(event.data));
        const deadline = Date.now() + 10_000;
        while (!heard.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        const held = await R.tryIn(window, 'frame-worker');
        const waited = await R.waitFor('frame-worker', () => frame.remove());
        return { heard, held, waited };
      }, impl === 'polyfill');
      console.log(`# ${where}${impl}: the lock of a removed iframe's worker granted to the page after ${found.waited} ms`);
      assert.deepEqual(found.heard, ['granted', 'granted']);
      assert.equal(found.held, 'taken');
      assert.ok(found.waited < 1000, `waited ${found.waited}`);
    });
  });
}

// §2.2: obtaining a lock manager fails where the storage bottle cannot be had. A frame of
// http://c.localhost in a page of http://a.localhost is third-party (*.localhost is loopback,
// and secure: the polyfill is forced over native there by hiding it). The polyfill's outcome
// is native request()'s, whatever this browser does with third-party storage.
describe(`${where}a third-party frame (storage of another site): request() and query() as natively`, () => {
  it('rejects, or grants, as native does', async () => {
    const outcomes = {};
    for (const impl of IMPLS) {
      const context = await env.browser.newContext();
      if (impl === 'polyfill') await context.addInitScript(hideNative);
      const page = await context.newPage();
      const port = new URL(env.origin).port;
      await page.goto(`http://a.localhost:${port}/tests/e2e/fixtures/page.html?impl=bare`);
      await page.evaluate(
        (src) =>
          new Promise((loaded) => {
            const frame = document.createElement('iframe');
            frame.onload = loaded;
            frame.src = src;
            document.body.append(frame);
          }),
        `http://c.localhost:${port}/tests/e2e/fixtures/page.html?impl=${impl}`,
      );
      const frame = await (await page.$('iframe')).contentFrame();
      await frame.waitForFunction(() => window.T && window.T.ready);
      outcomes[impl] = await frame.evaluate(async () => {
        const outcome = (promise) =>
          Promise.race([promise, new Promise((late) => setTimeout(() => late('timeout'), 10_000))]).then(
            (value) => (value === 'timeout' ? value : 'granted'),
            (error) => `${error.name}${error instanceof DOMException ? '' : ' (not a DOMException)'}`,
          );
        return {
          request: await outcome(navigator.locks.request('third-party', () => {})),
          query: await outcome(navigator.locks.query()),
        };
      });
      await context.close();
    }
    console.log(`# ${where}third-party frame: native ${JSON.stringify(outcomes.native)}, polyfill ${JSON.stringify(outcomes.polyfill)}`);
    // Both obtain the same lock manager (§3.2.1 step 4, §3.2.2 step 3): query() fails where
    // request() does, and only there. (Firefox ESR 153's native grants request() in a
    // partitioned third-party frame, yet rejects query() with a SecurityError: the spec
    // wins.)
    const { request } = outcomes.native;
    if (outcomes.native.query !== request) console.log(`# ${where}native deviates from the spec: query() ${outcomes.native.query} where request() is ${request}`);
    assert.deepEqual(outcomes.polyfill, { request, query: request });
  });
});

// install({ force: true }) over a native API (a secure page): the frames the page reaches get
// the polyfill too, over their native one, or they would hold locks of another lock manager.
describe(`${where}polyfill forced over native: the page's frames use it too`, () => {
  it('an about:blank iframe’s lock excludes the page’s, is released when it is removed, and nothing surfaces in the page', async () => {
    const context = await env.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${env.origin}/tests/e2e/fixtures/page.html?impl=bare`);
    await page.evaluate(helpers);
    const found = await page.evaluate(async () => {
      (await import('/dist/index.js')).install({ force: true });
      // (The frame's end must surface nothing in the page: issue 42's measurement.)
      const heard = [];
      const listen = (e) => heard.push(`${e.reason && e.reason.name}`);
      addEventListener('unhandledrejection', listen);
      const frame = R.frame();
      const win = frame.contentWindow;
      const polyfilled = !win.Object.getOwnPropertyDescriptor(win.Navigator.prototype, 'locks').get.toString().includes('[native code]');
      const ownRealm = win.navigator.locks.query() instanceof win.Promise && win.LockManager !== window.LockManager;
      await R.hold(win, 'forced');
      const held = await R.tryIn(window, 'forced');
      const waited = await R.waitFor('forced', () => frame.remove());
      await new Promise((r) => setTimeout(r, 1000));
      removeEventListener('unhandledrejection', listen);
      return { polyfilled, ownRealm, held, waited, heard };
    });
    await context.close();
    assert.deepEqual(
      { ...found, waited: found.waited < 1000 },
      { polyfilled: true, ownRealm: true, held: 'taken', waited: true, heard: [] },
    );
  });
});
