// Types for 'web-locks-polyfill/deadlocks': the deadlock detector, for diagnostics.
import './index.js';
import type { ScopeInfo } from './scopes.js';

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

/**
 * The deadlocks (cycles of the wait-for graph) in a `navigator.locks.query()` snapshot, or in
 * a `queryScopes()` result (a scope waits on each of its names).
 */
export function findDeadlocks(snapshot: LockManagerSnapshot | { held: ScopeInfo[]; pending: ScopeInfo[] }): Deadlock[];
