// Runs the API cases (api-cases.mjs) with node:test against the installed navigator.locks.
import { it } from 'node:test';
import { cases } from './api-cases.mjs';

export async function runCases() {
  const { createLockManager, LockManager, Lock } = await import('../../dist/index.js');
  const env = { locks: () => navigator.locks, create: () => createLockManager({ local: true }), LockManager, Lock };
  for (const [title, fn] of cases(env)) it(title, fn);
}
