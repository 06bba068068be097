// Types for the package's own API. LockManager, Lock, LockOptions and LockManagerSnapshot
// are TypeScript's DOM types (lib "dom"): the polyfill implements exactly those. Where the
// DOM lib is absent (a Node project: lib "es2022", @types/node), the same interfaces are
// declared below; with it, the declarations merge with the DOM's, member for member.

declare global {
  // Merged with the DOM's / @types/node's; empty where neither is present.
  interface AbortSignal {}
  interface URL {}
  interface Lock {
    readonly mode: 'exclusive' | 'shared';
    readonly name: string;
  }
  interface LockInfo {
    clientId?: string;
    mode?: 'exclusive' | 'shared';
    name?: string;
  }
  interface LockManagerSnapshot {
    held?: LockInfo[];
    pending?: LockInfo[];
  }
  interface LockOptions {
    ifAvailable?: boolean;
    mode?: 'exclusive' | 'shared';
    signal?: AbortSignal;
    steal?: boolean;
  }
  // (The callback's type is written out: TypeScript's DOM lib before 5.9 declares a
  // LockGrantedCallback with no type parameter, which a generic one here could not merge
  // with. The promise resolves with what the callback's result resolves to: `Awaited<T>`.)
  interface LockManager {
    query(): Promise<LockManagerSnapshot>;
    request<T>(name: string, callback: (lock: Lock | null) => T): Promise<Awaited<T>>;
    request<T>(name: string, options: LockOptions, callback: (lock: Lock | null) => T): Promise<Awaited<T>>;
  }
}

export interface PolyfillOptions {
  /** Install even where a native `navigator.locks` exists (tests, benchmarks). */
  force?: boolean;
  /**
   * An in-process lock manager: the lock service runs in this realm (no SharedWorker, no
   * IndexedDB) and coordinates only the local lock managers of this realm, never other tabs
   * or workers. For Node, jsdom, happy-dom and test runners; never for cross-tab locking.
   */
  local?: boolean;
  /** URL of `web-locks-worker.js`; default: next to this module. */
  workerUrl?: string | URL;
  /** URL of `web_locks_bg.wasm`; default: next to this module (or the worker, if `workerUrl` is given). */
  wasmUrl?: string | URL;
}

/**
 * Installs `navigator.locks`, `LockManager` and `Lock` where missing (or always with
 * `force`), and returns the `LockManager` in place afterwards. With `local: true` it always
 * installs (creating `navigator` where the runtime has none). Without it, where no lock
 * worker can be reached (no `SharedWorker`, not a dedicated worker: Node, SSR) it installs
 * nothing and returns `navigator.locks` if there is one, else `undefined` (in a browser window
 * it still wraps `Worker`, so that dedicated workers asking it for a lock worker are told
 * there is none).
 */
export function install(options: PolyfillOptions & { local: true }): LockManager;
export function install(options?: PolyfillOptions): LockManager | undefined;

/**
 * A `LockManager` of its own (its own clientId), without touching any global. Without
 * `local`, in a runtime that can reach no lock worker, its `request()` and `query()` reject
 * with a `NotSupportedError` (creating it does not throw).
 */
export function createLockManager(options?: Omit<PolyfillOptions, 'force'>): LockManager;

/** The polyfill's `LockManager` interface object (not constructible, like the native one). */
export declare const LockManager: { readonly prototype: LockManager };

/** The polyfill's `Lock` interface object (not constructible, like the native one). */
export declare const Lock: { readonly prototype: Lock };
