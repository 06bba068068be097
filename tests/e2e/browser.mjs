// Shared by the end-to-end tests and the benchmark: Debian's Chromium via playwright-core,
// a static server, and pages that use either the native API or the polyfill.
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';

export const IMPLS = ['native', 'polyfill'];

const ARGS = [
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

// `bfcache: true` keeps the back/forward cache, which Playwright turns off by default.
export async function launch({ bfcache = false } = {}) {
  const server = await serve(0);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ARGS,
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

// Hides the native API before any script runs, so the polyfill's auto-install takes over.
function hideNative() {
  for (const proto of [globalThis.Navigator, globalThis.WorkerNavigator]) {
    if (proto) delete proto.prototype.locks;
  }
  delete globalThis.LockManager;
  delete globalThis.Lock;
}

// A browser context (one storage partition: pages in it share one lock manager) whose pages
// load tests/e2e/page.html with `impl`.
export async function newSession(env, impl) {
  const context = await env.browser.newContext();
  if (impl === 'polyfill') await context.addInitScript(hideNative);
  const errors = [];
  return {
    context,
    errors,
    async page(path = '/tests/e2e/page.html') {
      const page = await context.newPage();
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${env.origin}${path}?impl=${impl}`);
      await page.waitForFunction(() => window.T && window.T.ready);
      return page;
    },
    close: () => context.close(),
  };
}

// Test helpers over the in-page T of tests/e2e/page.js.
export const until = (target, entry, timeout = 10_000) =>
  target.waitForFunction((e) => T.has(e), entry, { timeout });
export const hold = (target, key, name, options) =>
  target.evaluate(([k, n, o]) => T.hold(k, n, o), [key, name, options]);
export const release = (target, key) => target.evaluate((k) => T.release(k), key);
export const query = (target) => target.evaluate(() => T.query());
export const log = (target) => target.evaluate(() => T.log);

// One session at a time for a suite: `fresh(n)` closes the previous one and opens n pages
// in a new one (a new storage partition, so a new lock manager). `env()` is read lazily.
export function freshSessions(env, impl) {
  const state = {
    current: null,
    async fresh(n) {
      if (state.current) await state.current.close();
      state.current = await newSession(env(), impl);
      const pages = [];
      for (let i = 0; i < n; i++) pages.push(await state.current.page());
      return pages;
    },
    close: () => state.current && state.current.close(),
  };
  return state;
}
