// Shared by the end-to-end tests and the benchmark: Debian's Chromium via playwright-core
// (or, with E2E_BROWSER=firefox, Debian's Firefox ESR via puppeteer-core over WebDriver
// BiDi; with E2E_BROWSER=webkit, Debian's WebKitGTK over WebDriver classic (webkit.mjs);
// each behind the same Playwright-shaped interface), a static server, and pages that use
// either the native API or the polyfill.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../../../scripts/serve.mjs';
import { testRoutes } from './routes.mjs';
import { launchWebKit } from './webkit.mjs';

export const IMPLS = ['native', 'polyfill'];

// The browser the suites run in: 'chromium' (default), 'firefox' or 'webkit'.
export const BROWSER = process.env.E2E_BROWSER || 'chromium';
if (!['chromium', 'firefox', 'webkit'].includes(BROWSER)) throw new Error(`E2E_BROWSER=${BROWSER}: chromium, firefox or webkit`);
// Chromium's DevTools protocol: stopping a service worker, injecting a fault into a worker. A
// test that needs it says `{ skip: needsCdp }`: skipped elsewhere, with the reason.
export const needsCdp = BROWSER !== 'chromium' && `${BROWSER}: needs Chromium's DevTools protocol (service worker stop, worker fault)`;
// Prefixes describe() names outside Chromium, so that reports say where they ran.
export const where = BROWSER === 'chromium' ? '' : `${BROWSER} `;

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
  // http://insecure.test:<port>/ is the test server as a plain-http, non-secure origin.
  '--host-resolver-rules=MAP insecure.test 127.0.0.1',
];

// A Chromium of the suite's own, with no driver attached to it (see bench/pipe.mjs) and a
// throwaway profile: `args` follow the profile's, `stdio` as for spawn().
export async function spawnChromium(args, stdio = 'ignore') {
  const profile = await mkdtemp(join(tmpdir(), 'web-locks-chromium-'));
  const child = spawn(process.env.CHROMIUM || '/usr/bin/chromium', [`--user-data-dir=${profile}`, ...args], { stdio });
  const exited = new Promise((ok) => child.once('exit', ok));
  return {
    child,
    exited,
    async close() {
      child.kill();
      await exited;
      // (Chromium's helper processes may still be writing into the profile: retry.)
      await rm(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    },
  };
}

// `bfcache: true` keeps the back/forward cache, which Playwright turns off by default.
export async function launch({ bfcache = false } = {}) {
  // (Firefox keeps no page served with `no-store` in its back/forward cache; Chromium none
  // whose script, a dedicated worker's too, fetched a `no-store` response: a tab's lock
  // worker fetches the wasm (measured: evicted, reason "masked").)
  const server = await serve(0, { store: bfcache && BROWSER !== 'webkit', route: testRoutes() });
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser =
    BROWSER === 'firefox' ? await launchFirefox()
    : BROWSER === 'webkit' ? await launchWebKit({ bfcache })
    : await chromium.launch({
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      args: CHROMIUM_ARGS,
      ignoreDefaultArgs: bfcache ? ['--disable-back-forward-cache'] : [],
    });
  return {
    origin,
    insecureOrigin: origin.replace('127.0.0.1', 'insecure.test'),
    browser,
    async close() {
      await browser.close();
      await new Promise((ok) => server.close(ok));
    },
  };
}

// Prepares to crash `page`'s tab as a renderer crash does (no pagehide, no unload, its
// workers gone with it) and returns the crash: a function that starts it and returns
// Date.now() then. Chromium: its DevTools protocol's Page.crash. Firefox and WebKit: SIGKILL to
// the content process that hosts the tab (each tab of the suites has one of its own in both;
// a test whose other pages shared it would see them crash too), found before, as the process
// whose CPU time a busy moment in the page grows. (WebKit: from the preparation until the
// browser has seen the crash, no command runs in the page's context: see webkit.mjs.)
export async function prepareCrash(page) {
  if (BROWSER === 'chromium') {
    const cdp = await page.context().newCDPSession(page);
    return () => {
      const t0 = Date.now();
      cdp.send('Page.crash').catch(() => {}); // (never answered)
      return t0;
    };
  }
  const pid = await contentProcess(page);
  const kill = BROWSER === 'webkit' ? await page.context().prepareCrash(pid) : () => process.kill(pid, 'SIGKILL');
  return () => {
    const t0 = Date.now();
    kill();
    return t0;
  };
}
export const crash = async (page) => (await prepareCrash(page))();

// Firefox's and WebKit's content processes below this one: pid → CPU time (clock ticks).
const CONTENT = /-isForBrowser|WebKitWebProcess/;
function contentProcesses() {
  const procs = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.set(+pid, { ppid: +fields[1], cpu: +fields[11] + +fields[12], cmd: readFileSync(`/proc/${pid}/cmdline`, 'utf8') });
    } catch {
      // (It ended meanwhile.)
    }
  }
  const mine = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, { ppid }] of procs) {
      if (!mine.has(pid) && mine.has(ppid)) {
        mine.add(pid);
        grew = true;
      }
    }
  }
  return new Map([...procs].filter(([pid, p]) => mine.has(pid) && CONTENT.test(p.cmd)).map(([pid, p]) => [pid, p.cpu]));
}
// The process whose CPU time grows by a busy moment in `page` (300 ms: 30 ticks), clearly
// ahead of every other (by 3 times). Another tab starting up can grow a few ticks meanwhile:
// the busy moments are repeated, and the growth summed, until one process is ahead (at most
// four of them; then it fails, saying what grew).
const BUSY_MOMENTS = 4;
async function contentProcess(page) {
  const grown = new Map();
  for (let moment = 1; ; moment++) {
    const before = contentProcesses();
    await page.evaluate(() => {
      for (const t = performance.now(); performance.now() - t < 300; );
    });
    for (const [pid, cpu] of contentProcesses()) grown.set(pid, (grown.get(pid) ?? 0) + cpu - (before.get(pid) ?? cpu));
    const ranked = [...grown].sort((a, b) => b[1] - a[1]);
    if (ranked.length && ranked[0][1] >= 15 * moment && !(ranked[1] && ranked[1][1] > ranked[0][1] / 3)) return ranked[0][0];
    if (moment === BUSY_MOMENTS) {
      throw new Error(`${BROWSER}: cannot tell which process hosts the tab (CPU ticks grown in ${moment} busy moments: ${JSON.stringify(ranked.slice(0, 3))})`);
    }
  }
}

// Hides the native API before any script runs, so the polyfill's auto-install takes over.
export function hideNative() {
  for (const proto of [globalThis.Navigator, globalThis.WorkerNavigator]) {
    if (proto) delete proto.prototype.locks;
  }
  delete globalThis.LockManager;
  delete globalThis.Lock;
}

// E2E_SHARED_WORKER=none: the suites run where SharedWorker is missing (older Android and
// Safari, some webviews): an init script removes it from every page and frame before any
// script runs, for native and polyfill alike. The polyfill then hosts its lock worker in a
// tab (src/service/tabs.rs). `needsSharedWorker` skips, with the reason, what needs one.
export const NO_SHARED_WORKER = process.env.E2E_SHARED_WORKER === 'none';
export const needsSharedWorker = NO_SHARED_WORKER && 'no SharedWorker in this mode';
// Chromium and WebKit have no Worker in shared workers: a test that needs one says
// `{ skip: needsWorkerInSharedWorker }`.
export const needsWorkerInSharedWorker = { chromium: 'Chromium has no Worker in shared workers', webkit: 'WebKit has no Worker in shared workers' }[BROWSER];
// Firefox ESR now and then never starts a worker's own dedicated worker (a dedicated or a
// shared worker's), with native locks too, before any lock is asked for; spawning it again
// from the same worker may fail as well. Declared: there, and only there, a test whose worker's
// worker has not started in time has another worker spawn it, and prints so; elsewhere that fails.
export const nestedWorkerMayNotStart = BROWSER === 'firefox';
export function hideSharedWorker() {
  delete globalThis.SharedWorker;
}
if (NO_SHARED_WORKER) console.log('# mode: no SharedWorker (E2E_SHARED_WORKER=none)');

// A browser context (one storage partition: pages in it share one lock manager) whose pages
// load tests/e2e/fixtures/page.html (or `path`, which may have a query of its own) with `impl`.
export async function newSession(env, impl) {
  const context = await env.browser.newContext();
  if (NO_SHARED_WORKER) await context.addInitScript(hideSharedWorker);
  if (impl === 'polyfill') await context.addInitScript(hideNative);
  const errors = [];
  const pages = [];
  return {
    context,
    errors,
    pages,
    async page(path = '/tests/e2e/fixtures/page.html') {
      const page = await context.newPage();
      pages.push(page);
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${env.origin}${path}${path.includes('?') ? '&' : '?'}impl=${impl}`);
      await page.waitForFunction(() => window.T && window.T.ready);
      return page;
    },
    close: () => context.close(),
  };
}

// Test helpers over the in-page T of tests/e2e/fixtures/page.js.
//
// §2.6 with T.tick / T.listen: `a` holds `name` with a callback that never ends and ticks,
// `b` waits for the lock, then `end(a)` ends a's context. Gives how long after end() began
// b was granted (`waited`, ms) and a's ticks made after that grant (`late`, ms after it).
export async function endWhileTicking(a, b, name, end) {
  await a.evaluate((n) => T.tick(n), name);
  // (Granted to `a` first: across tabs, requests are served in the order they arrive.)
  await untilQuery(a, (s) => s.held.some((l) => l.name === name));
  await b.evaluate((n) => T.listen(n), name);
  await b.waitForFunction(() => T.heard.length > 5);
  const ending = Date.now();
  await end(a);
  await b.waitForFunction(() => T.ticked !== undefined);
  await new Promise((r) => setTimeout(r, 300)); // any late tick of a's arrives
  const { granted, late } = await b.evaluate(() => ({ granted: T.ticked, late: T.lateTicks() }));
  return { waited: granted - ending, late };
}
export const until = (target, entry, timeout = 10_000) =>
  target.waitForFunction((e) => T.has(e), entry, { timeout });
// When `what` happened in `target` (Date.now() in the page: T.at of fixtures/page.js).
export const happenedAt = (target, what) => target.evaluate((w) => T.at[w], what);
// Waits for a callback's `entry` in `target`'s log; gives Date.now() in the page as it ran.
export async function loggedAt(target, entry, timeout = 10_000) {
  await until(target, entry, timeout);
  return happenedAt(target, entry);
}
export const hold = (target, key, name, options) =>
  target.evaluate(([k, n, o]) => T.hold(k, n, o), [key, name, options]);
export const release = (target, key) => target.evaluate((k) => T.release(k), key);
export const query = (target) => target.evaluate(() => T.query());
// navigator.locks.query() in `target`, asked again until `test(snapshot)` holds; gives that
// snapshot. (Playwright's waitForFunction does not await a predicate's promise: it would
// take an async predicate's first answer, whatever it is.)
export async function untilQuery(target, test, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const snapshot = await target.evaluate(() => navigator.locks.query());
    if (test(snapshot)) return snapshot;
    if (Date.now() > deadline) throw new Error(`query() did not come to ${test} in ${timeout} ms: ${JSON.stringify(snapshot)}`);
    await new Promise((r) => setTimeout(r, 16));
  }
}
export const log = (target) => target.evaluate(() => T.log);

// The page's dedicated worker `w` (T.spawn) spawns a worker of its own. (A worker's worker
// is slow to start under load; and Firefox ESR now and then never starts one, also with
// native locks: seen in clean-clone runs. Then `w` is terminated and spawned again, with
// its worker; that is printed. Anything `w` held goes with it: spawn first.)
export async function spawnNested(page, impl) {
  await page.evaluate(() => T.tell('w', { cmd: 'spawn' }));
  await until(page, 'nested:worker-ready', 20_000).catch(async (e) => {
    if (!nestedWorkerMayNotStart) throw e;
    console.log(`# ${where}${impl}: the worker's worker did not start in 20 s; another worker spawns it`);
    await page.evaluate(() => (T.terminate('w'), T.spawn('w'), T.tell('w', { cmd: 'spawn' })));
    await until(page, 'nested:worker-ready', 30_000);
  });
}

// One session at a time for a suite: `fresh(n)` closes the previous one and opens n pages
// (at `path`) in a new one (a new storage partition, so a new lock manager). `env()` is read
// lazily. (For tests of lock workers of their own: `BARE`, pages that start none, so that
// none serves the origin before the test's own.)
export const BARE = '/tests/e2e/fixtures/page.html?impl=bare';
export function freshSessions(env, impl, path) {
  const state = {
    current: null,
    async fresh(n) {
      if (state.current) await state.current.close();
      state.current = await newSession(env(), impl);
      const pages = [];
      for (let i = 0; i < n; i++) pages.push(await state.current.page(path));
      return pages;
    },
    close: () => state.current && state.current.close(),
  };
  return state;
}

// Firefox ESR (Debian's) through puppeteer-core over WebDriver BiDi, adapted to the part of
// Playwright's interface the suites use: browser.newContext(), context.newPage() /
// addInitScript() / close(), page.evaluate() / waitForFunction() / goto() / reload() / close() / $() /
// goBack() / on('pageerror'), frames. Each page gets a window of its own, so that every page
// is visible (Firefox throttles hidden tabs' timers and pauses their rAF), as Playwright's
// Chromium pages are.
async function launchFirefox() {
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({
    browser: 'firefox',
    protocol: 'webDriverBiDi',
    executablePath: process.env.FIREFOX || '/usr/bin/firefox-esr',
    headless: true,
    extraPrefsFirefox: {
      // http://insecure.test:<port>/ is the test server as a plain-http, non-secure origin.
      'network.dns.localDomains': 'insecure.test',
      'dom.security.https_first': false,
      'dom.security.https_first_schemeless': false,
    },
  });
  return {
    async newContext() {
      return firefoxContext(await browser.createBrowserContext());
    },
    close: () => browser.close(),
  };
}

function firefoxContext(context) {
  const scripts = []; // [fn, arg]: run before any script of every page (and its frames)
  const pages = [];
  return {
    async newPage() {
      const page = await context.newPage({ type: 'window' });
      for (const [fn, arg] of scripts) await page.evaluateOnNewDocument(fn, arg);
      pages.push(page);
      return firefoxPage(page);
    },
    async addInitScript(fn, arg) {
      scripts.push([fn, arg]);
      for (const page of pages) if (!page.isClosed()) await page.evaluateOnNewDocument(fn, arg);
    },
    newCDPSession() {
      throw new Error('Firefox: no DevTools protocol session (see needsCdp)');
    },
    close: () => context.close(),
  };
}

// Playwright's waitForFunction(fn, arg, options) is puppeteer's waitForFunction(fn, options,
// arg); polling every 20 ms (unless told) rather than on rAF.
function firefoxFrame(frame) {
  return {
    evaluate: (fn, arg) => frame.evaluate(fn, arg),
    waitForFunction: (fn, arg, { timeout = 30_000, polling = 20 } = {}) => frame.waitForFunction(fn, { timeout, polling }, arg),
  };
}

function firefoxPage(page) {
  return {
    ...firefoxFrame(page),
    goto: (url) => page.goto(url),
    reload: () => page.reload(),
    close: (options) => page.close(options),
    on: (event, listener) => page.on(event, listener),
    async $(selector) {
      const handle = await page.$(selector);
      return handle && { contentFrame: async () => firefoxFrame(await handle.contentFrame()) };
    },
    // Playwright's 'commit' (no load event after a back/forward cache restore): the history
    // traversal itself, without waiting for a navigation event.
    goBack: ({ waitUntil } = {}) => (waitUntil === 'commit' ? page.evaluate(() => history.back()) : page.goBack()),
  };
}
