// WebKit for the end-to-end suites (E2E_BROWSER=webkit): Debian's WebKitGTK MiniBrowser driven
// by WebKitWebDriver over WebDriver classic, adapted to the part of Playwright's interface the
// suites use (see browser.mjs). A small client over fetch(), no dependency.
//
// - MiniBrowser has no headless mode: launchWebKit() starts an Xvfb of its own.
// - Each browser context is a MiniBrowser with ephemeral storage (a fresh storage partition, as
//   a Playwright context is) and a driver attached to it, with one session at a time (a new one
//   after a page crash: startSession()). Its pages are windows of that browser; the first window
//   stays open (about:blank), so that closing every page does not end it.
// - WebDriver classic runs one command at a time per session, in the window (and frame) it is
//   switched to: commands are queued per context and switch first. A long evaluate() or
//   waitForFunction() waits in the page in short slices, so that other pages' commands get
//   their turn in between (as Playwright's run side by side).
// - No init scripts in WebDriver classic: each context's MiniBrowser goes through an HTTP
//   proxy of the context's own, which forwards to the test servers (every host is loopback:
//   127.0.0.1, insecure.test) and puts <script src="/__webkit_e2e_init__.js"> first in every
//   HTML page it passes, frames included; the proxy answers that URL itself with the
//   context's init scripts, after a collector of the page's uncaught errors and unhandled
//   rejections (no console or error events either: `pageerror` is reported from what the
//   collector holds, at the page's next command). A same-origin script file passes a
//   `script-src 'self'` CSP. An iframe's srcdoc set from script gets the tag too; other
//   documents not loaded over HTTP (about:blank, blob:, a srcdoc attribute) get no init script.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';

// (Debian's, GTK 3 build: package libwebkit2gtk-4.1-0; the driver: webkit2gtk-driver.)
const MULTIARCH = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' }[process.arch] || `${process.arch}-linux-gnu`;
const MINIBROWSER = process.env.MINIBROWSER || `/usr/lib/${MULTIARCH}/webkit2gtk-4.1/MiniBrowser`;
const DRIVER = process.env.WEBKIT_DRIVER || '/usr/bin/WebKitWebDriver';
const INIT_PATH = '/__webkit_e2e_init__.js';
const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';
// How long one command may wait in a page for a promise or a predicate before it gives the
// context's other pages their turn.
const SLICE = 100;
// The driver's script timeout, and the longest any command may go unanswered.
const SCRIPT_TIMEOUT = 120_000;
const COMMAND_BOUND = SCRIPT_TIMEOUT + 10_000;

let versionPrinted = false;

// Every Xvfb and driver still running, ended if the test process exits (or is interrupted)
// without closing them (a driver's end ends its MiniBrowser).
const children = new Set();
const killChildren = () => children.forEach((child) => child.kill());
let watching = false;
function start(command, args, options) {
  if (!watching) {
    watching = true;
    process.once('exit', killChildren);
    for (const signal of ['SIGINT', 'SIGTERM']) {
      process.once(signal, () => (killChildren(), process.kill(process.pid, signal)));
    }
  }
  const child = spawn(command, args, options);
  children.add(child);
  const exited = once(child, 'exit').finally(() => children.delete(child));
  return { child, exited };
}

// Ends a process start() started: SIGTERM, then SIGKILL if it has not ended within 5 s.
async function stop({ child, exited }) {
  child.kill();
  const killed = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(killed);
}

// `bfcache`: WebKit's page cache on (Playwright turns Chromium's off unless told).
export async function launchWebKit({ bfcache = false } = {}) {
  const xvfb = await startXvfb();
  const contexts = new Set();
  return {
    async newContext() {
      const context = await webkitContext(xvfb.display, bfcache);
      contexts.add(context);
      context.onClose = () => contexts.delete(context);
      return context;
    },
    async close() {
      await Promise.all([...contexts].map((context) => context.close()));
      await xvfb.close();
    },
  };
}

async function startXvfb() {
  const xvfb = start('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  xvfb.child.stderr.on('data', (d) => (stderr += d));
  const display = await Promise.race([
    once(xvfb.child.stdio[3], 'data').then(([d]) => String(d).trim()),
    xvfb.exited.then(([code]) => Promise.reject(new Error(`Xvfb exited (${code}): ${stderr}`))),
  ]);
  return {
    display: `:${display}`,
    close: () => stop(xvfb),
  };
}

class WebDriverError extends Error {
  constructor(error, message) {
    super(`WebDriver ${error}: ${message}`);
    this.error = error;
  }
}

// A MiniBrowser, a driver attached to it and a session: `send()` runs one command now, `run()`
// queues a task (commands of its own) behind the others. MiniBrowser is started here, with its
// remote inspector on a port of its own, and the driver attaches to it (`--target`), so that a
// page crash does not end the context: WebKitWebDriver deletes the session as soon as one of
// its pages' web process dies ("session deleted because of page crash or hang"), while the
// browser and its other pages live on, and a new session on the same browser drives them
// (`renew()`; window handles differ in it: `onNewSession`). A command in flight as the browser
// sees the crash is never answered, and the browser then opens no new session: the harness
// crashes a page only while no command is in flight (`pause()`).
async function startSession(display, args) {
  const env = { ...process.env, DISPLAY: display };
  for (let attempt = 1; ; attempt++) {
    const inspector = `127.0.0.1:${await freePort()}`;
    const port = await freePort();
    const browser = start(MINIBROWSER, ['--automation', ...args], { env: { ...env, WEBKIT_INSPECTOR_SERVER: inspector }, stdio: 'ignore' });
    const driver = start(DRIVER, [`--port=${port}`, `--target=${inspector}`, '--replace-on-new-session'], { env, stdio: 'ignore' });
    const base = `http://127.0.0.1:${port}`;
    let dead = false;
    Promise.race([browser.exited, driver.exited]).then(() => (dead = true));
    // (A command unanswered for longer than any a page may take fails, naming itself, rather
    // than hold the suite until its file's timeout.)
    const request = async (method, path, body, wait = COMMAND_BOUND) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: body ? { 'content-type': 'application/json' } : {},
        body: body && JSON.stringify(body),
        signal: AbortSignal.timeout(wait),
      }).catch((e) => {
        throw e.name == 'TimeoutError' ? new Error(`WebKit: ${method} ${path.replace(/^\/session\/[^/]+/, '')} unanswered for ${wait} ms`) : e;
      });
      const { value } = await response.json();
      if (value && value.error) throw new WebDriverError(value.error, value.message);
      return value;
    };
    const kill = async () => {
      for (const started of [driver, browser]) await stop(started);
    };
    // (The driver listens within some 10 ms, MiniBrowser's inspector within some 500 ms: asked
    // until they answer, for 10 s. A port taken meanwhile ends one of them: other ports.)
    const open = async () => {
      for (const deadline = Date.now() + 10_000; ; ) {
        try {
          return await request(
            'POST',
            '/session',
            {
              capabilities: {
                alwaysMatch: {
                  // (A script still running in a page that entered the page cache is answered
                  // only at this timeout: long enough for the longest synchronous evaluate.)
                  timeouts: { script: SCRIPT_TIMEOUT, pageLoad: 60_000, implicit: 0 },
                },
              },
            },
            Math.max(deadline - Date.now(), 1000),
          );
        } catch (e) {
          if (dead || Date.now() > deadline) throw e;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    let opened;
    try {
      opened = await open();
    } catch (e) {
      await kill();
      if (attempt < 3) continue;
      throw new Error(`WebKit: no session (${e.message})`);
    }
    if (!versionPrinted) {
      versionPrinted = true;
      console.log(`# webkit: WebKitGTK ${opened.capabilities.browserVersion} (${opened.capabilities.browserName})`);
    }
    let sessionId = opened.sessionId;
    let queue = Promise.resolve();
    const session = {
      send: (method, path, body) => request(method, `/session/${sessionId}${path}`, body),
      onNewSession: async () => {},
      async renew() {
        sessionId = (await open()).sessionId;
        await session.onNewSession();
      },
      run(task) {
        const result = queue.then(task).catch(async (e) => {
          if (e.error !== 'invalid session id' || dead) throw e;
          await session.renew();
          return task();
        });
        queue = result.catch(() => {});
        return result;
      },
      // Resolves, once the task in flight (if any) has ended, to a function that lets the
      // tasks queued meanwhile run.
      pause() {
        let resume;
        const held = new Promise((r) => (resume = r));
        const idle = queue;
        queue = queue.then(() => held);
        return idle.then(() => resume);
      },
      // (After the commands queued, or 5 s: a command that never ends holds nothing up.)
      async close() {
        await Promise.race([queue, new Promise((r) => setTimeout(r, 5000))]);
        await session.send('DELETE', '').catch(() => {});
        await kill();
      },
    };
    return session;
  }
}

// Whether process `pid` runs: it exists and has not ended (a zombie, its parent yet to
// reap it, has).
function running(pid) {
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function freePort() {
  const server = createServer();
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    server.close(() => ok(port));
  }));
}

// The context's proxy: forwards every request to the same port on 127.0.0.1 and injects the
// init script's tag into HTML. `scripts()` gives the init script's source at request time.
async function startProxy(scripts) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, `http://${req.headers.host}`);
    if (url.pathname === INIT_PATH) {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' }).end(scripts());
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    const upstream = request(
      { host: '127.0.0.1', port: url.port || 80, method: req.method, path: url.pathname + url.search, headers },
      (up) => {
        if (!/^text\/html/i.test(up.headers['content-type'] || '')) {
          res.writeHead(up.statusCode, up.headers);
          up.pipe(res);
          return;
        }
        const chunks = [];
        up.on('data', (c) => chunks.push(c));
        up.on('end', () => {
          const body = Buffer.from(inject(Buffer.concat(chunks).toString('utf8')));
          res.writeHead(up.statusCode, { ...up.headers, 'content-length': body.length }).end(body);
        });
      },
    );
    upstream.on('error', (e) => res.headersSent ? res.destroy() : res.writeHead(502).end(String(e)));
    req.pipe(upstream);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return server;
}

// The tag goes first in <head>, or after the doctype, or first: before any script of the page.
function inject(html) {
  const tag = `<script src="${INIT_PATH}"></script>`;
  const at = /<head(\s[^>]*)?>/i.exec(html) || /^\s*<!doctype[^>]*>/i.exec(html);
  const i = at ? at.index + at[0].length : 0;
  return html.slice(0, i) + tag + html.slice(i);
}

// Runs first in every page: keeps its uncaught errors for the next command to collect; and
// a srcdoc set from script begins with the init script's tag too (as Playwright's init
// scripts run in every frame).
function collectErrors() {
  const tag = `<script src="${document.currentScript.src}"></script>`;
  const srcdoc = Object.getOwnPropertyDescriptor(HTMLIFrameElement.prototype, 'srcdoc');
  Object.defineProperty(HTMLIFrameElement.prototype, 'srcdoc', {
    ...srcdoc,
    set(html) {
      srcdoc.set.call(this, tag + html);
    },
  });
  const errors = [];
  Object.defineProperty(window, '__webkitE2E', { value: { errors, pending: {}, next: 0 } });
  const error = (e, prefix = '') =>
    e instanceof Error || e instanceof DOMException ? { name: e.name, message: e.message } : { name: 'Error', message: `${prefix}${String(e)}` };
  addEventListener('error', (e) => errors.push(e.error ? error(e.error, 'Uncaught ') : { name: 'Error', message: e.message }));
  addEventListener('unhandledrejection', (e) => errors.push(error(e.reason, 'Uncaught (in promise) ')));
}

async function webkitContext(display, bfcache) {
  const scripts = [[collectErrors, undefined]]; // [fn, arg]: run before any script of every page
  const source = () =>
    scripts.map(([fn, arg]) => `(${fn})(${literal(arg)});\n`).join('');
  const proxy = await startProxy(source);
  // (Popups without a user's gesture, as Playwright's Chromium allows them: a MiniBrowser
  // option of WebKitSettings.)
  const args = [`--proxy=http://127.0.0.1:${proxy.address().port}`, '--javascript-can-open-windows-automatically=true'];
  if (!bfcache) args.push('--enable-page-cache=false');
  let session;
  try {
    session = await startSession(display, args);
  } catch (e) {
    proxy.close();
    throw e;
  }
  // Each window by its first handle: its handle in the current session, and its number,
  // which is also its place on the screen (x), the one thing of a window the next session
  // can read (a crashed page's reads 0). Frames (element references) do not outlive a session.
  const windows = new Map();
  let placed = 0;
  const place = async (handle) => {
    const x = ++placed;
    await session.send('POST', '/window', { handle });
    await session.send('POST', '/window/rect', { x, y: 0 });
    windows.set(handle, { handle, x });
  };
  const anchor = await session.send('GET', '/window');
  await place(anchor);
  // Which window (its first handle) and frame the session is switched to.
  const current = { handle: anchor, frame: null };
  const switchTo = async (handle, frame = null) => {
    if (current.handle !== handle) {
      await session.send('POST', '/window', { handle: windows.get(handle).handle });
      Object.assign(current, { handle, frame: null });
    }
    if (current.frame !== frame) {
      await session.send('POST', '/frame', { id: frame });
      current.frame = frame;
    }
  };
  session.onNewSession = async () => {
    const found = new Map();
    for (const handle of await session.send('GET', '/window/handles')) {
      await session.send('POST', '/window', { handle });
      found.set((await session.send('GET', '/window/rect')).x, handle);
    }
    const lost = [...windows.values()].filter((w) => !found.has(w.x));
    for (const w of windows.values()) w.handle = found.get(w.x) ?? (lost.length === 1 ? found.get(0) : null);
    Object.assign(current, { handle: null, frame: null });
  };
  const context = {
    async newPage() {
      // (From a window that is open: the current one may have been closed.)
      const handle = await session.run(async () => {
        await switchTo(anchor);
        const { handle } = await session.send('POST', '/window/new', { type: 'window' });
        await place(handle);
        Object.assign(current, { handle, frame: null });
        return handle;
      });
      return webkitPage(context, session, switchTo, current, handle, () => windows.delete(handle));
    },
    async addInitScript(fn, arg) {
      scripts.push([fn, arg]);
    },
    newCDPSession() {
      throw new Error('WebKit: no DevTools protocol session (see needsCdp)');
    },
    // Kills a page's web process (`pid`, found by prepareCrash() in browser.mjs) and keeps
    // the context going: resolves, once no command is in flight, to the function that kills
    // it; commands of the context wait from then until the browser has seen the crash and a
    // new session drives its other pages.
    async prepareCrash(pid) {
      const resume = await session.pause();
      return () => {
        process.kill(pid, 'SIGKILL');
        (async () => {
          // (The browser sees it as its web process ends: some ms. The new session is opened
          // some ms later still, so that the browser ends the old one first.)
          while (running(pid)) await new Promise((r) => setTimeout(r, 5));
          await new Promise((r) => setTimeout(r, 100));
          await session.renew();
        })()
          // (Failing, the next command finds the session deleted, and opens one then.)
          .catch(() => {})
          .finally(resume);
      };
    },
    closed: null,
    close() {
      context.closed ||= (async () => {
        await session.close();
        const closed = new Promise((ok) => proxy.close(ok));
        proxy.closeAllConnections();
        await closed;
        context.onClose?.();
      })();
      return context.closed;
    },
  };
  return context;
}

// In the page: runs `run` (a function of no arguments) and answers at once, or within `slice`
// ms, with its result; a promise that takes longer is kept, and 'wait' asks for it again.
// `poll` instead: `run` is a predicate, called every `polling` ms until it returns something
// truthy (or a promise of it), for `timeout` ms at most. Values go back encoded (JSON plus
// undefined, NaN, ±Infinity, -0, bigints and errors), with the errors the collector holds.
// (`run` is called in a microtask: a timer of 0 ms it sets would otherwise run before
// WebKit's driver answers, which then waits for it, unlike Playwright's evaluate().)
function inPage(op, run, id, slice, polling, timeout) {
  const state =
    window.__webkitE2E ||
    (Object.defineProperty(window, '__webkitE2E', { value: { errors: [], pending: {}, next: 0 } }), window.__webkitE2E);
  const encode = (v) => {
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return { $: 'u' };
    if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0) ? v : { $: 'n', v: Object.is(v, -0) ? '-0' : String(v) };
    if (typeof v === 'bigint') return { $: 'b', v: String(v) };
    if (v === null || typeof v !== 'object') return v;
    if (v instanceof Error || v instanceof DOMException) return { $: 'e', name: v.name, message: v.message, stack: v.stack };
    if (v instanceof Date) return { $: 'd', v: v.toISOString() };
    if (Array.isArray(v)) return { $: 'a', v: v.map(encode) };
    const o = {};
    for (const k of Object.keys(v)) o[k] = encode(v[k]);
    return { $: 'o', v: o };
  };
  const failure = (e) => ({
    thrown: e instanceof Error || e instanceof DOMException ? `${e.name}: ${e.message}` : `Uncaught ${String(e)}`,
  });
  const answer = (result) => ({ ...result, errors: state.errors.splice(0) });
  const within = (promise) =>
    Promise.race([promise, new Promise((r) => setTimeout(r, slice, { pending: id }))]).then((result) => {
      if (!result.pending) delete state.pending[id];
      return answer(result);
    });
  const poll = () =>
    new Promise((ok) => {
      const end = Date.now() + timeout;
      const check = async () => {
        try {
          const v = await run();
          if (v) return ok({ value: encode(v) });
        } catch (e) {
          return ok(failure(e));
        }
        if (Date.now() > end) return ok({ thrown: `TimeoutError: waitForFunction: timeout ${timeout} ms exceeded` });
        setTimeout(check, polling);
      };
      check();
    });
  const start = () => {
    if (op === 'wait') return state.pending[id] ? within(state.pending[id]) : answer({ lost: true }); // (another document now)
    let value;
    try {
      value = op === 'poll' ? poll() : run();
    } catch (e) {
      return answer(failure(e));
    }
    if (op === 'evaluate' && !(value && typeof value.then === 'function')) return answer({ value: encode(value) });
    id = ++state.next;
    state.pending[id] = op === 'poll' ? value : Promise.resolve(value).then((v) => ({ value: encode(v) }), failure);
    return within(state.pending[id]);
  };
  return Promise.resolve().then(start);
}

// `arg` as a JavaScript literal: JSON, and undefined (in arrays and objects too, as
// Playwright passes it, for parameters' defaults), NaN, ±Infinity and -0.
function literal(v) {
  if (v === undefined) return 'undefined';
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (Array.isArray(v)) return `[${v.map(literal).join(', ')}]`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${literal(x)}`).join(', ')}}`;
  return JSON.stringify(v);
}

function decode(v) {
  if (v === null || typeof v !== 'object') return v;
  switch (v.$) {
    case 'u':
      return undefined;
    case 'n':
      return Number(v.v);
    case 'b':
      return BigInt(v.v);
    case 'd':
      return new Date(v.v);
    case 'e':
      return Object.assign(new Error(v.message), { name: v.name, stack: v.stack });
    case 'a':
      return v.v.map(decode);
    case 'o':
      return Object.fromEntries(Object.entries(v.v).map(([k, x]) => [k, decode(x)]));
  }
  throw new Error(`undecodable ${JSON.stringify(v)}`);
}

// A window (`frame`: an iframe of it, by its element) as a Playwright page or frame.
function webkitFrame(page, session, switchTo, handle, frame) {
  // `fn`: a function (called with `arg`) or an expression, as Playwright takes them.
  const call = (fn, arg) => (typeof fn === 'function' ? `() => (${fn})(${literal(arg)})` : `() => (${fn})`);
  const command = (op, run, id, polling = 0, timeout = 0) =>
    session.run(async () => {
      await switchTo(handle, frame);
      const script = `return (${inPage})(${JSON.stringify(op)}, ${run}, ${id}, ${SLICE}, ${polling}, ${timeout});`;
      const result = await session.send('POST', '/execute/sync', { script, args: [] });
      for (const { name, message } of result.errors) page.emit('pageerror', Object.assign(new Error(message), { name }));
      return result;
    });
  // Until the page's answer is there: waits in slices, queued behind other commands.
  const settle = async (first) => {
    let result = await first;
    while (result.pending) result = await command('wait', 'null', result.pending);
    if (result.lost) throw new Error('Execution context was destroyed (the page navigated)');
    if ('thrown' in result) throw new Error(result.thrown);
    return decode(result.value);
  };
  return {
    evaluate: (fn, arg) => settle(command('evaluate', call(fn, arg), 0)),
    // (Polling every `polling` ms, or 16 for 'raf'; `timeout` 0 is none, as in Playwright.)
    // A navigation meanwhile: polled again in the new document. Resolves to a handle of the
    // predicate's value (as JSON only: jsonValue()).
    async waitForFunction(fn, arg, { timeout = 30_000, polling = 16 } = {}) {
      const deadline = Date.now() + (timeout || 2 ** 31);
      const every = typeof polling === 'number' ? polling : 16;
      for (;;) {
        try {
          const value = await settle(command('poll', call(fn, arg), 0, every, Math.max(0, deadline - Date.now())));
          return { jsonValue: async () => value, dispose: async () => {} };
        } catch (e) {
          if (!e.message.startsWith('Execution context was destroyed') || Date.now() > deadline) throw e;
        }
      }
    },
  };
}

function webkitPage(context, session, switchTo, current, handle, forget) {
  const listeners = { pageerror: [] };
  const page = {
    emit: (event, value) => (listeners[event] || []).forEach((listener) => listener(value)),
    on(event, listener) {
      if (event !== 'pageerror') throw new Error(`WebKit: no '${event}' events from WebDriver classic`);
      listeners[event].push(listener);
    },
    waitForEvent(event) {
      throw new Error(`WebKit: no '${event}' events from WebDriver classic`);
    },
    context: () => context,
    goto: (url) => session.run(async () => (await switchTo(handle), session.send('POST', '/url', { url }))).then(() => null),
    reload: () => session.run(async () => (await switchTo(handle), session.send('POST', '/refresh', {}))).then(() => null),
    // (Playwright's `waitUntil: 'commit'`, for a page cache restore, which has no load event:
    // WebDriver's back returns once the page is shown, restored or loaded anew. A script
    // running in the page as it enters the cache would never answer: none is run here.)
    goBack: () => session.run(async () => (await switchTo(handle), session.send('POST', '/back', {}))).then(() => null),
    close: () =>
      session.run(async () => {
        await switchTo(handle);
        await session.send('DELETE', '/window');
        Object.assign(current, { handle: null, frame: null });
        forget();
      }),
    async $(selector) {
      const element = await session.run(async () => {
        await switchTo(handle);
        return session.send('POST', '/element', { using: 'css selector', value: selector }).catch((e) => {
          if (e.error === 'no such element') return null;
          throw e;
        });
      });
      return element && { contentFrame: async () => webkitFrame(page, session, switchTo, handle, { [ELEMENT]: element[ELEMENT] }) };
    },
  };
  Object.assign(page, webkitFrame(page, session, switchTo, handle, null));
  return page;
}
