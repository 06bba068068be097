// LockManager and Lock as the spec's WebIDL shapes them (§3.2, §3.3), driving a Connection.

import { abortReason, domException, stolenError } from './errors.js';
import { shapeInterface, toCallback, toDOMString, toLockOptions } from './webidl.js';

const CONSTRUCT = Symbol('construct');
const locks = new WeakMap(); // Lock -> { name, mode }
const managers = new WeakMap(); // LockManager -> Connection

const illegal = () => new TypeError('Illegal constructor');

// §3.2.1 step 3 / §3.2.2 step 2: a detached iframe's document is not fully active.
function checkFullyActive() {
  if (typeof document !== 'undefined' && document.defaultView === null) {
    throw domException('InvalidStateError', 'The document is not fully active.');
  }
}
const illegalInvocation = () => new TypeError('Illegal invocation');
const lostError = () =>
  domException('AbortError', 'The lock was released: the page entered the back/forward cache.');

export class Lock {
  constructor(token, name, mode) {
    if (token !== CONSTRUCT) throw illegal();
    locks.set(this, { name, mode });
  }

  get name() {
    const lock = locks.get(this);
    if (!lock) throw illegalInvocation();
    return lock.name;
  }

  get mode() {
    const lock = locks.get(this);
    if (!lock) throw illegalInvocation();
    return lock.mode;
  }
}
shapeInterface(Lock, 'Lock', ['name', 'mode']);

export class LockManager {
  constructor(token, connection) {
    if (token !== CONSTRUCT) throw illegal();
    managers.set(this, connection);
  }

  // §3.2.1. Promise-returning: every failure, conversions included, is a rejection.
  // `options` is named so that request.length is 2, as WebIDL computes it.
  request(name, options) {
    try {
      return requestLock(this, arguments);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  // §3.2.2
  query() {
    const connection = managers.get(this);
    if (!connection) return Promise.reject(illegalInvocation());
    try {
      checkFullyActive();
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      const id = connection.newId();
      connection.send(id, { type: 'query', id }, {
        snapshot(message) {
          connection.done(id);
          resolve(expandSnapshot(message));
        },
        error(error) {
          connection.done(id);
          reject(error);
        },
        redeclare: () => ({ type: 'query', id }),
        lost: () => reject(lostError()),
      });
    });
  }
}
shapeInterface(LockManager, 'LockManager', ['request', 'query']);

// A `snapshot` message (src/protocol.rs) as §3.3 LockManagerSnapshot: its names are one
// string, cut by the lengths in `held` and `pending` (name length, client index × 2 + shared).
function expandSnapshot({ names, clientIds, held, pending }) {
  let offset = 0;
  const infos = (codes) => {
    const list = [];
    for (let i = 0; i < codes.length; i += 2) {
      const end = offset + codes[i];
      list.push({
        name: names.slice(offset, end),
        mode: codes[i + 1] & 1 ? 'shared' : 'exclusive',
        clientId: clientIds[codes[i + 1] >>> 1],
      });
      offset = end;
    }
    return list;
  };
  const heldInfos = infos(held);
  return { held: heldInfos, pending: infos(pending) };
}

export function newLockManager(connection) {
  return new LockManager(CONSTRUCT, connection);
}

function requestLock(manager, args) {
  const connection = managers.get(manager);
  if (!connection) throw illegalInvocation();
  if (args.length < 2) {
    throw new TypeError(`Failed to execute 'request' on 'LockManager': 2 arguments required, but only ${args.length} present.`);
  }
  // WebIDL overload resolution by argument count, then conversions in argument order.
  const name = toDOMString(args[0]);
  const options = args.length === 2 ? toLockOptions(undefined) : toLockOptions(args[1]);
  const callback = toCallback(args.length === 2 ? args[1] : args[2]);
  const { mode, ifAvailable, steal, signal } = options;

  // Step 3. (Step 4's SecurityError for an opaque origin comes from the SharedWorker
  // constructor, which throws it when the request is sent.)
  checkFullyActive();
  // Step 5: reserved names.
  if (name.startsWith('-')) {
    throw domException('NotSupportedError', "Names cannot start with '-'.");
  }
  // Step 6.
  if (steal && ifAvailable) {
    throw domException('NotSupportedError', "The 'steal' and 'ifAvailable' options cannot be used together.");
  }
  // Step 7.
  if (steal && mode !== 'exclusive') {
    throw domException('NotSupportedError', "The 'steal' option may only be used with 'exclusive' locks.");
  }
  // Step 8.
  if (signal && (steal || ifAvailable)) {
    throw domException('NotSupportedError', "The 'signal' option cannot be used with 'steal' or 'ifAvailable'.");
  }
  // Step 9.
  if (signal && signal.aborted) return Promise.reject(abortReason(signal));

  // Steps 10–12 and §4.1.
  return new Promise((resolve, reject) => {
    const id = connection.newId();
    let state = 'pending'; // → 'held' | 'aborted' | 'stolen' | 'done'
    const invoke = (lock) => {
      // Invoking a callback whose return type is Promise<any>: throws become rejections.
      try {
        return Promise.resolve(callback.call(undefined, lock));
      } catch (error) {
        return Promise.reject(error);
      }
    };
    // §4.1 step 2 / §4.3 "signal to abort the request". The request is forgotten here: the
    // worker drops it, or releases it if it was granted meanwhile, and a grant already on
    // its way finds no handler and is given back (connection.js).
    const onAbort = () => {
      if (state !== 'pending') return;
      state = 'aborted';
      connection.done(id);
      connection.post({ type: 'abort', id });
      reject(abortReason(signal));
    };
    const message = { type: 'request', id, name, mode, ifAvailable, steal };
    connection.send(id, message, {
      // §4.4 step 2.14. (A second grant of the same request, possible when a replaced port's
      // request was re-sent, is ignored; step 2.14.1.1, a grant after the abort, is
      // connection.js's.)
      granted() {
        if (state !== 'pending') return;
        if (signal) signal.removeEventListener('abort', onAbort);
        state = 'held';
        const waiting = invoke(new Lock(CONSTRUCT, name, mode));
        // §2.4: when the waiting promise settles, release, then resolve with it.
        const settle = () => {
          if (state === 'held') {
            state = 'done';
            connection.done(id);
            connection.post({ type: 'release', id });
          }
          resolve(waiting);
        };
        waiting.then(settle, settle);
      },
      // §4.1 step 3.5.1.
      notAvailable() {
        connection.done(id);
        state = 'done';
        resolve(invoke(null));
      },
      // §4.1 step 3.4.1.1.2.
      stolen() {
        connection.done(id);
        state = 'stolen';
        reject(stolenError());
      },
      error(error) {
        connection.done(id);
        if (signal) signal.removeEventListener('abort', onAbort);
        state = 'done';
        reject(error);
      },
      // The worker restarted: say again what this request is (recovery.rs).
      redeclare() {
        return state === 'held' ? { type: 'reclaim', id, name, mode } : message;
      },
      // The page entered the back/forward cache: its requests and locks are gone.
      lost() {
        if (state !== 'pending' && state !== 'held') return;
        if (signal) signal.removeEventListener('abort', onAbort);
        state = 'stolen';
        reject(lostError());
      },
    });
    // Listening only once the request is sent: a send that throws leaves no listener.
    if (signal) signal.addEventListener('abort', onAbort);
  });
}
