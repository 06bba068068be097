// npm run bench: native navigator.locks vs the polyfill, same browser, same run. Prints a
// table with the ratio polyfill/native (lower is better). Numbers, not pass/fail.
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { IMPLS, hideSharedWorker, launch, newSession } from '../tests/e2e/harness/browser.mjs';
import { launchPipe } from './pipe.mjs';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Native and the polyfill measured in alternation: `setUp(impl)` prepares a measure and
// gives one round of it (a number); the rounds of the two alternate, so that both see the
// machine as it is in the same seconds (this shared machine's speed drifts over a run), and
// each impl gets its median round. (`impls`: also FLOW, for the rows it has.)
async function interleaved(rounds, setUp, impls = IMPLS) {
  const round = {};
  const samples = {};
  for (const impl of impls) [round[impl], samples[impl]] = [await setUp(impl), []];
  for (let r = 0; r < rounds; r++) for (const impl of impls) samples[impl].push(await round[impl]());
  // (A round may give several numbers, as an object: each gets its own median.)
  const middle = (xs) =>
    typeof xs[0] === 'number' ? median(xs) : Object.fromEntries(Object.keys(xs[0]).map((k) => [k, median(xs.map((x) => x[k]))]));
  return Object.fromEntries(impls.map((impl) => [impl, middle(samples[impl])]));
}

// A third contender for the uncontended and handoff rows: the polyfill's message flow in
// plain JS with no lock manager (bench/fixtures/flow-worker.js), in pages where `flowLocks`
// stands for `navigator.locks`. No implementation of that flow does better here.
const FLOW = 'flow';
async function flowSession(env) {
  const session = await newSession(env, 'native');
  return {
    ...session,
    async page() {
      const page = await session.page();
      await page.addScriptTag({ url: '/bench/fixtures/flow-client.js' });
      return page;
    },
  };
}

// A session whose pages use `impl`: the baseline build's (BASELINE, below) are polyfill pages
// loading it.
// (TABS: the polyfill where SharedWorker is missing, in tabs that do not host the lock worker:
// `crowd` tabs are opened first, the first of which hosts it; the measured ones reach it over
// BroadcastChannel, with every other tab of the origin open.)
async function contenderSession(env, impl, crowd = 10) {
  if (impl === TABS) {
    const session = await newSession(env, 'polyfill');
    await session.context.addInitScript(hideSharedWorker);
    for (let i = 0; i < crowd; i++) await session.page();
    return session;
  }
  if (impl !== BASE) return newSession(env, impl);
  const session = await newSession(env, 'polyfill');
  return { ...session, page: () => session.page(withBaseline('/tests/e2e/fixtures/page.html')) };
}

// Request → callback → release, one after another in one tab: per op.
async function uncontended(session) {
  const page = await session.page();
  const run = (n) =>
    page.evaluate(async (n) => {
      const t0 = performance.now();
      const locks = self.flowLocks || navigator.locks;
      for (let i = 0; i < n; i++) await locks.request('u', () => {});
      return (performance.now() - t0) / n;
    }, n);
  await run(200); // warm up
  return () => run(1000);
}

async function handoff(session) {
  const pages = [await session.page(), await session.page()];
  // Both tabs take the lock in turn, n times each; the callback holds it for a setTimeout(0).
  const pingPong = async (perTab) => {
    const start = Date.now();
    await Promise.all(
      pages.map((page) =>
        page.evaluate(async (n) => {
          const locks = self.flowLocks || navigator.locks;
          for (let i = 0; i < n; i++) {
            await locks.request('ping-pong', () => new Promise((r) => setTimeout(r, 0)));
          }
        }, perTab),
      ),
    );
    return (Date.now() - start) / (2 * perTab);
  };
  await pingPong(200); // warm up, as for the uncontended row
  return () => pingPong(500);
}

// One query() while the tab holds 10,000 locks (held from the set-up on).
async function query10k(session) {
  const page = await session.page();
  await page.evaluate(async () => {
    const granted = [];
    const forever = new Promise(() => {});
    for (let i = 0; i < 10_000; i++) {
      granted.push(new Promise((ok) => navigator.locks.request(`held-${i}`, () => (ok(), forever))));
    }
    await Promise.all(granted);
  });
  return () =>
    page.evaluate(async () => {
      const t0 = performance.now();
      const { held } = await navigator.locks.query();
      const ms = performance.now() - t0;
      if (held.length !== 10_000) throw new Error(`expected 10000 held, saw ${held.length}`);
      return ms;
    });
}

// Churn: 10,000 locks held, then 5 rounds of releasing a random half of them and taking as
// many new names: per lock taken or released (the lock worker's memory freed and reused
// out of order, as a long-lived service's is).
async function churn(session) {
  const page = await session.page();
  return () =>
    page.evaluate(async () => {
      let next = 0;
      let seed = 1;
      const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
      // (Each held lock: its release function and the promise its request settles with.)
      const hold = () =>
        new Promise((granted) => {
          const held = {};
          held.done = navigator.locks.request(`churn-${next++}`, () => new Promise((r) => ((held.release = r), granted(held))));
        });
      const t0 = performance.now();
      let held = await Promise.all(Array.from({ length: 10_000 }, hold));
      let ops = held.length;
      for (let round = 0; round < 5; round++) {
        for (let i = held.length - 1; i > 0; i--) {
          const j = Math.floor(random() * (i + 1));
          [held[i], held[j]] = [held[j], held[i]];
        }
        const gone = held.splice(0, held.length / 2);
        for (const lock of gone) lock.release();
        await Promise.all(gone.map((lock) => lock.done));
        held = held.concat(await Promise.all(gone.map(hold)));
        ops += 2 * gone.length;
      }
      for (const lock of held) lock.release();
      await Promise.all(held.map((lock) => lock.done));
      ops += held.length;
      return ((performance.now() - t0) / ops) * 1000;
    });
}

// The cold starts run in a Chromium with no debugger attached to its workers (see
// bench/pipe.mjs: Playwright's attaching holds a new SharedWorker back).
//
// `expression` read from a page at `path` loaded in a new browser context (no running worker,
// fresh storage), and `inWorker` (if given) from its lock worker then, as `worker`.
async function fresh(pipe, impl, path, expression, inWorker) {
  const context = await pipe.newContext(impl);
  const result = await (await context.open(path)).read(expression);
  if (inWorker) result.worker = await context.readWorker(inWorker);
  await context.close();
  return result;
}

// When a cold page's first request was granted (`window.coldGrant`), and the steps before it
// (ms from its navigation start; `origin`: that start, ms since the epoch).
const COLD_GRANT =
  'window.coldGrant === undefined ? undefined : { grant: coldGrant, steps: window.coldSteps, origin: performance.timeOrigin }';
// The lock worker's steps (ms since the epoch): its User Timing marks (js/worker/worker-entry.js:
// script ran, wasm ready, serving) and, from its resource timing, when it had its wasm's
// whole response.
const WORKER_STEPS = `(() => {
  const at = (t) => (t === undefined ? undefined : t + performance.timeOrigin);
  const mark = (name) => (performance.getEntriesByName('web-locks ' + name)[0] || {}).startTime;
  const wasm = performance.getEntriesByType('resource').find((e) => e.name.endsWith('.wasm')) || {};
  return { script: at(mark('script')), fetched: at(wasm.responseEnd), wasm: at(mark('wasm')), served: at(mark('serving')) };
})()`;

// Page load → first grant in a new browser context (no worker running, fresh storage), over
// 11 interleaved rounds: bench/fixtures/cold.html, a static page loading the polyfill as the
// README shows, or (`load=dynamic`) importing it once its script runs, or (`load=classic`)
// loading web-locks.global.js; bench/fixtures/cold-bundled.html, an app that bundles the
// polyfill into its one script (as Vite or webpack builds do). For the polyfill, also when
// each step happened in its median round (`coldSteps[path]`). With `FLOOR` among `impls`,
// also rounds of bench/fixtures/cold-floor.html in a native context: page load → a bare
// SharedWorker's first reply (as `grant`) and → a one-line module imported (`coldFloor`),
// and a bare SharedWorker's script start → an IndexedDB database created, as a lock
// worker's first claim creates one on a fresh origin (`createdFloor`). With `DB` or
// `WASM`, also rounds of cold-floor.html?floor=db or =wasm: page load → that worker's first reply
// (once it has created a database, and with ?wasm compiled the polyfill's wasm) and the
// page's own database both done, begun at the page's first script: the floor of a lock
// service that keeps one lock manager per origin as this one does, and of one in wasm.
const coldSteps = {};
const FLOOR = 'floor';
const DB = 'db';
const WASM = 'wasm';
// `BASELINE=<folder> npm run bench`: every row also measures another build of the polyfill,
// its dist/ files in that folder of the repository (scripts/baseline.sh builds a commit's
// there), as a third contender in the same alternation, and prints this build against it.
const BASELINE = process.env.BASELINE;
const BASE = 'baseline';
// `tab-hosted`: the polyfill where SharedWorker is missing (a tab hosts its lock worker:
// src/service/tabs.rs), in every row.
const TABS = 'tab-hosted';
const POLYFILLS = BASELINE ? ['polyfill', TABS, BASE] : ['polyfill', TABS];
const CONTENDERS = BASELINE ? [...IMPLS, TABS, BASE] : [...IMPLS, TABS];
const withBaseline = (path) => `${path}${path.includes('?') ? '&' : '?'}dist=/${BASELINE}&app=${BASE}`;
// The impl a page of `contender` runs and the path it loads for `path`.
const pageOf = (contender, path) => (contender === BASE ? ['polyfill', withBaseline(path)] : [contender, path]);
const FLOOR_READ =
  'window.T && window.echoed !== undefined && window.created !== undefined ? { grant: echoed, imported, created, constructed } : undefined';
const FLOOR_ECHOED = 'window.echoed && { grant: echoed, constructed }';
const coldFloor = [];
const constructedWasm = [];
const constructedNewTab = [];
const createdFloor = [];
const constructedFloor = [];
async function coldStart(pipe, path, impls = CONTENDERS, key = path) {
  return stepRounds(
    key,
    (impl) => async () => {
      if (impl === DB || impl === WASM) {
        const round = await fresh(pipe, 'native', `/bench/fixtures/cold-floor.html?floor=${impl}`, FLOOR_ECHOED);
        if (impl === WASM) constructedWasm.push(round.constructed);
        return round;
      }
      if (impl !== FLOOR) return fresh(pipe, ...pageOf(impl, path), COLD_GRANT, impl !== 'native' && WORKER_STEPS);
      const round = await fresh(pipe, 'native', '/bench/fixtures/cold-floor.html', FLOOR_READ);
      coldFloor.push(round.imported);
      createdFloor.push(round.created);
      constructedFloor.push(round.constructed);
      return round;
    },
    impls,
  );
}

// The same for a new tab of an app already running (its lock worker serving, the origin's
// storage in use): `path` opened next to a page of the same browser context; its steps
// go to `coldSteps[key]`. And its floor (`FLOOR`): a new tab of cold-floor.html?floor=db
// next to one whose worker runs: that worker's reply and the tab's own database created,
// what a new tab of this design waits for at the least (its liveness database opens before
// it asks: docs/lifecycle.md).
async function newTab(pipe, path, key) {
  const pages = Object.fromEntries(CONTENDERS.map((impl) => [impl, [...pageOf(impl, path), COLD_GRANT]]));
  pages[FLOOR] = ['native', `/bench/fixtures/cold-floor.html?floor=${DB}`, FLOOR_ECHOED];
  const contexts = {};
  for (const [impl, [type, page, read]] of Object.entries(pages)) {
    contexts[impl] = await pipe.newContext(type);
    // The app's first tab, which started the worker.
    await (await contexts[impl].open(page)).read(read);
  }
  const medians = await stepRounds(key, (impl) => async () => {
    const [, page, read] = pages[impl];
    const tab = await contexts[impl].open(page);
    const round = await tab.read(read);
    await tab.close();
    if (impl === FLOOR) constructedNewTab.push(round.constructed);
    return round;
  }, Object.keys(pages));
  for (const context of Object.values(contexts)) await context.close();
  return medians;
}

// 11 interleaved rounds of `round(impl)()` ({ grant, steps }) for each of `impls`: the
// medians of `grant`, and the steps of each polyfill build's median round as
// `coldSteps[key][impl]`.
async function stepRounds(key, round, impls = IMPLS) {
  const rounds = Object.fromEntries(POLYFILLS.map((impl) => [impl, []]));
  const medians = await interleaved(11, async (impl) => async () => {
    const result = await round(impl)();
    rounds[impl]?.push(result);
    return result.grant;
  }, impls);
  coldSteps[key] = {};
  for (const impl of POLYFILLS.filter((impl) => impls.includes(impl))) {
    const middle = rounds[impl].find((result) => result.grant === medians[impl]);
    // (The worker's steps, in the page's time: none for a new tab, whose worker was running.)
    const worker = Object.fromEntries(Object.entries(middle.worker || {}).map(([step, at]) => [step, at - middle.origin]));
    const steps = (coldSteps[key][impl] = { ...middle.steps, ...worker, grant: middle.grant });
    // (Serving starts once the wasm is ready and the worker's first claim of the origin has
    // been answered, both begun as its script starts: the difference is what the claim adds.)
    if (worker.served !== undefined) steps.claimWait = worker.served - worker.wasm;
  }
  return medians;
}

// The bundled apps of bench/fixtures/cold-bundled.html, built into test-output/bench/.
async function bundleColdApps() {
  await mkdir('test-output/bench', { recursive: true });
  const request = "navigator.locks.request('cold', () => { window.coldGrant = performance.now(); }); window.T = { ready: true };";
  const install = (dist) =>
    `import { install } from './${dist}/index.js'; install({ workerUrl: '/${dist}/web-locks-worker.js', wasmUrl: '/${dist}/web_locks_bg.wasm' });`;
  const apps = [['native', request], ['polyfill', `${install('dist')}\n${request}`]];
  if (BASELINE) apps.push([BASE, `${install(BASELINE)}\n${request}`]);
  for (const [impl, contents] of apps) {
    await build({
      stdin: { contents, resolveDir: '.', loader: 'js' },
      bundle: true,
      minify: true,
      format: 'esm',
      outfile: `test-output/bench/cold-app-${impl}.js`,
      external: ['./web-locks-service.js'],
      logLevel: 'warning',
    });
  }
}

// N tabs contending for one exclusive lock for a fixed window: grants per second across all
// tabs, the longest any request waited (one worst case: a single stall of the machine sets
// it) and the 99th percentile of all waits.
async function contention(session, tabs = 20, windowMs = 3000) {
  const pages = [];
  for (let i = 0; i < tabs; i++) pages.push(await session.page());
  return async () => {
    const start = Date.now() + 500; // every tab starts together
    const waits = await Promise.all(
      pages.map((page) =>
        page.evaluate(
          async ([start, windowMs]) => {
            await new Promise((r) => setTimeout(r, start - Date.now()));
            const end = performance.now() + windowMs;
            const waits = [];
            while (performance.now() < end) {
              const asked = performance.now();
              await navigator.locks.request('contended', async () => {
                waits.push(performance.now() - asked);
              });
            }
            return waits;
          },
          [start, windowMs],
        ),
      ),
    );
    const all = waits.flat().sort((a, b) => a - b);
    return { rate: all.length / (windowMs / 1000), maxWait: all[all.length - 1], p99: all[Math.floor(all.length * 0.99)] };
  };
}

// The floors: what the platform costs here with no lock logic at all, for reading the ratios
// above (bench/fixtures/echo-worker.js; the cold start's, bench/fixtures/cold-floor.html, runs with
// the cold starts: coldStart()).
async function floors(env) {
  const session = await newSession(env, 'native');
  const [a, b] = [await session.page(), await session.page()];
  const echo = await a.evaluate(async () => {
    const port = new SharedWorker('/bench/fixtures/echo-worker.js').port;
    const once = () => new Promise((r) => { port.onmessage = r; port.postMessage('echo'); });
    const run = async (n) => {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await once();
      return (performance.now() - t0) / n;
    };
    await run(200);
    const rounds = [];
    for (let r = 0; r < 5; r++) rounds.push(await run(1000));
    return rounds.sort((x, y) => x - y)[2];
  });
  // Two tabs pass one token through the worker, each holding it for a setTimeout(0) as the
  // handoff benchmark's callbacks do: per hop, the cost of a handoff without a lock manager.
  const hops = 1000;
  const relay = (page, first) =>
    page.evaluate(
      ([first, hops]) =>
        new Promise((done) => {
          const port = new SharedWorker('/bench/fixtures/echo-worker.js').port;
          port.postMessage('join');
          port.onmessage = ({ data }) => {
            // (The last hop's receiver passes it on once more, so that both tabs finish.)
            if (data >= hops) return port.postMessage(data + 1), done();
            setTimeout(() => port.postMessage(data + 1), 0);
          };
          if (first) setTimeout(() => port.postMessage(0), 100);
        }),
      [first, hops],
    );
  const t0 = Date.now();
  await Promise.all([relay(a, false), relay(b, true)]);
  const hop = (Date.now() - t0 - 100) / hops;
  // Where SharedWorker is missing: a round trip over BroadcastChannel to a dedicated worker of
  // another tab (b's), one channel each way with one listener each, as a tab-hosted lock
  // worker's link is.
  await b.evaluate(() => {
    const echo = `const back = new BroadcastChannel('floor-back'); new BroadcastChannel('floor-out').onmessage = ({ data }) => back.postMessage(data);`;
    window.echoWorker = new Worker(URL.createObjectURL(new Blob([echo])));
  });
  const broadcast = await a.evaluate(async () => {
    const [out, back] = [new BroadcastChannel('floor-out'), new BroadcastChannel('floor-back')];
    const once = (i) => new Promise((r) => ((back.onmessage = r), out.postMessage(i)));
    await new Promise((r) => setTimeout(r, 200)); // (the worker listening)
    const run = async (n) => {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await once(i);
      return (performance.now() - t0) / n;
    };
    await run(200);
    const rounds = [];
    for (let r = 0; r < 5; r++) rounds.push(await run(1000));
    return rounds.sort((x, y) => x - y)[2];
  });
  await session.close();
  return { echo, hop, broadcast };
}

async function distSizes() {
  const rows = [];
  for (const file of (await readdir('dist')).sort()) {
    const body = await readFile(`dist/${file}`);
    rows.push([file, body.length, gzipSync(body, { level: 9 }).length]);
  }
  return rows;
}

const UNCONTENDED = 'uncontended request→callback→release (ms/op)';
const HANDOFF = 'two-tab handoff (ms/grant)';
const COLD = 'cold start: page load → first grant (ms)';
const STATIC = '/bench/fixtures/cold.html';
const DYNAMIC = '/bench/fixtures/cold.html?load=dynamic';
const CLASSIC = '/bench/fixtures/cold.html?load=classic';
const BUNDLED = '/bench/fixtures/cold-bundled.html';
const NEW_TAB = `${STATIC} (new tab)`; // (its steps' key)
// (`npm run bench -- --cold`: the cold starts only.)
const coldOnly = process.argv.includes('--cold');
await bundleColdApps();
const rows = {};
let floor = {};
const flow = {};
if (!coldOnly) {
  const env = await launch();
  const sessions = {};
  for (const impl of CONTENDERS) sessions[impl] = await contenderSession(env, impl);
  sessions[FLOW] = await flowSession(env);
  const warm = (measure) => (impl) => measure(sessions[impl]);
  for (const [key, measure, rounds] of [
    [UNCONTENDED, uncontended, 7],
    [HANDOFF, handoff, 5],
  ]) {
    ({ [FLOW]: flow[key], ...rows[key] } = await interleaved(rounds, warm(measure), [...CONTENDERS, FLOW]));
  }
  rows['query() with 10,000 held (ms)'] = await interleaved(7, warm(query10k), CONTENDERS);
  rows['10,000 held, halves released and retaken (µs/op)'] = await interleaved(3, warm(churn), CONTENDERS);
  for (const session of Object.values(sessions)) await session.close();
  // Each impl's 20 tabs stay open, their windows alternating (never two at once: that would
  // crowd the machine), 3 rounds each.
  const crowded = {};
  for (const impl of CONTENDERS) crowded[impl] = await contenderSession(env, impl, 0);
  const crowd = await interleaved(3, (impl) => contention(crowded[impl]), CONTENDERS);
  for (const session of Object.values(crowded)) await session.close();
  const each = (f) => Object.fromEntries(CONTENDERS.map((impl) => [impl, f(crowd[impl])]));
  rows['20 tabs on one lock (grants/s, higher is better)'] = each((c) => c.rate);
  rows['20 tabs on one lock: longest wait (ms)'] = each((c) => c.maxWait);
  rows['20 tabs on one lock: 99th percentile wait (ms)'] = each((c) => c.p99);
  floor = await floors(env);
  await env.close();
}
const pipe = await launchPipe();
({ [FLOOR]: floor.echoed, [DB]: floor.db, [WASM]: floor.wasm, ...rows[COLD] } = await coldStart(pipe, STATIC, [...CONTENDERS, FLOOR, DB, WASM]));
floor.imported = median(coldFloor);
floor.created = median(createdFloor);
floor.constructed = median(constructedFloor);
floor.wasmConstructed = median(constructedWasm);
// (The cold rows' pages, by row: the static page's is COLD.)
const coldPaths = {
  [COLD]: STATIC,
  'cold start, imported at run time (ms)': DYNAMIC,
  'cold start, classic script (global.js) (ms)': CLASSIC,
  'cold start, bundled: page load → first grant (ms)': BUNDLED,
};
for (const [key, path] of Object.entries(coldPaths).slice(1)) rows[key] = await coldStart(pipe, path);
const NEW_TAB_ROW = 'new tab of a running app → first grant (ms)';
({ [FLOOR]: floor.newTab, ...rows[NEW_TAB_ROW] } = await newTab(pipe, STATIC, NEW_TAB));
await pipe.close();
// The static page again in a Chromium whose V8 compiles a wasm module whole as it streams in,
// instead of each function at its first call (a flag: no page can ask for it; V8 ignores wasm
// compile hints without another). Measured: the first grant comes no sooner (README
// "Performance"); printed so that the comparison stays checkable.
const EAGER = 'eager';
const eager = await launchPipe(['--js-flags=--no-wasm-lazy-compilation']);
const eagerCold = await coldStart(eager, STATIC, IMPLS, EAGER);
await eager.close();

const pad = (s, n) => String(s).padEnd(n);
const header = BASELINE ? `${pad(BASE, 12)}${pad('polyfill/native', 17)}polyfill/${BASE}` : 'polyfill/native';
console.log(`\n${pad('measure', 52)}${pad('native', 12)}${pad('polyfill', 12)}${header}`);
for (const [key, { native: n, polyfill: p, [BASE]: b }] of Object.entries(rows)) {
  const ratio = `${(p / n).toFixed(2)}×`;
  const versus = BASELINE ? `${pad(b === undefined ? '—' : b.toFixed(3), 12)}${pad(ratio, 17)}${b === undefined ? '—' : `${(p / b).toFixed(2)}×`}` : ratio;
  console.log(`${pad(key, 52)}${pad(n.toFixed(3), 12)}${pad(p.toFixed(3), 12)}${versus}`);
}
if (BASELINE) console.log(`(${BASE}: the build in ${BASELINE})`);
// Where SharedWorker is missing, in the same runs: against native and the SharedWorker mode.
// (Steady rows: a tab that does not host the lock worker, with 10 other tabs of the origin open.)
console.log(`\n${pad('where SharedWorker is missing', 52)}${pad(TABS, 12)}${pad(`${TABS}/native`, 18)}${TABS}/polyfill`);
for (const [key, { native: n, polyfill: p, [TABS]: t }] of Object.entries(rows)) {
  console.log(`${pad(key, 52)}${pad(t.toFixed(3), 12)}${pad(`${(t / n).toFixed(2)}×`, 18)}${(t / p).toFixed(2)}×`);
}
for (const [path, what] of [
  [STATIC, 'static page'],
  [DYNAMIC, 'imported at run time'],
  [CLASSIC, 'classic script'],
  [NEW_TAB, 'static page, new tab of a running app'],
  [EAGER, 'static page, wasm compiled eagerly (a flag)'],
]) {
  const builds = Object.keys(coldSteps[path]);
  console.log(`\ncold start (${what}): when each step happened in the median round (ms from navigation start)`);
  console.log(`  ${pad('', 46)}${builds.map((impl) => pad(impl, 10)).join('')}`);
  for (const [key, step] of [
    ['start', 'the page\'s first script runs'],
    ['scripts', 'the polyfill\'s scripts fetched'],
    ['construct', 'polyfill imported, lock worker constructed'],
    ['watch', 'the page\'s liveness database open'],
    ['script', 'worker script starts'],
    ['fetched', 'wasm fetched (its whole response)'],
    ['wasm', 'wasm compiled and instantiated'],
    ['served', 'worker serving'],
    ['claimWait', '  of which waiting for its claim (after wasm)'],
    ['welcome', 'welcome (worker\'s lifeline open)'],
    ['grant', 'first grant'],
  ]) {
    const cells = builds.map((impl) => coldSteps[path][impl][key]).map((at) => pad(at === undefined ? '—' : at.toFixed(1), 10));
    console.log(`  ${pad(step, 46)}${cells.join('')}`);
  }
  const { script, wasm, served } = coldSteps[path].polyfill;
  if (served === undefined) console.log('  (— : the worker was serving before this page was opened)');
  // (The claim's floor: creating a database on a fresh origin takes this long from a bare
  // worker's script start, here, with no lock logic: a first claim answered within it
  // waited for no more than the platform.)
  else console.log(`  (polyfill: worker script start → wasm instantiated ${(wasm - script).toFixed(1)} ms; the floor's database created ${floor.created.toFixed(1)} ms after its script start)`);
}

// Every cold start against the floor (a bare SharedWorker's first reply to a fresh page):
// Chromium's rows above, and the static page in Firefox and WebKit (bench/bench-cold.mjs,
// a process per engine), native beside it. The floor's page constructs its worker at its
// first script; the polyfill once its script has arrived and run. So also: when the
// polyfill's median round constructed its lock worker and (Chromium) when that worker's
// script started, and the polyfill against the floor moved to that construction
// (`/floor at construction`: the floor's start-up, construction → first reply, added to the
// polyfill's construction), which is what is left to the polyfill's own work. And the floor
// of one lock manager per origin kept as this one keeps it (`+IndexedDB`: DB), and the
// polyfill against it; and that floor's worker also compiling the polyfill's wasm (`+wasm`:
// WASM), the floor of such a service in wasm, also moved to the polyfill's construction
// (`/+wasm at construction`): what is left once the polyfill's script has run.
const at = (ms) => (ms === undefined ? '—' : ms.toFixed(1));
const times = (a, b) => (a === undefined || b === undefined ? '—' : `${(a / b).toFixed(2)}×`);
const COLUMNS = [
  ['native', 9], ['polyfill', 10], ['/native', 9], ['floor', 9], ['/floor', 8], ["constructed (floor's)", 23], ['worker script', 15],
  ['/floor at construction', 24], ['+IndexedDB', 12], ['/+IndexedDB', 13], ['+wasm', 8], ['/+wasm', 8], ['/+wasm at construction', 0],
];
console.log(`\n${pad('cold start against the floor (ms)', 40)}${COLUMNS.map(([name, width]) => pad(name, width)).join('')}`);
const coldRow = (what, n, p, f, { construct, script } = {}, { constructed, db, wasm, wasmConstructed } = {}) => {
  const moved = (floor, floorConstructed) => (construct === undefined || floor === undefined ? undefined : construct + floor - floorConstructed);
  const cells = [
    at(n), at(p), times(p, n), at(f), times(p, f), `${at(construct)} (${at(constructed)})`, at(script),
    times(p, moved(f, constructed)), at(db), times(p, db), at(wasm), times(p, wasm), times(p, moved(wasm, wasmConstructed)),
  ];
  console.log(`${pad(what, 40)}${cells.map((cell, i) => pad(cell, COLUMNS[i][1])).join('')}`);
};
for (const [key, path] of Object.entries(coldPaths)) {
  const { native: n, polyfill: p } = rows[key];
  coldRow(`chromium: ${key.replace(/^cold start,? ?|: page load.*| \(ms\)/g, '') || 'static page'}`, n, p, floor.echoed, coldSteps[path].polyfill, floor);
}
// (The new tab's floor: its own database created and the running worker's reply.)
coldRow('chromium: new tab of a running app', rows[NEW_TAB_ROW].native, rows[NEW_TAB_ROW].polyfill, floor.newTab, coldSteps[NEW_TAB].polyfill, {
  constructed: median(constructedNewTab),
});
for (const browser of ['firefox', 'webkit']) {
  const { stdout } = await promisify(execFile)(process.execPath, ['bench/bench-cold.mjs'], { env: { ...process.env, E2E_BROWSER: browser } });
  const { native, floor: engineFloor, pages, workerSteps } = JSON.parse(stdout.trim().split('\n').pop());
  for (const [page, { grant, steps }] of Object.entries(pages)) {
    coldRow(`${browser}: ${page}`, native, grant, engineFloor.grant, steps, engineFloor);
    const { start, scripts, watch, welcome } = steps;
    console.log(`  (its median round: first script ${at(start)} → scripts fetched ${at(scripts)} → page's database open ${at(watch)} → welcome ${at(welcome)} → grant ${at(grant)})`);
  }
  const { steps, grant } = workerSteps;
  console.log(
    `  (static page, its lock worker reporting its steps, median round: constructed ${at(steps.construct)} → worker script ${at(steps.script)} → ` +
      `wasm instantiated ${at(steps.wasm)} → serving ${at(steps.serving)} → welcome ${at(steps.welcome)} → grant ${at(grant)})`,
  );
}

const native = Object.fromEntries(Object.entries(rows).map(([key, row]) => [key, row.native]));
console.log('\nfloors: the platform alone here (a bare SharedWorker, no lock logic), vs native');
for (const [what, ms, versus, where] of [
  ['the polyfill\'s message flow in plain JS (ms/op)', flow[UNCONTENDED], native[UNCONTENDED]],
  ['the same, two tabs ping-ponging (ms/grant)', flow[HANDOFF], native[HANDOFF]],
  ['echo round trip to a SharedWorker (ms)', floor.echo, native[UNCONTENDED]],
  ['the same over BroadcastChannel, another tab\'s worker (ms)', floor.broadcast, native[UNCONTENDED], 'uncontended row'],
  ['two tabs relaying a token through it (ms/hop)', floor.hop, native[HANDOFF]],
  ['page load → its first reply, fresh context (ms)', floor.echoed, native[COLD]],
  ['page load → a one-line module imported (ms)', floor.imported, native[COLD]],
  ['static page, wasm compiled eagerly (a flag) (ms)', eagerCold.polyfill, eagerCold.native, 'in that browser'],
]) {
  if (ms !== undefined) console.log(`  ${pad(what, 50)}${pad(ms.toFixed(3), 12)}${(ms / versus).toFixed(2)}× native's ${where || 'row above'}`);
}

console.log(`\n${pad('dist file', 28)}${pad('bytes', 10)}gzip (zlib, level 9)`);
const sizes = await distSizes();
for (const [file, size, gzip] of sizes) console.log(`${pad(file, 28)}${pad(size, 10)}${gzip}`);
const gz = Object.fromEntries(sizes.map(([file, , gzip]) => [file, gzip]));
const shared = gz['web-locks-worker.js'] + gz['web_locks_bg.wasm'];
console.log(`one ESM page (index.js + worker + wasm): ${gz['index.js'] + shared} bytes gzip`);
console.log(`one classic-script page (global.js + worker + wasm): ${gz['web-locks.global.js'] + shared} bytes gzip`);
