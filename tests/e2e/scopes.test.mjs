// The package's extension (docs/extensions.md): requestAll — several names
// granted atomically on the polyfill's lock manager, taken one by one in sorted order on the
// browser's own — and timeouts, requestAll's `timeout` and request() with
// AbortSignal.timeout (the standard way, natively too).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { IMPLS, freshSessions, hold, launch, log, query, release, until, where } from './harness/browser.mjs';

let env;
before(async () => {
  env = await launch();
});
after(() => env.close());

const holdAll = (target, key, names, options) =>
  target.evaluate(([k, n, o]) => T.holdAll(k, n, o), [key, names, options]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const granted = async (page, key) => (await log(page)).some((e) => e.startsWith(`granted:${key}:`));
// query() as [name, mode, client] rows, the clientIds replaced by the given pages' names.
async function view(page, clients) {
  const ids = {};
  for (const [label, p] of Object.entries(clients)) ids[await clientId(p)] = label;
  const state = await query(page);
  const rows = (list) => list.map(([name, mode, id]) => [name, mode, ids[id] || id]);
  return { held: rows(state.held), pending: rows(state.pending) };
}
// A page's clientId: that of a lock it takes for a moment, alone.
const clientId = (page) =>
  page.evaluate(async () => {
    const name = `whoami-${Math.random()}`;
    let id;
    await navigator.locks.request(name, async () => {
      id = (await navigator.locks.query()).held.find((l) => l.name === name).clientId;
    });
    return id;
  });
const queryScopes = (page, clients) =>
  page.evaluate(async () => {
    const { queryScopes } = await import('/dist/scopes.js');
    return queryScopes();
  }).then(async (state) => {
    const ids = {};
    for (const [label, p] of Object.entries(clients)) ids[await clientId(p)] = label;
    const rows = (list) => list.map(({ names, mode, clientId }) => [names.join(), mode, ids[clientId] || clientId]);
    return { held: rows(state.held), pending: rows(state.pending) };
  });

// Argument handling: the same on either manager (it happens before any request is made).
// Each case runs in the page with `requestAll` in scope and says how it settled.
const CASES = {
  'no arguments': ['requestAll()', 'rejected:TypeError:TypeError'],
  'one argument': ["requestAll(['x'])", 'rejected:TypeError:TypeError'],
  'names not an object': ["requestAll(42, () => {})", 'rejected:TypeError:TypeError'],
  'names a string (not a sequence)': ["requestAll('xy', () => {})", 'rejected:TypeError:TypeError'],
  'names not iterable': ['requestAll({ length: 1, 0: "x" }, () => {})', 'rejected:TypeError:TypeError'],
  'no names': ['requestAll([], () => {})', 'rejected:TypeError:TypeError'],
  'an empty Set': ['requestAll(new Set(), () => {})', 'rejected:TypeError:TypeError'],
  'a symbol among the names': ["requestAll(['x', Symbol()], () => {})", 'rejected:TypeError:TypeError'],
  'callback not callable': ["requestAll(['x'], {}, 42)", 'rejected:TypeError:TypeError'],
  'options not a dictionary': ["requestAll(['x'], 1, () => {})", 'rejected:TypeError:TypeError'],
  'bad mode': ["requestAll(['x'], { mode: 'write' }, () => {})", 'rejected:TypeError:TypeError'],
  'signal not an AbortSignal': ["requestAll(['x'], { signal: {} }, () => {})", 'rejected:TypeError:TypeError'],
  'negative timeout': ["requestAll(['x'], { timeout: -1 }, () => {})", 'rejected:TypeError:TypeError'],
  'NaN timeout': ["requestAll(['x'], { timeout: 'soon' }, () => {})", 'rejected:TypeError:TypeError'],
  'infinite timeout': ["requestAll(['x'], { timeout: Infinity }, () => {})", 'rejected:TypeError:TypeError'],
  'manager not a lock manager': ["requestAll(['x'], { manager: {} }, () => {})", 'rejected:TypeError:TypeError'],
  'a reserved name among them': ["requestAll(['x', '-y'], () => {})", 'rejected:DOMException:NotSupportedError'],
  'steal with ifAvailable': ["requestAll(['x'], { steal: true, ifAvailable: true }, () => {})", 'rejected:DOMException:NotSupportedError'],
  'shared steal': ["requestAll(['x'], { steal: true, mode: 'shared' }, () => {})", 'rejected:DOMException:NotSupportedError'],
  'signal with steal': [
    "requestAll(['x'], { steal: true, signal: new AbortController().signal }, () => {})",
    'rejected:DOMException:NotSupportedError',
  ],
  'signal with ifAvailable': [
    "requestAll(['x'], { ifAvailable: true, signal: new AbortController().signal }, () => {})",
    'rejected:DOMException:NotSupportedError',
  ],
  'timeout with steal': ["requestAll(['x'], { steal: true, timeout: 10 }, () => {})", 'rejected:DOMException:NotSupportedError'],
  'timeout with ifAvailable': ["requestAll(['x'], { ifAvailable: true, timeout: 10 }, () => {})", 'rejected:DOMException:NotSupportedError'],
  'aborted signal': ["requestAll(['x'], { signal: AbortSignal.abort('why') }, () => {})", 'rejected:String:why'],
  'type errors before the reserved-name check': ["requestAll(['-x'], { mode: 'bad' }, () => {})", 'rejected:TypeError:TypeError'],
  'callback checked before the reserved name': ["requestAll(['-x'], {}, 'nope')", 'rejected:TypeError:TypeError'],
  'null options are defaults': ["requestAll(['x'], null, (s) => s.mode + ':' + s.names)", 'resolved:exclusive:x'],
  'the timeout is converted to a number': ["requestAll(['x'], { timeout: '1000' }, (s) => s.names)", 'resolved:x'],
  'unknown members are ignored': ["requestAll(['x'], { tiemout: -1, scope: 3 }, (s) => s.names)", 'resolved:x'],
  'names converted with ToString, duplicates collapse, sorted by code units': [
    "requestAll(['b', 10, 'a', 'b', { toString: () => 'Z' }, '\\uFFFD', '\\u{10000}'], (s) => s.names.map((n) => [...n].map((c) => c.codePointAt(0).toString(16)).join('+')).join())",
    'resolved:31+30,5a,61,62,10000,fffd',
  ],
  'any iterable: a generator': ["requestAll((function* () { yield 'g2'; yield 'g1'; })(), (s) => s.names)", 'resolved:g1,g2'],
  'the callback gets a frozen { names, mode }': [
    "requestAll(['y', 'x'], { mode: 'shared' }, (s) => [Object.isFrozen(s), Object.isFrozen(s.names), Object.keys(s), s.mode, Array.isArray(s.names)].join(';'))",
    'resolved:true;true;names,mode;shared;true',
  ],
  'callback throwing rejects': ["requestAll(['x'], () => { throw new RangeError('boom') })", 'rejected:RangeError:RangeError'],
  'callback result resolves': ["requestAll(['x', 'y'], async () => 'value')", 'resolved:value'],
  'extra arguments are ignored': ["requestAll(['x'], {}, (s) => s.names, 'extra')", 'resolved:x'],
  'requestAll.length is 2': ['Promise.resolve(requestAll.length)', 'resolved:2'],
};

async function settle(page, code) {
  return page.evaluate(async (code) => {
    const { requestAll } = await import('/dist/scopes.js');
    try {
      const p = new Function('requestAll', `return ${code}`)(requestAll);
      if (!(p instanceof Promise)) return 'not a promise';
      return `resolved:${await p}`;
    } catch (e) {
      const kind = e instanceof DOMException ? 'DOMException' : e && e.constructor && e.constructor.name;
      return `rejected:${kind}:${e && e.name !== undefined ? e.name : e}`;
    }
  }, code);
}

for (const impl of IMPLS) {
  const manager = impl === 'native' ? "the browser's manager (fallback)" : "the polyfill's manager (atomic)";
  describe(`${where}${impl}: requestAll arguments, on ${manager}`, () => {
    const sessions = freshSessions(() => env, impl);
    let page;
    before(async () => {
      [page] = await sessions.fresh(1);
    });
    after(async () => {
      if (sessions.current) assert.deepEqual(sessions.current.errors, []);
      await sessions.close();
    });
    for (const [name, [code, expected]] of Object.entries(CASES)) {
      it(`requestAll(): ${name}`, async () => {
        assert.equal(await settle(page, code), expected);
      });
    }
    it('ifAvailable, not available: the callback gets null and nothing stays held', async () => {
      const result = await page.evaluate(async () => {
        const { requestAll } = await import('/dist/scopes.js');
        let release;
        const holder = navigator.locks.request('ia-y', () => new Promise((r) => (release = r)));
        const got = await requestAll(['ia-x', 'ia-y'], { ifAvailable: true }, (s) => s);
        const { held, pending } = await navigator.locks.query();
        release();
        await holder;
        const later = await requestAll(['ia-x', 'ia-y'], { ifAvailable: true }, (s) => s.names.join());
        return [got, held.map((l) => l.name), pending.length, later];
      });
      assert.deepEqual(result, [null, ['ia-y'], 0, 'ia-x,ia-y']);
    });
  });

  describe(`${where}${impl}: timeouts`, () => {
    const sessions = freshSessions(() => env, impl);
    const fresh = sessions.fresh;
    after(async () => {
      if (sessions.current) assert.deepEqual(sessions.current.errors, []);
      await sessions.close();
    });

    it('request() with { signal: AbortSignal.timeout(ms) } rejects with a TimeoutError DOMException and leaves the queue', async () => {
      const [a, b] = await fresh(2);
      await hold(a, 'a', 'ts');
      await until(a, 'granted:a:ts:exclusive');
      const outcome = await b.evaluate(async () => {
        const t0 = performance.now();
        try {
          await navigator.locks.request('ts', { signal: AbortSignal.timeout(150) }, () => 'granted');
          return 'granted';
        } catch (e) {
          return [e instanceof DOMException, e.name, performance.now() - t0 >= 140];
        }
      });
      assert.deepEqual(outcome, [true, 'TimeoutError', true]);
      assert.deepEqual((await query(b)).pending, []);
      await release(a, 'a');
      await until(a, 'resolved:a:done-a');
    });

    it('requestAll with timeout: not granted in time → TimeoutError, no pending entry, nothing held', async () => {
      const [a, b, c] = await fresh(3);
      await hold(a, 'a', 'ty');
      await until(a, 'granted:a:ty:exclusive');
      const outcome = await b.evaluate(async () => {
        const { requestAll } = await import('/dist/scopes.js');
        const t0 = performance.now();
        try {
          await requestAll(['tx', 'ty'], { timeout: 200, manager: navigator.locks }, () => 'granted');
          return 'granted';
        } catch (e) {
          return [e instanceof DOMException, e.name, performance.now() - t0 >= 190];
        }
      });
      assert.deepEqual(outcome, [true, 'TimeoutError', true]);
      const state = await query(c);
      assert.deepEqual(state.pending, []);
      assert.deepEqual(state.held.map((r) => r[0]), ['ty']);
      // tx is free: another tab takes it at once.
      await hold(c, 'c', 'tx', { ifAvailable: true });
      await until(c, 'granted:c:tx:exclusive');
      await release(a, 'a');
      await release(c, 'c');
      await until(c, 'resolved:c:done-c');
      assert.ok(!(await log(b)).some((e) => e.startsWith('granted')), 'the timed-out scope is never granted');
    });

    it('requestAll with timeout 0 tries once: granted if free now, else TimeoutError and no pending entry', async () => {
      const [a, b] = await fresh(2);
      await hold(a, 'a', 't0y');
      await until(a, 'granted:a:t0y:exclusive');
      const outcome = await b.evaluate(async () => {
        const { requestAll } = await import('/dist/scopes.js');
        const settle = (p) => p.then((v) => `resolved:${v}`, (e) => `rejected:${e instanceof DOMException}:${e.name}`);
        const options = { timeout: 0, manager: navigator.locks, signal: new AbortController().signal };
        return [
          await settle(requestAll(['t0x'], options, (s) => s.names.join())),
          await settle(requestAll(['t0x', 't0y'], options, () => 'granted')),
          (await navigator.locks.query()).pending.length,
        ];
      });
      assert.deepEqual(outcome, ['resolved:t0x', 'rejected:true:TimeoutError', 0]);
      await release(a, 'a');
    });

    it('requestAll with timeout: granted in time → held past the timeout, resolved with the callback', async () => {
      const [a, b] = await fresh(2);
      await hold(a, 'a', 'tg');
      await until(a, 'granted:a:tg:exclusive');
      await holdAll(b, 'b', ['tg', 'th'], { timeout: 2000, native: impl === 'native' });
      // A timer of the page's own, set after the request's: it fires after the timeout's.
      await b.evaluate(() => setTimeout(() => T.log.push('timeout-passed'), 2000));
      await query(b);
      await release(a, 'a');
      await until(b, 'granted:b:tg,th:exclusive');
      // The timeout passes while held: nothing happens (a rejection, with any round trip to
      // the lock worker it made, would have come before the query's answer).
      await until(b, 'timeout-passed', 5000);
      await query(b);
      assert.ok(!(await log(b)).some((e) => e.startsWith('rejected')));
      await release(b, 'b');
      await until(b, 'resolved:b:done-b');
    });

    it('requestAll with a timeout beyond setTimeout (2^31 ms or more) does not fire', async () => {
      const [a] = await fresh(1);
      const outcome = await a.evaluate(async () => {
        const { requestAll } = await import('/dist/scopes.js');
        let release;
        const holder = navigator.locks.request('tbig', () => new Promise((r) => (release = r)));
        const log = [];
        const waiting = requestAll(['tbig'], { timeout: 2 ** 40, manager: navigator.locks }, () => log.push('granted'));
        waiting.catch((e) => log.push(e.name));
        await new Promise((r) => setTimeout(r, 300));
        log.push('released');
        release();
        await holder;
        await waiting;
        return log;
      });
      assert.deepEqual(outcome, ['released', 'granted']);
    });

    it('requestAll with timeout and a signal whose abort event is stopped, no AbortSignal.any: no callback at the grant', async () => {
      const [a] = await fresh(1);
      const outcome = await a.evaluate(async () => {
        const { requestAll } = await import('/dist/scopes.js');
        let release;
        let holder;
        await new Promise((held) => {
          holder = navigator.locks.request('tstop', () => new Promise((r) => held((release = r))));
        });
        const any = AbortSignal.any;
        delete AbortSignal.any;
        try {
          const c = new AbortController();
          c.signal.addEventListener('abort', (e) => e.stopImmediatePropagation());
          let ran = false;
          const options = { timeout: 60_000, signal: c.signal, manager: navigator.locks };
          const waiting = requestAll(['tstop'], options, () => (ran = true)).then(
            () => 'resolved',
            (e) => `rejected:${e}`,
          );
          await new Promise((r) => setTimeout(r, 10));
          c.abort('why');
          release();
          await holder;
          return `${await waiting}, ran: ${ran}`;
        } finally {
          AbortSignal.any = any;
        }
      });
      assert.equal(outcome, 'rejected:why, ran: false');
      // The lock given back: free again.
      assert.equal(await a.evaluate(() => navigator.locks.request('tstop', { ifAvailable: true }, (l) => !!l)), true);
    });

    it('requestAll with timeout and signal: the signal aborting first rejects with its reason', async () => {
      const [a, b] = await fresh(2);
      await hold(a, 'a', 'tz');
      await until(a, 'granted:a:tz:exclusive');
      await holdAll(b, 'b', ['tz'], { timeout: 10_000, abortable: true, native: impl === 'native' });
      await query(b);
      await b.evaluate(() => T.abort('b'));
      await until(b, 'rejected:b:AbortError:true');
      assert.deepEqual((await query(b)).pending, []);
      await release(a, 'a');
    });
  });

  describe(`${where}${impl}: requestAll across tabs, no deadlock`, () => {
    it(`two tabs taking ['x','y'] and ['y','x'] in loops, a third 'y' alone: never deadlocked, never overlapping`, async () => {
      const sessions = freshSessions(() => env, impl);
      const [a, b, c] = await sessions.fresh(3);
      const SECTIONS = 150;
      const native = impl === 'native';
      // Each section a non-atomic read–await–write of one IndexedDB counter (T.soak); c
      // takes 'y' alone with a plain request() in the same queues.
      const runs = [
        a.evaluate(([n, native]) => T.soak('a', n, ['x', 'y'], native), [SECTIONS, native]),
        b.evaluate(([n, native]) => T.soak('b', n, ['y', 'x'], native), [SECTIONS, native]),
        c.evaluate((n) => T.soak('c', n, 'y'), SECTIONS),
      ];
      let timer;
      const deadlocked = new Promise((_, fail) => (timer = setTimeout(() => fail(new Error('deadlocked')), 120_000)));
      await Promise.race([Promise.all(runs), deadlocked]).finally(() => clearTimeout(timer));
      const totals = await a.evaluate(() => T.soakTotals());
      assert.equal(totals.ledger, 3 * SECTIONS, 'every section ran');
      assert.equal(totals.counter, totals.ledger, 'no two sections overlapped (no lost update)');
      assert.deepEqual(await query(a), { held: [], pending: [] });
      if (sessions.current) assert.deepEqual(sessions.current.errors, []);
      await sessions.close();
    });
  });
}

describe(`${where}polyfill: requestAll, atomic`, () => {
  const sessions = freshSessions(() => env, 'polyfill');
  const fresh = sessions.fresh;
  after(async () => {
    if (sessions.current) assert.deepEqual(sessions.current.errors, []);
    await sessions.close();
  });

  it('grants a scope all at once when its last name frees, holding none of it before', async () => {
    const [a, b, c] = await fresh(3);
    await hold(a, 'a', 'x');
    await hold(b, 'b', 'y');
    await until(a, 'granted:a:x:exclusive');
    await until(b, 'granted:b:y:exclusive');
    await holdAll(c, 'c', ['y', 'x']);
    let state = await view(c, { a, b, c });
    assert.deepEqual(state.pending, [['x', 'exclusive', 'c'], ['y', 'exclusive', 'c']]);
    await release(a, 'a');
    await until(a, 'resolved:a:done-a');
    state = await view(c, { a, b, c });
    assert.deepEqual(state.held, [['y', 'exclusive', 'b']], 'x is not taken early');
    assert.deepEqual(state.pending, [['x', 'exclusive', 'c'], ['y', 'exclusive', 'c']]);
    assert.ok(!(await granted(c, 'c')));
    await release(b, 'b');
    await until(c, 'granted:c:x,y:exclusive');
    state = await view(c, { a, b, c });
    assert.deepEqual(state.held, [['x', 'exclusive', 'c'], ['y', 'exclusive', 'c']]);
    assert.deepEqual(state.pending, []);
    await release(c, 'c');
    await until(c, 'resolved:c:done-c');
    assert.deepEqual((await query(c)).held, []);
  });

  it('a single-name request queued behind a scope on that name is not granted early', async () => {
    const [a, b, c] = await fresh(3);
    await hold(a, 'a', 'y');
    await until(a, 'granted:a:y:exclusive');
    await holdAll(b, 'b', ['x', 'y']); // waits for y
    await query(b);
    await hold(c, 'c', 'x'); // x is free, but queued behind b's scope
    await query(c);
    await hold(c, 'c-try', 'x', { ifAvailable: true });
    await until(c, 'null:c-try');
    await query(c); // (a grant of c's request, made before c-try's answer, came before this one)
    assert.ok(!(await granted(c, 'c')));
    // Shared behind a shared scope is not held back.
    await holdAll(a, 'as', ['s1', 's2'], { mode: 'shared' });
    await until(a, 'granted:as:s1,s2:shared');
    await hold(c, 'cs', 's1', { mode: 'shared' });
    await until(c, 'granted:cs:s1:shared');
    await release(a, 'a');
    await until(b, 'granted:b:x,y:exclusive');
    assert.ok(!(await granted(c, 'c')));
    await release(b, 'b');
    await until(c, 'granted:c:x:exclusive');
    for (const [page, key] of [[a, 'as'], [c, 'cs'], [c, 'c']]) await release(page, key);
  });

  it('a scope waits behind an earlier single-name request on any of its names', async () => {
    const [a, b, c] = await fresh(3);
    await hold(a, 'a', 'q1');
    await until(a, 'granted:a:q1:exclusive');
    await hold(b, 'b', 'q1'); // queued
    await query(b);
    await holdAll(c, 'c', ['q1', 'q2']);
    await query(c);
    await release(a, 'a');
    await until(b, 'granted:b:q1:exclusive');
    assert.ok(!(await granted(c, 'c')));
    await release(b, 'b');
    await until(c, 'granted:c:q1,q2:exclusive');
    await release(c, 'c');
  });

  it('steal of a scope: every holder of any of its names rejects with AbortError; it goes first', async () => {
    const [a, b, c, d] = await fresh(4);
    await hold(a, 'a', 'sx');
    await holdAll(b, 'b', ['sy', 'sw']);
    await until(a, 'granted:a:sx:exclusive');
    await until(b, 'granted:b:sw,sy:exclusive');
    await hold(c, 'c', 'sx'); // waiting before the steal
    await query(c);
    await holdAll(d, 'd', ['sy', 'sx', 'sz'], { steal: true });
    await until(d, 'granted:d:sx,sy,sz:exclusive');
    await until(a, 'rejected:a:AbortError:true');
    await until(b, 'rejected:b:AbortError:true');
    const state = await view(d, { a, b, c, d });
    assert.deepEqual(state.held, [['sx', 'exclusive', 'd'], ['sy', 'exclusive', 'd'], ['sz', 'exclusive', 'd']],
      "the victim scope's other name (sw) is released with it");
    assert.deepEqual(state.pending, [['sx', 'exclusive', 'c']]);
    await release(d, 'd');
    await until(c, 'granted:c:sx:exclusive');
    await release(c, 'c');
  });

  it('query() lists a scope as one entry per name, in the orders of §4.5; queryScopes groups them', async () => {
    const [a, b, c] = await fresh(3);
    const clients = { a, b, c };
    await hold(a, 'a1', 'h1');
    await until(a, 'granted:a1:h1:exclusive');
    await holdAll(b, 'b1', ['s2', 's1'], { mode: 'shared' });
    await until(b, 'granted:b1:s1,s2:shared');
    await hold(a, 'a2', 'h3');
    await until(a, 'granted:a2:h3:exclusive');
    await hold(a, 'a3', 'h4');
    await until(a, 'granted:a3:h4:exclusive');
    await hold(b, 'b2', 'h1');
    await query(b);
    await holdAll(c, 'c1', ['h3', 'h1']);
    await query(c);
    await hold(a, 'a4', 'h3');
    await query(a);
    const state = await view(a, clients);
    assert.deepEqual(state, {
      held: [['h1', 'exclusive', 'a'], ['s1', 'shared', 'b'], ['s2', 'shared', 'b'], ['h3', 'exclusive', 'a'], ['h4', 'exclusive', 'a']],
      pending: [['h1', 'exclusive', 'b'], ['h1', 'exclusive', 'c'], ['h3', 'exclusive', 'c'], ['h3', 'exclusive', 'a']],
    });
    assert.deepEqual(await queryScopes(c, clients), {
      held: [['h1', 'exclusive', 'a'], ['s1,s2', 'shared', 'b'], ['h3', 'exclusive', 'a'], ['h4', 'exclusive', 'a']],
      pending: [['h1', 'exclusive', 'b'], ['h1,h3', 'exclusive', 'c'], ['h3', 'exclusive', 'a']],
    });
    // The standard objects carry nothing of the extension.
    const keys = await a.evaluate(async () => {
      const { held, pending } = await navigator.locks.query();
      return [...held, ...pending].map((l) => Object.keys(l).join()).filter((k, i, all) => all.indexOf(k) === i);
    });
    assert.deepEqual(keys, ['clientId,mode,name']);
    await release(a, 'a1');
    await until(b, 'granted:b2:h1:exclusive');
    await release(b, 'b2');
    await release(a, 'a2');
    await until(c, 'granted:c1:h1,h3:exclusive');
    await release(c, 'c1');
    await until(a, 'granted:a4:h3:exclusive');
    for (const [page, key] of [[a, 'a4'], [a, 'a3'], [b, 'b1']]) await release(page, key);
    await until(b, 'resolved:b1:done-b1');
    assert.deepEqual(await query(a), { held: [], pending: [] });
  });

  it('the classic scripts (web-locks.global.js + web-locks-extras.global.js): WebLocksPolyfill.requestAll and queryScopes in a dedicated worker, atomic with the page', async () => {
    const [a] = await fresh(1);
    await a.evaluate(() => T.spawn('w'));
    await until(a, 'worker-ready');
    await hold(a, 'a', 'wy');
    await until(a, 'granted:a:wy:exclusive');
    const tell = (key, code) => a.evaluate(([key, code]) => T.tell('w', { cmd: 'eval', key, code }), [key, code]);
    await tell('scope', "WebLocksPolyfill.requestAll(['wy', 'wx'], (s) => s.names.join())");
    let state;
    for (let i = 0; i < 100; i++) {
      state = await query(a);
      if (state.pending.length === 2) break;
      await sleep(20);
    }
    assert.deepEqual(state.pending.map((r) => r[0]), ['wx', 'wy']);
    assert.deepEqual(state.held.map((r) => r[0]), ['wy']);
    await tell('scopes', 'WebLocksPolyfill.queryScopes().then((s) => s.pending.map((p) => p.names.join()))');
    await until(a, 'worker-eval:scopes:["wx,wy"]');
    await release(a, 'a');
    await until(a, 'worker-eval:scope:"wx,wy"');
  });

  // (navigator.locks' lock is granted before the scope is asked for. Each lock manager has a
  // port of its own to the lock worker, and WebKit 2.50 keeps no order across a page's ports
  // to one SharedWorker (as a plain SharedWorker shows: of two messages posted on two
  // connected ports, the second often arrives first): a request made first on
  // another lock manager may be served second there, as another tab's may.)
  it('a scope on a lock manager of createLockManager() is atomic too, and excludes navigator.locks', async () => {
    const [a] = await fresh(1);
    const result = await a.evaluate(async () => {
      const { createLockManager } = await import('/dist/index.js');
      const { requestAll } = await import('/dist/scopes.js');
      const own = createLockManager();
      let release;
      let granted;
      const first = new Promise((ok) => (granted = ok));
      const held = navigator.locks.request('m2', () => (granted(), new Promise((r) => (release = r))));
      await first;
      const scope = requestAll(['m1', 'm2'], { manager: own }, (s) => s.names.join());
      const during = (await own.query()).held.map((l) => l.name);
      const early = await navigator.locks.request('m1', { ifAvailable: true }, (l) => !!l);
      release();
      await held;
      return [during, early, await scope];
    });
    assert.deepEqual(result, [['m2'], false, 'm1,m2']);
  });
});

describe(`${where}native: requestAll on the browser's own lock manager (the fallback)`, () => {
  const sessions = freshSessions(() => env, 'native');
  const fresh = sessions.fresh;
  after(async () => {
    if (sessions.current) assert.deepEqual(sessions.current.errors, []);
    await sessions.close();
  });

  it('takes the names one by one in sorted order: earlier names are held while a later one waits', async () => {
    const [a, b] = await fresh(2);
    await hold(a, 'a', 'ny');
    await until(a, 'granted:a:ny:exclusive');
    await holdAll(b, 'b', ['ny', 'nx'], { native: true });
    let state;
    for (let i = 0; i < 50; i++) {
      state = await view(b, { a, b });
      if (state.pending.length) break;
      await sleep(20);
    }
    assert.deepEqual(sortRows(state.held), [['nx', 'exclusive', 'b'], ['ny', 'exclusive', 'a']]);
    assert.deepEqual(state.pending, [['ny', 'exclusive', 'b']]);
    await release(a, 'a');
    await until(b, 'granted:b:nx,ny:exclusive');
    await release(b, 'b');
    await until(b, 'resolved:b:done-b');
    assert.deepEqual(await query(b), { held: [], pending: [] });
  });

  it('steal: steals each name in order; every victim rejects with AbortError', async () => {
    const [a, b, c] = await fresh(3);
    await hold(a, 'a', 'vx');
    await hold(b, 'b', 'vy');
    await until(a, 'granted:a:vx:exclusive');
    await until(b, 'granted:b:vy:exclusive');
    await holdAll(c, 'c', ['vy', 'vx'], { steal: true, native: true });
    await until(c, 'granted:c:vx,vy:exclusive');
    await until(a, 'rejected:a:AbortError:true');
    await until(b, 'rejected:b:AbortError:true');
    await release(c, 'c');
    await until(c, 'resolved:c:done-c');
  });

  it('a signal aborting while a later name is awaited releases the earlier ones', async () => {
    const [a, b] = await fresh(2);
    await hold(a, 'a', 'ky');
    await until(a, 'granted:a:ky:exclusive');
    await holdAll(b, 'b', ['kx', 'ky'], { abortable: true, native: true });
    for (let i = 0; i < 100 && (await query(b)).pending.length === 0; i++) await sleep(20); // kx taken, ky awaited
    await b.evaluate(() => T.abort('b'));
    await until(b, 'rejected:b:AbortError:true');
    const state = await query(b);
    assert.deepEqual(state.held.map((r) => r[0]), ['ky']);
    assert.deepEqual(state.pending, []);
    await release(a, 'a');
  });

  it('queryScopes on the browser manager: every entry is its own', async () => {
    const [a] = await fresh(1);
    await holdAll(a, 'a', ['qa', 'qb'], { native: true });
    await until(a, 'granted:a:qa,qb:exclusive');
    const state = await queryScopes(a, { a });
    assert.deepEqual(sortRows(state.held), [['qa', 'exclusive', 'a'], ['qb', 'exclusive', 'a']]);
    await release(a, 'a');
  });
});

function sortRows(rows) {
  return [...rows].sort((x, y) => (x.join() < y.join() ? -1 : 1));
}
