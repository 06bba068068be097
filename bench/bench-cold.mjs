// The cold-start rows in Firefox or WebKit (E2E_BROWSER), for bench/bench.mjs, which runs
// this once per engine and prints what it writes to stdout: one JSON line, the median over
// `ROUNDS` interleaved rounds of page load → first grant (ms from navigation start), each
// in a new browser context (fresh storage, no lock worker running), for native, the
// polyfill's pages of bench/fixtures/cold.html (the static page, imported at run time, the
// classic script: `PAGES`) and the floors of bench/fixtures/cold-floor.html (a bare SharedWorker's
// first reply to a fresh page, and when it constructed that worker; `db` and `wasm`: its
// floor=db and floor=wasm floors), and each polyfill page's steps in its median round. (Chromium's
// rows come from bench/bench.mjs itself, through a pipe with no debugger attached to
// workers.)
// And, in rounds of their own, the static page with a copy of the lock worker that posts its
// User Timing marks (script ran, wasm ready, serving) over BroadcastChannel, which no
// DevTools reads here: when each happened in the median round (`workerSteps`).
import { cp, readFile, writeFile } from 'node:fs/promises';
import { BROWSER, launch, newSession } from '../tests/e2e/harness/browser.mjs';

const STEPS_DIST = 'test-output/bench/steps';
const MARKS = 'web-locks bench marks';
await cp('dist', STEPS_DIST, { recursive: true });
const worker = `${STEPS_DIST}/web-locks-worker.js`;
const relay = `((mark, channel) => (performance.mark = (name) => (channel.postMessage([name, performance.timeOrigin + performance.now()]), mark.call(performance, name))))(performance.mark, new BroadcastChannel('${MARKS}'));\n`;
await writeFile(worker, relay + (await readFile(worker, 'utf8')));

const ROUNDS = 11;
const PAGES = { 'static page': '', 'imported at run time': '&load=dynamic', 'classic script': '&load=classic' };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const granted = () => window.coldGrant !== undefined && { grant: window.coldGrant, steps: window.coldSteps };
const echoed = () => window.echoed !== undefined && { grant: window.echoed, constructed: window.constructed };
const read = {
  native: ['/bench/fixtures/cold.html?impl=native', granted],
  floor: ['/bench/fixtures/cold-floor.html', echoed],
  db: ['/bench/fixtures/cold-floor.html?floor=db', echoed],
  wasm: ['/bench/fixtures/cold-floor.html?floor=wasm', echoed],
};
for (const [page, query] of Object.entries(PAGES)) read[page] = [`/bench/fixtures/cold.html?impl=polyfill${query}`, granted];
const STEPS = 'worker steps';
read[STEPS] = [`/bench/fixtures/cold.html?impl=polyfill&dist=/${STEPS_DIST}`, () => window.coldGrant !== undefined && { grant: coldGrant, steps: { ...coldSteps, ...workerSteps } }];
// (Each mark in the page's time.)
const listen = (name) => {
  window.workerSteps = {};
  new BroadcastChannel(name).onmessage = ({ data: [mark, at] }) => (workerSteps[mark.replace('web-locks ', '')] = at - performance.timeOrigin);
};

const env = await launch();
const samples = Object.fromEntries(Object.keys(read).map((key) => [key, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [key, [path, value]] of Object.entries(read)) {
    const session = await newSession(env, key in PAGES || key == STEPS ? 'polyfill' : 'native');
    if (key == STEPS) await session.context.addInitScript(listen, MARKS);
    const page = await session.context.newPage();
    await page.goto(`${env.origin}${path}`);
    await page.waitForFunction(value, undefined, { timeout: 20_000 });
    samples[key].push(await page.evaluate(value));
    await session.close();
  }
}
await env.close();
// Each key's median round.
const middle = (list) => list.find((s) => s.grant === median(list.map((s) => s.grant)));
const constructed = (key) => median(samples[key].map((s) => s.constructed));
const floor = { ...middle(samples.floor), constructed: constructed('floor'), db: middle(samples.db).grant, wasm: middle(samples.wasm).grant, wasmConstructed: constructed('wasm') };
const pages = Object.fromEntries(Object.keys(PAGES).map((page) => [page, middle(samples[page])]));
console.log(JSON.stringify({ browser: BROWSER, native: middle(samples.native).grant, floor, pages, workerSteps: middle(samples[STEPS]) }));
