// The extension (docs/extensions.md) on the in-process lock manager in plain Node: requestAll
// is atomic there too (the same wasm service), its timeout leaves every queue, and a pending
// timeout never keeps the process alive after the grant.
import { it } from 'node:test';
import assert from 'node:assert/strict';

const { createLockManager } = await import('../../dist/index.js');
const { queryScopes, requestAll } = await import('../../dist/scopes.js');
const one = createLockManager({ local: true });
const two = createLockManager({ local: true });

function holdAll(manager, names, options = {}) {
  let release;
  let granted;
  const grant = new Promise((resolve) => (granted = resolve));
  const result = requestAll(names, { ...options, manager }, (scope) => {
    granted(scope);
    return new Promise((resolve) => (release = resolve));
  }).then(
    (value) => ({ value }),
    (error) => ({ error }),
  );
  return { granted: grant, release: (value) => release(value), result };
}

it('a scope is granted atomically on a local lock manager, when its last name frees', async () => {
  const y = holdAll(one, ['n-y']);
  await y.granted;
  const scope = holdAll(two, ['n-y', 'n-x']);
  const snapshot = await queryScopes(two);
  assert.deepEqual(
    snapshot.pending.map((s) => s.names),
    [['n-x', 'n-y']],
  );
  assert.deepEqual(snapshot.held.map((s) => s.names), [['n-y']]);
  // n-x is free but queued behind the scope: not available to another request.
  assert.equal(await one.request('n-x', { ifAvailable: true }, (lock) => lock), null);
  y.release('y');
  assert.deepEqual(await scope.granted, { names: ['n-x', 'n-y'], mode: 'exclusive' });
  const { held } = await two.query();
  assert.deepEqual(held.map((l) => l.name), ['n-x', 'n-y']);
  scope.release('done');
  assert.deepEqual(await scope.result, { value: 'done' });
});

it('timeout: TimeoutError, no pending entry left; granted in time, the timer is cleared', async () => {
  const held = holdAll(one, ['t-a']);
  await held.granted;
  const late = await holdAll(two, ['t-a', 't-b'], { timeout: 50 }).result;
  assert.equal(late.error.name, 'TimeoutError');
  assert.deepEqual((await two.query()).pending, []);
  // Granted before its (long) timeout: the test process exits at once afterwards, so the
  // timer did not outlive the grant (node:test would wait for it).
  const inTime = holdAll(two, ['t-a', 't-b'], { timeout: 60_000 });
  held.release();
  await inTime.granted;
  inTime.release('ok');
  assert.deepEqual(await inTime.result, { value: 'ok' });
});

it('a timeout just beyond setTimeout (2^31-1 ms and a half) never fires: Node would at once', async () => {
  const held = holdAll(one, ['t-big']);
  await held.granted;
  const waiting = holdAll(two, ['t-big'], { timeout: 2 ** 31 - 0.5 });
  await new Promise((resolve) => setTimeout(resolve, 100));
  held.release();
  assert.deepEqual(await waiting.granted, { names: ['t-big'], mode: 'exclusive' });
  waiting.release('late');
  assert.deepEqual(await waiting.result, { value: 'late' });
});
