// @vitest-environment happy-dom
// The Web Locks API's behaviour with the local lock manager (vitest.config.js's setup file),
// in Vitest's happy-dom environment: the cases of tests/node/api-cases.mjs.
import { expect, test } from 'vitest';
import { createLockManager, Lock, LockManager } from 'navigator-locks-polyfill';
import { cases } from './api-cases.mjs';

test('navigator.locks is the polyfill\'s, installed by the setup file', () => {
  expect(navigator.userAgent).toMatch(/HappyDOM/);
  expect(navigator.locks).toBeInstanceOf(LockManager);
});

for (const [title, fn] of cases({
  locks: () => navigator.locks,
  create: () => createLockManager({ local: true }),
  LockManager,
  Lock,
})) {
  test(title, fn);
}
