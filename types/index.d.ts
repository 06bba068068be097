// Types for the package's own API. LockManager, Lock, LockOptions and LockManagerSnapshot
// are TypeScript's DOM types (lib "dom"): the polyfill implements exactly those.

export interface PolyfillOptions {
  /** Install even where a native `navigator.locks` exists (tests, benchmarks). */
  force?: boolean;
  /** URL of `web-locks-worker.js`; default: next to this module. */
  workerUrl?: string | URL;
  /** URL of `web_locks_bg.wasm`; default: next to this module (or the worker, if `workerUrl` is given). */
  wasmUrl?: string | URL;
}

/**
 * Installs `navigator.locks`, `LockManager` and `Lock` where missing (or always with
 * `force`), and returns the `LockManager` in place afterwards.
 */
export function install(options?: PolyfillOptions): LockManager;

/** A `LockManager` of its own (its own clientId), without touching any global. */
export function createLockManager(options?: Omit<PolyfillOptions, 'force'>): LockManager;

/** The polyfill's `LockManager` interface object (not constructible, like the native one). */
export declare const LockManager: { readonly prototype: LockManager };

/** The polyfill's `Lock` interface object (not constructible, like the native one). */
export declare const Lock: { readonly prototype: Lock };

export interface DeadlockWait {
  /** The waiting client's clientId. */
  client: string;
  /** The clientId it waits for (a holder, or an earlier request in the queue). */
  waitsFor: string;
  /** The lock name it waits on. */
  name: string;
}

export interface Deadlock {
  /** The clientIds caught in the cycle. */
  clients: string[];
  waits: DeadlockWait[];
}

/** The deadlocks (cycles of the wait-for graph) in a `navigator.locks.query()` snapshot. */
export function findDeadlocks(snapshot: LockManagerSnapshot): Deadlock[];
