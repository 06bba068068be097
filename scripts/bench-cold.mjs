// The cold-start rows in Firefox or WebKit (E2E_BROWSER), for scripts/bench.mjs, which runs
// this once per engine and prints what it writes to stdout: one JSON line, the median over
// `ROUNDS` interleaved rounds of page load → first grant (ms from navigation start), each
// in a new browser context (fresh storage, no lock worker running), for native, the
// polyfill (the static page, tests/e2e/cold.html) and the floor (a bare SharedWorker's first
// reply to a fresh page, tests/e2e/cold-floor.html), and the polyfill's steps in its median
// round. (Chromium's rows come from scripts/bench.mjs itself, through a pipe with no debugger
// attached to workers.)
import { BROWSER, launch, newSession } from '../tests/e2e/browser.mjs';

const ROUNDS = 11;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const env = await launch();
const read = {
  native: ['/tests/e2e/cold.html?impl=native', () => window.coldGrant],
  polyfill: [
    '/tests/e2e/cold.html?impl=polyfill',
    () => window.coldGrant !== undefined && { grant: window.coldGrant, steps: window.coldSteps },
  ],
  floor: ['/tests/e2e/cold-floor.html', () => window.echoed !== undefined && { grant: window.echoed, constructed: window.constructed }],
};
const samples = { native: [], polyfill: [], floor: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const impl of Object.keys(read)) {
    const session = await newSession(env, impl === 'polyfill' ? 'polyfill' : 'native');
    const page = await session.context.newPage();
    const [path, value] = read[impl];
    await page.goto(`${env.origin}${path}`);
    await page.waitForFunction(value, undefined, { timeout: 20_000 });
    samples[impl].push(await page.evaluate(value));
    await session.close();
  }
}
const grants = samples.polyfill.map((s) => s.grant);
const middle = samples.polyfill.find((s) => s.grant === median(grants));
console.log(
  JSON.stringify({
    browser: BROWSER,
    native: median(samples.native),
    polyfill: median(grants),
    floor: median(samples.floor.map((s) => s.grant)),
    constructed: median(samples.floor.map((s) => s.constructed)),
    steps: { ...middle.steps, grant: middle.grant },
  }),
);
await env.close();
