// The Web Locks API's behaviour, as test cases any runner can run (node:test here; Vitest in
// tests/apps/vitest/): `cases(env)` lists [title, async fn] pairs. `env.locks()` is the installed
// navigator.locks; `env.create()` makes another lock manager of the same lock service (its
// own client). Lock names are unique per case, so cases may share one service.
import assert from 'node:assert/strict';

// A request that holds its lock until released: { granted (resolves with the Lock),
// release(value), result (the request's promise, settled as {value} or {error}) }.
function hold(manager, name, options = {}) {
  let release;
  let granted;
  const grant = new Promise((resolve) => (granted = resolve));
  const result = manager
    .request(name, options, (lock) => {
      granted(lock);
      return new Promise((resolve) => (release = resolve));
    })
    .then(
      (value) => ({ value }),
      (error) => ({ error }),
    );
  return { granted: grant, release: (value) => release(value), result };
}

const rows = (list) => list.map((info) => [info.name, info.mode, info.clientId]);
const names = (list) => list.map((info) => info.name);

// query() of `manager`, reduced to the names starting with `prefix` (the case's own). A
// manager's messages reach the service in order, those of different managers in any order:
// a case awaits this after a request that must be queued before another manager's.
async function state(manager, prefix) {
  const { held, pending } = await manager.query();
  const mine = (info) => info.name.startsWith(prefix);
  return { held: held.filter(mine), pending: pending.filter(mine) };
}

async function rejects(promise, name) {
  const error = await promise.then(
    () => assert.fail('expected a rejection'),
    (e) => e,
  );
  assert.equal(error.name, name, String(error));
  return error;
}

export function cases({ locks, create, LockManager, Lock }) {
  return [
    [
      'navigator.locks is a LockManager with its WebIDL shape',
      async () => {
        const manager = locks();
        assert.ok(manager instanceof LockManager);
        assert.equal(globalThis.LockManager, LockManager);
        assert.equal(globalThis.Lock, Lock);
        assert.equal(Object.prototype.toString.call(manager), '[object LockManager]');
        assert.equal(manager.request.length, 2);
        assert.throws(() => new LockManager(), TypeError);
        assert.equal(locks(), manager);
      },
    ],
    [
      'request: the callback gets a Lock, the promise resolves with its result',
      async () => {
        const result = await locks().request('basic', async (lock) => {
          assert.ok(lock instanceof Lock);
          assert.deepEqual([lock.name, lock.mode], ['basic', 'exclusive']);
          const { held } = await state(locks(), 'basic');
          assert.deepEqual(names(held), ['basic']);
          return 42;
        });
        assert.equal(result, 42);
        const { held, pending } = await state(locks(), 'basic');
        assert.deepEqual([names(held), pending], [[], []]);
      },
    ],
    [
      'exclusive: requests of other managers queue in FIFO order',
      async () => {
        const [b, c] = [create(), create()];
        const order = [];
        const a1 = hold(locks(), 'fifo');
        await a1.granted;
        const b1 = hold(b, 'fifo');
        await state(b, 'fifo');
        const c1 = hold(c, 'fifo');
        b1.granted.then(() => order.push('b'));
        c1.granted.then(() => order.push('c'));
        const { held, pending } = await state(c, 'fifo');
        assert.equal(held.length, 1);
        assert.deepEqual(names(pending), ['fifo', 'fifo']);
        assert.deepEqual(order, []);
        a1.release('a');
        await b1.granted;
        assert.deepEqual(order, ['b']);
        b1.release('b');
        await c1.granted;
        c1.release('c');
        assert.deepEqual(
          (await Promise.all([a1.result, b1.result, c1.result])).map((r) => r.value),
          ['a', 'b', 'c'],
        );
        assert.deepEqual(order, ['b', 'c']);
      },
    ],
    [
      'shared: readers share; a queued writer keeps later readers waiting',
      async () => {
        const other = create();
        const r1 = hold(locks(), 'rw', { mode: 'shared' });
        const r2 = hold(other, 'rw', { mode: 'shared' });
        assert.equal((await r1.granted).mode, 'shared');
        await r2.granted;
        const w = hold(locks(), 'rw');
        await state(locks(), 'rw');
        const r3 = hold(other, 'rw', { mode: 'shared' });
        const { held, pending } = await state(other, 'rw');
        assert.deepEqual(
          held.map((i) => i.mode),
          ['shared', 'shared'],
        );
        assert.deepEqual(
          pending.map((i) => i.mode),
          ['exclusive', 'shared'],
        );
        r1.release();
        r2.release();
        assert.equal((await w.granted).mode, 'exclusive');
        assert.deepEqual(names((await state(other, 'rw')).pending), ['rw']);
        w.release();
        await r3.granted;
        r3.release();
        await Promise.all([r1.result, r2.result, w.result, r3.result]);
      },
    ],
    [
      'ifAvailable: null while another manager holds the lock, a Lock once free',
      async () => {
        const other = create();
        const h = hold(other, 'maybe');
        await h.granted;
        assert.equal(await locks().request('maybe', { ifAvailable: true }, (lock) => lock), null);
        h.release();
        await h.result;
        const lock = await locks().request('maybe', { ifAvailable: true }, (l) => l);
        assert.ok(lock instanceof Lock);
        assert.equal(lock.name, 'maybe');
      },
    ],
    [
      "steal: the holder's promise rejects with AbortError and the thief runs at once",
      async () => {
        const victim = create();
        const h = hold(victim, 'steal');
        await h.granted;
        const waiting = hold(victim, 'steal');
        const value = await locks().request('steal', { steal: true }, async (lock) => {
          const { held, pending } = await state(locks(), 'steal');
          assert.deepEqual(names(held), ['steal']);
          assert.equal(pending.length, 1); // the waiter keeps waiting
          return lock.name;
        });
        assert.equal(value, 'steal');
        const { error } = await h.result;
        assert.equal(error.name, 'AbortError');
        assert.ok(error instanceof DOMException);
        await waiting.granted;
        waiting.release();
        await waiting.result;
      },
    ],
    [
      'signal: an abort before the grant rejects with its reason and leaves the queue',
      async () => {
        const other = create();
        const h = hold(other, 'abort');
        await h.granted;
        const controller = new AbortController();
        const queued = locks().request('abort', { signal: controller.signal }, () => 'never');
        assert.equal((await state(locks(), 'abort')).pending.length, 1);
        controller.abort();
        await rejects(queued, 'AbortError');
        assert.deepEqual((await state(locks(), 'abort')).pending, []);
        const reason = new Error('custom reason');
        const aborted = new AbortController();
        aborted.abort(reason);
        const error = await locks()
          .request('abort', { signal: aborted.signal }, () => 'never')
          .catch((e) => e);
        assert.equal(error, reason);
        h.release();
        await h.result;
        // After the grant an abort changes nothing.
        const late = new AbortController();
        const value = await locks().request('abort', { signal: late.signal }, async () => {
          late.abort();
          return 'kept';
        });
        assert.equal(value, 'kept');
      },
    ],
    [
      'query: each manager has its own clientId; held in grant order, pending in request order',
      async () => {
        const [b, c] = [create(), create()];
        const x = hold(locks(), 'q-x');
        await x.granted;
        const y = hold(b, 'q-y');
        await y.granted;
        const wb = hold(b, 'q-x', { mode: 'shared' });
        await state(b, 'q-');
        const wc = hold(c, 'q-y');
        const { held, pending } = await state(c, 'q-');
        const ids = [...new Set(held.map((i) => i.clientId))];
        assert.equal(ids.length, 2);
        const [ida, idb] = ids;
        assert.deepEqual(rows(held), [
          ['q-x', 'exclusive', ida],
          ['q-y', 'exclusive', idb],
        ]);
        assert.equal(pending[0].clientId, idb);
        assert.deepEqual(rows(pending).slice(0, 1), [['q-x', 'shared', idb]]);
        assert.deepEqual(rows(pending)[1].slice(0, 2), ['q-y', 'exclusive']);
        assert.ok(![ida, idb].includes(pending[1].clientId));
        x.release();
        y.release();
        await Promise.all([wb.granted, wc.granted]);
        wb.release();
        wc.release();
        await Promise.all([x.result, y.result, wb.result, wc.result]);
      },
    ],
    [
      'argument errors reject (never throw) with the spec’s errors',
      async () => {
        const m = locks();
        await rejects(m.request('x'), 'TypeError');
        await rejects(m.request('x', {}, 'not a function'), 'TypeError');
        await rejects(m.request('x', { mode: 'read' }, () => {}), 'TypeError');
        await rejects(m.request('-reserved', () => {}), 'NotSupportedError');
        await rejects(m.request('x', { steal: true, ifAvailable: true }, () => {}), 'NotSupportedError');
        await rejects(m.request('x', { steal: true, mode: 'shared' }, () => {}), 'NotSupportedError');
        const signal = new AbortController().signal;
        await rejects(m.request('x', { ifAvailable: true, signal }, () => {}), 'NotSupportedError');
      },
    ],
    [
      'a callback that throws rejects the request and releases the lock',
      async () => {
        const boom = new Error('boom');
        const error = await locks()
          .request('throws', () => {
            throw boom;
          })
          .catch((e) => e);
        assert.equal(error, boom);
        assert.equal(await create().request('throws', { ifAvailable: true }, (lock) => !!lock), true);
      },
    ],
    [
      'names are DOMStrings: lone surrogates are distinct names, kept as given',
      async () => {
        const list = ['\uD800', '\uDC00', 'a\uDC00b', '\uFFFD'];
        const held = list.map((name) => hold(locks(), name));
        await Promise.all(held.map((h) => h.granted));
        const { held: all } = await locks().query();
        assert.deepEqual(
          names(all).filter((name) => list.includes(name)),
          list,
        );
        for (const h of held) h.release();
        await Promise.all(held.map((h) => h.result));
      },
    ],
  ];
}
