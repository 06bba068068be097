// The deadlock detector on hand-made snapshots.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { findDeadlocks } from '../../js/deadlocks.js';

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
