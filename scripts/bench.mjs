// npm run bench: native navigator.locks vs the polyfill, same browser, same run. Prints a
// table with the ratio polyfill/native (lower is better). Numbers, not pass/fail.
import { readdir, readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { IMPLS, launch, newSession } from '../tests/e2e/browser.mjs';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function uncontended(session) {
  const page = await session.page();
  return page.evaluate(async () => {
    const run = async (n) => {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await navigator.locks.request('u', () => {});
      return (performance.now() - t0) / n;
    };
    await run(200); // warm up
    const rounds = [];
    for (let r = 0; r < 5; r++) rounds.push(await run(1000));
    return rounds.sort((a, b) => a - b)[2];
  });
}

async function handoff(session) {
  const pages = [await session.page(), await session.page()];
  const perTab = 500;
  const start = Date.now();
  await Promise.all(
    pages.map((page) =>
      page.evaluate(async (n) => {
        for (let i = 0; i < n; i++) {
          await navigator.locks.request('ping-pong', () => new Promise((r) => setTimeout(r, 0)));
        }
      }, perTab),
    ),
  );
  return (Date.now() - start) / (2 * perTab);
}

async function query10k(session) {
  const page = await session.page();
  return page.evaluate(async () => {
    let releaseAll;
    const done = new Promise((r) => (releaseAll = r));
    const granted = [];
    for (let i = 0; i < 10_000; i++) {
      granted.push(new Promise((ok) => navigator.locks.request(`held-${i}`, () => (ok(), done))));
    }
    await Promise.all(granted);
    const times = [];
    for (let r = 0; r < 7; r++) {
      const t0 = performance.now();
      const { held } = await navigator.locks.query();
      times.push(performance.now() - t0);
      if (held.length !== 10_000) throw new Error(`expected 10000 held, saw ${held.length}`);
    }
    releaseAll();
    return times.sort((a, b) => a - b)[3];
  });
}

async function coldStart(env, impl) {
  const times = [];
  for (let r = 0; r < 5; r++) {
    const session = await newSession(env, impl); // new context: no running worker, cold caches
    const page = await session.page('/tests/e2e/cold.html');
    await page.waitForFunction(() => window.coldGrant !== undefined);
    times.push(await page.evaluate(() => window.coldGrant));
    await session.close();
  }
  return median(times);
}

async function distSizes() {
  const rows = [];
  for (const file of (await readdir('dist')).sort()) {
    const body = await readFile(`dist/${file}`);
    rows.push([file, body.length, gzipSync(body, { level: 9 }).length]);
  }
  return rows;
}

const env = await launch();
const results = {};
for (const impl of IMPLS) {
  const session = await newSession(env, impl);
  results[impl] = {
    'uncontended request→callback→release (ms/op)': await uncontended(session),
    'two-tab handoff (ms/grant)': await handoff(session),
    'query() with 10,000 held (ms)': await query10k(session),
  };
  await session.close();
  results[impl]['cold start: page load → first grant (ms)'] = await coldStart(env, impl);
}
await env.close();

const pad = (s, n) => String(s).padEnd(n);
console.log(`\n${pad('measure', 46)}${pad('native', 12)}${pad('polyfill', 12)}polyfill/native`);
for (const key of Object.keys(results.native)) {
  const n = results.native[key];
  const p = results.polyfill[key];
  console.log(`${pad(key, 46)}${pad(n.toFixed(3), 12)}${pad(p.toFixed(3), 12)}${(p / n).toFixed(2)}×`);
}
console.log(`\n${pad('dist file', 28)}${pad('bytes', 10)}gzip -9`);
let raw = 0;
let gz = 0;
for (const [file, size, gzip] of await distSizes()) {
  raw += size;
  gz += gzip;
  console.log(`${pad(file, 28)}${pad(size, 10)}${gzip}`);
}
console.log(`${pad('total', 28)}${pad(raw, 10)}${gz}`);
