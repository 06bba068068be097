// Debian's Chromium driven over a bare DevTools pipe, for the benchmark's cold starts
// (bench/bench.mjs). Playwright auto-attaches to every new target with
// `waitForDebuggerOnStart` and lets a SharedWorker go only once its Node process has seen
// the worker and detached from it: measured here, the worker's `connect` event then came
// 15–28 ms after its script started, against 3–10 ms in a browser nobody attaches to, and
// native's own cold page took 57–78 ms against 40–61 ms. Here nothing is attached but the
// pages themselves, once created, as in a user's browser: no worker waits for a debugger.
import { serve } from '../scripts/serve.mjs';
import { CHROMIUM_ARGS, hideNative, hideSharedWorker, spawnChromium } from '../tests/e2e/harness/browser.mjs';

// The flags Playwright gives a headless Chromium that bear on timing: no throttling of
// pages it considers hidden.
const ARGS = [
  ...CHROMIUM_ARGS,
  '--headless',
  '--remote-debugging-pipe',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-renderer-backgrounding',
  '--mute-audio',
  '--no-default-browser-check',
];

// (`flags`: more command-line flags for Chromium.)
export async function launchPipe(flags = []) {
  const server = await serve(0);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const chromium = await spawnChromium([...ARGS, ...flags, 'about:blank'], ['ignore', 'ignore', 'ignore', 'pipe', 'pipe']);
  const cdp = devtools(chromium.child.stdio[3], chromium.child.stdio[4]);
  await cdp.send('Target.getTargets'); // (the browser is up)
  return {
    origin,
    // A new browser context (fresh storage, no worker running) for pages using `impl`.
    async newContext(impl) {
      const { browserContextId } = await cdp.send('Target.createBrowserContext');
      return {
        // Loads `path` (with `impl=` added to its query) in a new tab; `read(expression)`
        // waits until the page's `expression` gives something other than undefined (and
        // fails after 30 s).
        async open(path) {
          const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank', browserContextId });
          const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
          const send = (method, params) => cdp.send(method, params, sessionId);
          await send('Page.enable');
          // (`tab-hosted`: the polyfill where SharedWorker is missing.)
          const hidden = impl === 'tab-hosted' ? [hideNative, hideSharedWorker] : impl === 'polyfill' ? [hideNative] : [];
          for (const hide of hidden) await send('Page.addScriptToEvaluateOnNewDocument', { source: `(${hide})()` });
          const as = impl === 'tab-hosted' ? 'polyfill' : impl;
          await send('Page.navigate', { url: `${origin}${path}${path.includes('?') ? '&' : '?'}impl=${as}` });
          return {
            async read(expression) {
              const guarded = `location.href === 'about:blank' ? undefined : JSON.stringify(${expression})`;
              for (const end = Date.now() + 30_000; Date.now() < end; ) {
                // (Fails while the navigation replaces the document: tried again.)
                const reply = await send('Runtime.evaluate', { expression: guarded, returnByValue: true }).catch((error) => {
                  if (cdp.closed) throw error;
                  return null;
                });
                const value = reply && reply.result.value;
                if (value !== undefined) return JSON.parse(value);
                await new Promise((ok) => setTimeout(ok, 10));
              }
              throw new Error(`${path}: no ${expression} after 30 s`);
            },
            close: () => cdp.send('Target.closeTarget', { targetId }),
          };
        },
        // `expression` evaluated once in this context's SharedWorker (attached to only now,
        // long after it started), or undefined where it has none.
        async readWorker(expression) {
          const { targetInfos } = await cdp.send('Target.getTargets');
          const worker = targetInfos.find((t) => t.type === 'shared_worker' && t.browserContextId === browserContextId);
          if (!worker) return undefined;
          const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: worker.targetId, flatten: true });
          const reply = await cdp.send('Runtime.evaluate', { expression: `JSON.stringify(${expression})`, returnByValue: true }, sessionId);
          await cdp.send('Target.detachFromTarget', { sessionId });
          return reply.result.value === undefined ? undefined : JSON.parse(reply.result.value);
        },
        close: () => cdp.send('Target.disposeBrowserContext', { browserContextId }),
      };
    },
    async close() {
      await cdp.send('Browser.close').catch(() => {}); // (the pipe may close before its reply)
      await chromium.close();
      await new Promise((ok) => server.close(ok));
    },
  };
}

// The DevTools protocol over Chromium's pipe: JSON messages ended by a NUL byte. Once the
// pipe has closed (Chromium ended), every call fails.
function devtools(input, output) {
  let nextId = 0;
  let buffered = '';
  let closed = false;
  const waiting = new Map();
  const gone = (method) => new Error(`${method}: Chromium closed its DevTools pipe`);
  const close = () => {
    closed = true;
    for (const { method, fail } of waiting.values()) fail(gone(method));
    waiting.clear();
  };
  output.on('close', close);
  for (const stream of [input, output]) stream.on('error', close);
  output.setEncoding('utf8');
  output.on('data', (chunk) => {
    buffered += chunk;
    for (let end; (end = buffered.indexOf('\0')) >= 0; buffered = buffered.slice(end + 1)) {
      const message = JSON.parse(buffered.slice(0, end));
      const pending = waiting.get(message.id);
      if (!pending) continue; // an event
      waiting.delete(message.id);
      if (message.error) pending.fail(new Error(`${pending.method}: ${message.error.message}`));
      else pending.done(message.result);
    }
  });
  return {
    get closed() {
      return closed;
    },
    send(method, params = {}, sessionId) {
      if (closed) return Promise.reject(gone(method));
      const id = ++nextId;
      input.write(`${JSON.stringify({ id, method, params, sessionId })}\0`);
      return new Promise((done, fail) => waiting.set(id, { method, done, fail }));
    },
  };
}
