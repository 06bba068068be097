// The deadlock detector on hand-made snapshots.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { findDeadlocks } from '../../js/extensions/deadlocks.js';

const lock = (name, clientId, mode = 'exclusive') => ({ name, mode, clientId });

it('finds the two-client cycle of the spec example (A then B, B then A)', () => {
  const snapshot = {
    held: [lock('A', 'one'), lock('B', 'two')],
    pending: [lock('B', 'one'), lock('A', 'two')],
  };
  assert.deepEqual(findDeadlocks(snapshot), [
    {
      clients: ['one', 'two'],
      waits: [
        { client: 'one', waitsFor: 'two', name: 'B' },
        { client: 'two', waitsFor: 'one', name: 'A' },
      ],
    },
  ]);
});

it('reports nothing for plain waiting, shared holders, and chains', () => {
  assert.deepEqual(findDeadlocks({ held: [], pending: [] }), []);
  assert.deepEqual(
    findDeadlocks({
      held: [lock('r', 'a', 'shared'), lock('x', 'b')],
      pending: [lock('r', 'c', 'shared'), lock('x', 'a'), lock('r', 'd')],
    }),
    [],
  );
});

it('sees a client waiting for a name it holds itself', () => {
  const found = findDeadlocks({ held: [lock('x', 'a')], pending: [lock('x', 'a')] });
  assert.deepEqual(found, [{ clients: ['a'], waits: [{ client: 'a', waitsFor: 'a', name: 'x' }] }]);
});

it('follows queue order: a reader behind a queued writer waits for that writer', () => {
  // a holds y; b holds x shared; c queued exclusive on x; a queued shared on x behind c;
  // b waits for y (held by a). Cycle: a → c (queue) → b (holder) → a (holder of y).
  const found = findDeadlocks({
    held: [lock('y', 'a'), lock('x', 'b', 'shared')],
    pending: [lock('x', 'c'), lock('x', 'a', 'shared'), lock('y', 'b')],
  });
  assert.equal(found.length, 1);
  assert.deepEqual([...found[0].clients].sort(), ['a', 'b', 'c']);
});

it('separates independent cycles', () => {
  const found = findDeadlocks({
    held: [lock('p', '1'), lock('q', '2'), lock('s', '3'), lock('t', '4')],
    pending: [lock('q', '1'), lock('p', '2'), lock('t', '3'), lock('s', '4'), lock('p', '5')],
  });
  assert.deepEqual(found.map((d) => [...d.clients].sort()), [['1', '2'], ['3', '4']]);
});

it('lists every name a client waits on inside the cycle', () => {
  const found = findDeadlocks({
    held: [lock('A', 'one'), lock('primary', 'two'), lock('B', 'two')],
    pending: [lock('primary', 'one'), lock('B', 'one'), lock('A', 'two')],
  });
  assert.deepEqual(found[0].waits, [
    { client: 'one', waitsFor: 'two', name: 'primary' },
    { client: 'one', waitsFor: 'two', name: 'B' },
    { client: 'two', waitsFor: 'one', name: 'A' },
  ]);
});

// Scopes (requestAll): queryScopes() entries, { names, mode, clientId }.
const scope = (names, clientId, mode = 'exclusive') => ({ names, mode, clientId });

it('scopes: two clients taking the same names as one scope each, in opposite orders, make no deadlock', () => {
  // Held by one, pending for the other (query order of names does not matter).
  assert.deepEqual(findDeadlocks({ held: [scope(['x', 'y'], 'one')], pending: [scope(['x', 'y'], 'two')] }), []);
  // Both pending behind a third client holding one of the names.
  assert.deepEqual(
    findDeadlocks({
      held: [lock('y', 'three')],
      pending: [scope(['x', 'y'], 'one'), scope(['y', 'x'], 'two'), scope(['x', 'y'], 'four', 'shared')],
    }),
    [],
  );
  // The same work with nested requests in opposite orders is the classic cycle.
  assert.equal(
    findDeadlocks({ held: [lock('x', 'one'), lock('y', 'two')], pending: [lock('y', 'one'), lock('x', 'two')] }).length,
    1,
  );
});

it('scopes: a pending scope waits on every one of its names', () => {
  // one holds x; two's scope {x, y} waits for one on x; one waits for y, behind two's scope.
  const found = findDeadlocks({
    held: [lock('x', 'one')],
    pending: [scope(['x', 'y'], 'two'), lock('y', 'one')],
  });
  assert.deepEqual(found, [
    {
      clients: ['two', 'one'],
      waits: [
        { client: 'two', waitsFor: 'one', name: 'x' },
        { client: 'one', waitsFor: 'two', name: 'y' },
      ],
    },
  ]);
});

it('scopes: a request queued behind an earlier scope on its name waits for it, even with the name free', () => {
  // two's scope {a, b} waits for one (holder of b); one, holding b, asks for a, free but
  // queued behind the scope: a real deadlock.
  const found = findDeadlocks({ held: [scope(['b'], 'one')], pending: [scope(['a', 'b'], 'two'), lock('a', 'one')] });
  assert.equal(found.length, 1);
  assert.deepEqual(new Set(found[0].waits), new Set([
    { client: 'two', waitsFor: 'one', name: 'b' },
    { client: 'one', waitsFor: 'two', name: 'a' },
  ]));
  // Shared behind a shared scope: no wait, no deadlock.
  assert.deepEqual(
    findDeadlocks({ held: [lock('b', 'one', 'shared')], pending: [scope(['a', 'b'], 'two', 'shared'), lock('a', 'one', 'shared')] }),
    [],
  );
});

it('scopes: a held scope is a holder of each of its names', () => {
  const found = findDeadlocks({
    held: [scope(['p', 'q'], 'one'), lock('r', 'two')],
    pending: [lock('r', 'one'), scope(['q', 'z'], 'two')],
  });
  assert.deepEqual(found, [
    {
      clients: ['one', 'two'],
      waits: [
        { client: 'one', waitsFor: 'two', name: 'r' },
        { client: 'two', waitsFor: 'one', name: 'q' },
      ],
    },
  ]);
});

it('accepts query() entries and queryScopes() entries mixed, with the same result as per-name entries', () => {
  const scoped = { held: [scope(['A', 'B'], 'one')], pending: [scope(['B', 'C'], 'two'), lock('C', 'one')] };
  const flat = {
    held: [lock('A', 'one'), lock('B', 'one')],
    pending: [lock('B', 'two'), lock('C', 'two'), lock('C', 'one')],
  };
  assert.deepEqual(findDeadlocks(scoped), findDeadlocks(flat));
  assert.equal(findDeadlocks(scoped).length, 1);
});

it('takes a snapshot without held or pending (optional in LockManagerSnapshot) as empty lists', () => {
  assert.deepEqual(findDeadlocks({}), []);
  assert.deepEqual(findDeadlocks({ held: [lock('A', 'one')] }), []);
});
