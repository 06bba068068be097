// Hosts, as the README tells users (README "Bundlers, dev servers and hosts"): the package
// from a CDN (another origin), with and without the recipe, and a strict Content Security
// Policy on every response, with exactly the policy the README gives and without its
// 'wasm-unsafe-eval'. The page is tests/e2e/fixtures/hosts/page.html; where the lock worker cannot
// start, the rejection says what to do.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { launch, where } from './harness/browser.mjs';
import { serve } from '../../scripts/serve.mjs';

// The policy the README gives, and the same without 'wasm-unsafe-eval'.
const CSP = "script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'";
const WITHOUT_WASM = "script-src 'self'; worker-src 'self'";

let env;
const servers = {};
const origins = {};
before(async () => {
  env = await launch();
  for (const [name, headers] of [
    ['cdn', { 'access-control-allow-origin': '*' }],
    ['csp', { 'content-security-policy': CSP }],
    ['strict', { 'content-security-policy': WITHOUT_WASM }],
  ]) {
    servers[name] = await serve(0, { headers });
    origins[name] = `http://127.0.0.1:${servers[name].address().port}`;
  }
});
after(async () => {
  await env.close();
  for (const server of Object.values(servers)) await new Promise((ok) => server.close(ok));
});

// The outcome of the page at `url` (in a browser context of its own).
async function outcome(url) {
  const context = await env.browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => window.outcome !== undefined, null, { timeout: 20_000 });
    return await page.evaluate(() => window.outcome);
  } finally {
    await context.close();
  }
}

describe(`${where}hosts`, () => {
  it('the package from a CDN: the lock worker of another origin is refused, and the rejection names the fix', async () => {
    const result = await outcome(`${env.origin}/tests/e2e/fixtures/hosts/page.html?from=${origins.cdn}`);
    // (Refused before construction, as Chromium's constructor would; Firefox's would fail
    // the worker later, with no reason given.)
    assert.match(result, /^SecurityError: /);
    assert.match(result, /\): serve web-locks-worker\.js from this origin \(workerUrl\)$/);
  });

  it("the CDN recipe: the worker script from the page's origin, the rest from the CDN", async () => {
    assert.equal(await outcome(`${env.origin}/tests/e2e/fixtures/hosts/page.html?from=${origins.cdn}&worker=self`), 'granted');
  });

  it(`a strict CSP on every response: ${CSP}`, async () => {
    assert.equal(await outcome(`${origins.csp}/tests/e2e/fixtures/hosts/page.html`), 'granted');
  });

  it("the same CSP without 'wasm-unsafe-eval': the rejection names it", async () => {
    const result = await outcome(`${origins.strict}/tests/e2e/fixtures/hosts/page.html`);
    assert.match(result, /could not load its wasm/);
    assert.match(result, /\(its CSP needs 'wasm-unsafe-eval'\)$/);
  });
});
