// Types for 'navigator-locks-polyfill/scopes': the non-standard extension (README "Extensions"),
// scopes and timeouts.
import './index.js';

/** What a `requestAll` callback gets: the scope it holds (frozen). */
export interface LockScope {
  /** The distinct names, sorted by UTF-16 code units (frozen). */
  readonly names: readonly string[];
  readonly mode: 'exclusive' | 'shared';
}

export interface RequestAllOptions extends LockOptions {
  /**
   * Milliseconds (finite, ≥ 0): not granted within it, the request leaves every queue and
   * rejects with a "TimeoutError" DOMException. Not with `steal` or `ifAvailable`.
   */
  timeout?: number;
  /**
   * The lock manager (default `navigator.locks`). One of this package's (installed, or from
   * `createLockManager()`): the scope is granted atomically. Any other (the browser's own):
   * the names are taken one by one in sorted order, not atomically.
   */
  manager?: LockManager;
}

/**
 * Requests every name of `names` at once: the callback runs with `{ names, mode }` once all
 * are granted (or with `null` for `ifAvailable` when not all are available), and they are
 * held until its promise settles; the result settles with it.
 */
export function requestAll<T>(names: Iterable<string> & object, callback: (scope: LockScope | null) => T): Promise<Awaited<T>>;
export function requestAll<T>(
  names: Iterable<string> & object,
  options: RequestAllOptions,
  callback: (scope: LockScope | null) => T,
): Promise<Awaited<T>>;

/** One request in a `queryScopes()` result: a scope is one entry across its names. */
export interface ScopeInfo {
  names: string[];
  mode: 'exclusive' | 'shared';
  clientId: string;
}

/**
 * `manager.query()` (default `navigator.locks`) grouped by request. On a lock manager not of
 * this package every entry is its own request.
 */
export function queryScopes(manager?: LockManager): Promise<{ held: ScopeInfo[]; pending: ScopeInfo[] }>;
