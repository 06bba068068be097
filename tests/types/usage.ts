// Compiled with tsc (npm test): the package's types work with TypeScript's DOM types.
import { createLockManager, install, Lock as LockClass } from 'navigator-locks-polyfill';
import { findDeadlocks, type Deadlock } from 'navigator-locks-polyfill/deadlocks';
import { queryScopes, requestAll, type LockScope, type ScopeInfo } from 'navigator-locks-polyfill/scopes';
import 'navigator-locks-polyfill/auto';
import 'navigator-locks-polyfill/local';
import webLocks from 'navigator-locks-polyfill/vite';
import 'navigator-locks-polyfill/global';
import 'navigator-locks-polyfill/global-extras';
import { defineConfig } from 'vite';
import esbuildPlugin from 'navigator-locks-polyfill/esbuild';
import rollupPlugin from 'navigator-locks-polyfill/rollup';
import type { Plugin as EsbuildPlugin } from 'esbuild';
import type { Plugin as RollupPlugin } from 'rollup';

// The esbuild and Rollup plugins are those bundlers' plugins.
export const bundlerPlugins: [EsbuildPlugin, RollupPlugin] = [esbuildPlugin(), rollupPlugin()];

// Where no lock worker can be reached, install() does nothing and may return undefined.
const maybe: LockManager | undefined = install({ force: true, workerUrl: new URL('/w.js', location.href) });
const manager: LockManager = install({ local: true });
const own: LockManager = createLockManager({ wasmUrl: '/x.wasm' });
const local: LockManager = createLockManager({ local: true });

const result: Promise<number> = manager.request('name', { mode: 'shared', ifAvailable: true }, (lock) => {
  const held: Lock | null = lock;
  return held ? held.name.length : 0;
});

async function inspect(): Promise<Deadlock[]> {
  const snapshot = await own.query();
  return findDeadlocks(snapshot);
}

// An async callback's result, not a promise of a promise.
const awaited: Promise<string> = manager.request('name', async (lock) => (lock ? lock.mode : 'none'));

const isLock = (value: unknown): value is Lock => value instanceof (LockClass as unknown as typeof Lock);
const fromNavigator: LockManager = navigator.locks;

const config = defineConfig({ plugins: [webLocks()] });

// The classic scripts' global, with the extras' functions.
const viaGlobal: Promise<number> = WebLocksPolyfill.requestAll(['a'], () => 1);

// The extension: requestAll / queryScopes.
const both: Promise<number> = requestAll(new Set(['a', 'b']), (scope) => (scope ? scope.names.length : 0));
const timed: Promise<string> = requestAll(['a'], { mode: 'shared', timeout: 500, manager: own }, async (scope) => {
  const held: LockScope | null = scope;
  return held ? held.mode : 'none';
});
async function scopes(): Promise<Deadlock[]> {
  const { held, pending }: { held: ScopeInfo[]; pending: ScopeInfo[] } = await queryScopes(navigator.locks);
  return findDeadlocks({ held, pending });
}
// @ts-expect-error: a list of names, not a name (a string is iterable, and refused)
requestAll('a', () => 0);
// @ts-expect-error: the timeout is a number
requestAll(['a'], { timeout: '1s' }, () => 0);
// @ts-expect-error: the scope's names are read-only
requestAll(['a'], (scope) => scope && scope.names.push('b'));

// @ts-expect-error: not an option
install({ forced: true });
// @ts-expect-error: force is for install() only
createLockManager({ force: true });
// @ts-expect-error: the callback is required
manager.request('name');
// @ts-expect-error: may be undefined
const sure: LockManager = install();

export { result, awaited, inspect, isLock, maybe, local, fromNavigator, config, sure, both, timed, scopes, viaGlobal };
