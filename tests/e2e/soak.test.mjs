// Soak: 8 tabs × 1,000 exclusive sections, each a non-atomic read–await–write increment of
// an IndexedDB counter, while tabs are closed and crashed (the worker's starter included).
// Mutual exclusion holds if the counter equals the number of committed sections.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crash, launch, newSession } from './harness/browser.mjs';

const TABS = 8;
const SECTIONS = 1000;
// Which tabs end: chosen by a seeded generator (SOAK_SEED=<seed> repeats a run's choices).
const SEED = Number(process.env.SOAK_SEED ?? Date.now() % 2 ** 31);
let state = (SEED % 2147483646) + 1; // (a Lehmer generator: its state in 1 .. 2^31 - 2)
const random = () => (state = (state * 48271) % 2147483647) / 2147483647;

let env;
before(async () => {
  env = await launch();
});
after(() => env.close());

describe('polyfill: soak', () => {
  it(`${TABS} tabs × ${SECTIONS} sections with tabs closed and crashed mid-run: no lost update, no stuck lock`, async () => {
    console.log(`# soak: SOAK_SEED=${SEED}`);
    const session = await newSession(env, 'polyfill');
    let serial = 0;
    const names = new Map(); // page -> its tab's name
    const start = async () => {
      const page = await session.page();
      const tab = `tab${serial++}`;
      names.set(page, tab);
      page.evaluate(([tab, n]) => void T.soak(tab, n), [tab, SECTIONS]);
      return page;
    };
    const live = [];
    for (let i = 0; i < TABS; i++) live.push(await start());
    const t0 = Date.now();
    // Chaos: crash the worker's starter first, then alternate closes and crashes.
    const events = [];
    for (let round = 0; round < 6; round++) {
      await new Promise((r) => setTimeout(r, 1500));
      const victim = round === 0 ? 0 : 1 + Math.floor(random() * (live.length - 1));
      const [page] = live.splice(victim, 1);
      if (round % 2 === 0) {
        await crash(page);
        events.push(`crash ${names.get(page)}`);
      } else {
        await page.close();
        events.push(`close ${names.get(page)}`);
      }
      live.push(await start());
    }
    // Every surviving tab finishes its sections.
    for (const page of live) {
      await page.waitForFunction((n) => T.soakDone === n, SECTIONS, { timeout: 240_000, polling: 200 });
    }
    const seconds = (Date.now() - t0) / 1000;
    const totals = await live[0].evaluate(() => T.soakTotals());
    const state = await live[0].evaluate(() => T.query());
    console.log(
      `# soak: ${totals.ledger} sections committed in ${seconds.toFixed(1)} s by ${serial} tabs ` +
        `(${events.join(', ')}); counter ${totals.counter}`,
    );
    assert.equal(totals.counter, totals.ledger, 'no lost update');
    assert.ok(totals.ledger >= TABS * SECTIONS, 'every surviving tab completed its sections');
    assert.deepEqual(state, { held: [], pending: [] }, 'no stuck lock');
    const granted = await live[0].evaluate(() => navigator.locks.request('soak', { ifAvailable: true }, (l) => !!l));
    assert.equal(granted, true);
    assert.deepEqual(session.errors, []);
    await session.close();
  });
});
