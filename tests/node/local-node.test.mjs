// The local entry in plain Node: navigator created, the API's behaviour exact.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { runCases } from './run-cases.mjs';

// Node 20 has no navigator (21+ has one, where the getter goes on its Navigator.prototype).
const created = globalThis.navigator === undefined;
await import('../../dist/local.js');

it('creates navigator where the runtime has none', { skip: !created && 'this Node has a navigator' }, () => {
  assert.equal(typeof navigator, 'object');
  assert.equal(Object.prototype.toString.call(navigator), '[object Navigator]');
  assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'locks'), false);
  // The getter is WebIDL's: it refuses other receivers.
  const getter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(navigator), 'locks').get;
  assert.throws(() => getter.call({}), TypeError);
});

await runCases();
