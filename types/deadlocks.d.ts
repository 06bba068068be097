// Types for 'navigator-locks-polyfill/deadlocks': the deadlock detector, for diagnostics.
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
 * The possible deadlocks (cycles of the wait-for graph between clients) in a
 * `navigator.locks.query()` snapshot, or in a `queryScopes()` result (a scope waits on each of
 * its names). A cycle is a deadlock when each holder's callback awaits its client's waiting
 * request; a snapshot cannot tell, as a client is a whole context.
 */
export function findDeadlocks(snapshot: LockManagerSnapshot | { held: ScopeInfo[]; pending: ScopeInfo[] }): Deadlock[];
