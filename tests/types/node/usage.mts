// Compiled with tsc (npm test): the package's types in a Node project, without the DOM lib
// (`module: nodenext` here; tests/types/node16 compiles it under `node16`).
import { createLockManager, install, LockManager as LockManagerClass } from 'navigator-locks-polyfill';
import { findDeadlocks } from 'navigator-locks-polyfill/deadlocks';
import { queryScopes, requestAll } from 'navigator-locks-polyfill/scopes';
import 'navigator-locks-polyfill/auto';
import 'navigator-locks-polyfill/local';
import 'navigator-locks-polyfill/global';
import 'navigator-locks-polyfill/global-extras';
import webLocks, { type WebLocksVitePlugin } from 'navigator-locks-polyfill/vite';

// In Node, install() without `local` does nothing: undefined (or an existing navigator.locks).
const nothing: LockManager | undefined = install();
const locks: LockManager = install({ local: true });
const other: LockManager = createLockManager({ local: true });

async function run(): Promise<string> {
  const controller = new AbortController();
  const name = await locks.request('job', { mode: 'exclusive', signal: controller.signal }, (lock) => lock?.name ?? '');
  const snapshot: LockManagerSnapshot = await other.query();
  const held: LockInfo[] = snapshot.held ?? [];
  const names = await requestAll(['job', 'other'], { manager: other, signal: controller.signal }, (scope) => scope?.names.join() ?? '');
  const scopes = await queryScopes(other);
  return name + held.length + findDeadlocks(snapshot).length + names + findDeadlocks(scopes).length + WebLocksPolyfill.requestAll.length;
}

const proto: LockManager = LockManagerClass.prototype;
const global: typeof import('navigator-locks-polyfill') = WebLocksPolyfill;

// @ts-expect-error: not a mode
locks.request('job', { mode: 'read' }, () => 0);

const plugin: WebLocksVitePlugin = webLocks();

export { nothing, run, proto, global, plugin };
