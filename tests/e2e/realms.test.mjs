// Every realm of the origin (§3.1: each environment's lock manager is its origin's). Windows
// a page's script creates — an about:blank iframe, a srcdoc one, a popup, a frame in a
// frame — have navigator.locks, LockManager and Lock of the one lock manager, as natively;
// their end (removed, navigated, closed) releases what they and their workers held within
// 1 s; the polyfill's own messages never reach a worker's user handlers. And where storage
// is denied (a third-party frame, third-party storage blocked), request() and query()
// reject as natively (§2.2: no lock manager to obtain), or are served where native serves them.
//
// Native runs on the secure 127.0.0.1; the polyfill on the plain-http insecure.test, where
// it installs itself and nothing native is there to hide.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { IMPLS, hideNative, launch, where } from './browser.mjs';

let env;
before(async () => {
  env = await launch();
});
after(() => env.close());

// In-page helpers (evaluated in the page): `R.hold(win, name)` takes `name` in window `win`
// and resolves once granted (held until R.free(name)); `R.tryIn(win, name)` says whether
// `name` is free there (ifAvailable); `R.waitFor(name, end)` calls `end()`, then says how
// long after it the page was granted `name` (or 'timeout' after 5 s); `R.shape(win)` what
// the realm exposes.
function helpers() {
  const frees = {};
  window.R = {
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

for (const impl of IMPLS) {
  describe(`${where}${impl}: every same-origin realm the page creates`, () => {
    let context;
    let page;
    before(async () => {
      context = await env.browser.newContext();
      page = await context.newPage();
      const origin = impl === 'native' ? env.origin : env.insecureOrigin;
      await page.goto(`${origin}/tests/e2e/page.html?impl=${impl}`);
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
      // (The polyfill's promises, like its LockManager and errors, are the page's realm's:
      // docs/lifecycle.md "Known limits".)
      assert.equal(found.ownPromise, impl === 'native');
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
        const navigated = await R.waitFor('srcdoc', () => (win.location.href = '/tests/e2e/page.html?impl=bare'));
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
        frame.src = `/tests/e2e/page.html?impl=${impl}`;
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

    it('a popup: the origin’s lock manager, its locks released when it closes', async (t) => {
      const found = await page.evaluate(async () => {
        const win = open('about:blank', '', 'popup');
        if (!win) return 'blocked';
        const shape = R.shape(win);
        await R.hold(win, 'popup');
        const held = await R.tryIn(window, 'popup');
        const waited = await R.waitFor('popup', () => win.close());
        return { shape, held, waited };
      });
      if (found === 'blocked') return t.skip(`${where}${impl}: the popup was blocked (no user activation)`);
      console.log(`# ${where}${impl}: a closed popup's lock granted to the page after ${found.waited} ms`);
      assert.deepEqual(found.shape, SHAPE);
      assert.equal(found.held, 'taken');
      assert.ok(found.waited < 1000, `waited ${found.waited}`);
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
      await page.goto(`http://a.localhost:${port}/tests/e2e/page.html?impl=bare`);
      await page.evaluate(
        (src) =>
          new Promise((loaded) => {
            const frame = document.createElement('iframe');
            frame.onload = loaded;
            frame.src = src;
            document.body.append(frame);
          }),
        `http://c.localhost:${port}/tests/e2e/page.html?impl=${impl}`,
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
  it('an about:blank iframe’s lock excludes the page’s, and is released when it is removed', async () => {
    const context = await env.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${env.origin}/tests/e2e/page.html?impl=bare`);
    await page.evaluate(helpers);
    const found = await page.evaluate(async () => {
      (await import('/dist/index.js')).install({ force: true });
      const frame = R.frame();
      const win = frame.contentWindow;
      const polyfilled = !win.Object.getOwnPropertyDescriptor(win.Navigator.prototype, 'locks').get.toString().includes('[native code]');
      await R.hold(win, 'forced');
      const held = await R.tryIn(window, 'forced');
      const waited = await R.waitFor('forced', () => frame.remove());
      return { polyfilled, held, waited };
    });
    await context.close();
    assert.deepEqual({ ...found, waited: found.waited < 1000 }, { polyfilled: true, held: 'taken', waited: true });
  });
});
