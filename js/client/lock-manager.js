// LockManager and Lock as the spec's WebIDL shapes them (§3.2, §3.3), driving a Connection.

import { abortReason, addAbortAlgorithm, domException, remake, stolenError, typeError } from './errors.js';
import { shapeInterface, toCallback, toDOMString, toLockOptions } from './webidl.js';

const CONSTRUCT = Symbol('construct');
const locks = new WeakMap(); // Lock -> { name, mode }
const managers = new WeakMap(); // LockManager -> Connection

// §3.2.1 steps 3–4 / §3.2.2 steps 2–3: a detached iframe's document is not fully active;
// an opaque origin has no storage bottle, so no lock manager to obtain. (The in-realm
// service's, a manager of this realm only, `hub`, is the package's to give.) Also checked
// before connecting at install: an opaque origin never connects (its dedicated workers would
// have it try, and throw, every 2 s).
// (A frame's connection knows its document: js/client/realms.js. None: js/extensions/scopes.js over native
// locks, this realm's document.)
export function checkManager(connection) {
  if (left((connection && connection.doc_) || globalThis.document)) {
    throw domException('InvalidStateError', 'The document is not fully active.');
  }
  if (connection && !connection.hub_ && globalThis.origin === 'null') {
    throw domException('SecurityError', 'An opaque origin has no lock manager.');
  }
}
// Whether `doc` (if any) is no longer its window's: a removed frame's has none; Firefox keeps
// a left one's defaultView, the window, another's document now.
export const left = (doc) => doc && (!doc.defaultView || doc.defaultView.document != doc);

const lostError = () =>
  domException('AbortError', 'Lock lost: this context was taken for gone.');

// LockManager and Lock of the realm of `global` (this one, or a window the page reached:
// js/client/realms.js), and what its lock managers hand out: WebIDL makes their promises, errors,
// Lock and snapshot objects in the lock manager's relevant realm. Each realm has interfaces
// of its own, of one implementation. (Read now: a detached window's globals may be gone
// later, and a window its frame has left is another's by the frame's WindowProxy.)
export function realmOf(global) {
  const { Promise, TypeError, DOMException, Error, JSON } = global;
  const R = { Promise, TypeError, DOMException, Error, JSON };
  const illegal = () => new TypeError('Illegal constructor');
  // What `map` keeps for `object`, which must be of its interface (WebIDL's brand check).
  const slotsOf = (map, object) => {
    const slots = map.get(object);
    if (!slots) throw new TypeError('Illegal invocation');
    return slots;
  };

  // (Constructors take their arguments as a rest parameter: the interface objects' length is
  // 0, as WebIDL's for an interface without a constructor.)
  class Lock {
    constructor(...[token, name, mode]) {
      if (token !== CONSTRUCT) throw illegal();
      locks.set(this, { name, mode });
    }

    get name() {
      return slotsOf(locks, this).name;
    }

    get mode() {
      return slotsOf(locks, this).mode;
    }
  }

  class LockManager {
    constructor(...[token, connection]) {
      if (token !== CONSTRUCT) throw illegal();
      managers.set(this, connection);
    }

    // §3.2.1. Promise-returning: every failure, conversions included, is a rejection.
    // `options` is named so that request.length is 2, as WebIDL computes it.
    request(name, options) {
      try {
        const connection = slotsOf(managers, this);
        const [lockName, lockOptions, callback] = readArguments(arguments, "request' on 'LockManager", toDOMString, toLockOptions);
        checkRequest(connection, [lockName], lockOptions);
        const lock = new Lock(CONSTRUCT, lockName, lockOptions.mode);
        return sendRequest(connection, { name: lockName }, lock, callback, lockOptions, R);
      } catch (error) {
        return Promise.reject(remake(error, R));
      }
    }

    // §3.2.2
    query() {
      let connection;
      try {
        connection = slotsOf(managers, this);
        checkManager(connection);
      } catch (error) {
        return Promise.reject(remake(error, R));
      }
      return promiseIn(R, connection, (resolve, reject) => {
        const id = connection.newId_();
        // (`t`: as a request's, below.)
        const message = { type: 'query', id, t: Date.now() };
        connection.send_(id, message, {
          snapshot(message) {
            connection.done_(id);
            resolve(expandSnapshot(message, JSON));
          },
          error(error) {
            connection.done_(id);
            reject(error);
          },
          redeclare_: () => message,
          // (A query changes nothing: kept when the locks are lost, and sent again.)
          lost_() {},
        });
      });
    }
  }
  shapeInterface(Lock, 'Lock', ['name', 'mode'], global);
  shapeInterface(LockManager, 'LockManager', ['request', 'query'], global);
  R.Lock = Lock;
  R.LockManager = LockManager;
  return R;
}
// This realm's.
export const home = realmOf(globalThis);
export const { Lock, LockManager } = home;

// A new promise of realm `R` (realmOf) for what is asked of `connection`, settled only while
// the connection's document lives: natively a gone document's realm runs nothing more, so
// what it waited for never settles and nothing surfaces anywhere (the lock worker releases
// its locks as it sees the document's database close). Its rejections are R's errors, one
// that `executor` throws too.
function promiseIn(R, connection, executor) {
  return new R.Promise((resolve, reject) => {
    const fail = (error) => connection.gone_() || reject(remake(error, R));
    try {
      executor((value) => connection.gone_() || resolve(value), fail);
    } catch (error) {
      fail(error);
    }
  });
}

// A `snapshot` message (src/protocol.rs) as §3.3 LockManagerSnapshot: its names are one
// string, cut by the lengths in `held` and `pending`, each followed by a code:
// client index << 2 | more << 1 | shared, where `more` says that the next entry of the
// list belongs to the same request (a scope: one entry per name). Which entries go
// together is kept out of the standard objects, in `scopeRuns` (js/extensions/scopes.js reads it).
export const scopeRuns = new WeakMap(); // snapshot -> [held, pending]: per entry, `more`
// (Made in the lock manager's realm by its `json`: objects and arrays of that realm. In this
// realm they are used as they are: the copy would double what `query()` costs.)
function expandSnapshot({ names, clientIds, held, pending }, json) {
  let offset = 0;
  const runs = [];
  const infos = (codes) => {
    const list = [];
    const more = [];
    for (let i = 0; i < codes.length; i += 2) {
      const end = offset + codes[i];
      const code = codes[i + 1];
      // (A dictionary's members in lexicographic order, as WebIDL converts one.)
      list.push({
        clientId: clientIds[code >>> 2],
        mode: code & 1 ? 'shared' : 'exclusive',
        name: names.slice(offset, end),
      });
      more.push(code & 2);
      offset = end;
    }
    runs.push(more);
    return list;
  };
  const heldInfos = infos(held);
  let snapshot = { held: heldInfos, pending: infos(pending) };
  if (json != JSON) snapshot = json.parse(JSON.stringify(snapshot));
  scopeRuns.set(snapshot, runs);
  return snapshot;
}

// A lock manager of realm `R` (realmOf) for `connection`.
export function newLockManager(connection, R = home) {
  return new R.LockManager(CONSTRUCT, connection);
}

// This package's connection behind `manager`, if it is one of ours.
export const connectionOf = (manager) => managers.get(manager);

// WebIDL overload resolution by argument count — (first, callback) or (first, options,
// callback) — then the conversions in argument order.
export function readArguments(args, method, toFirst, toOptions) {
  if (args.length < 2) {
    throw typeError(`Failed to execute '${method}': 2 arguments required, but only ${args.length} present.`);
  }
  return [toFirst(args[0]), toOptions(args.length === 2 ? undefined : args[1]), toCallback(args[args.length === 2 ? 1 : 2])];
}

// §3.2.1 steps 3–9 for a request of `names` (one, or a scope's) on `connection` (none: a
// lock manager not of this package, which checks steps 3–4 itself), and the extension's
// `timeout` check. Every failure is thrown.
export function checkRequest(connection, names, { mode, ifAvailable, steal, signal, timeout }) {
  // Steps 3–4.
  checkManager(connection);
  // Step 5: reserved names.
  if (names.some((name) => name.startsWith('-'))) {
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
  // The extension's (docs/extensions.md): a timeout only for a request that may wait.
  if (timeout !== undefined && (steal || ifAvailable)) {
    throw domException('NotSupportedError', "'timeout' with 'steal' or 'ifAvailable'.");
  }
  // Step 9.
  if (signal && signal.aborted) throw abortReason(signal);
}

// Steps 10–12 and §4.1 on `connection`: `target` names what is requested as the protocol
// does ({ name }, or { names } for a scope), `lock` is what the callback gets once granted;
// the promise is of realm `R` (realmOf).
export function sendRequest(connection, target, lock, callback, { mode, ifAvailable, steal, signal }, R = home) {
  return promiseIn(R, connection, (resolve, reject) => {
    const id = connection.newId_();
    let state = 'pending'; // → 'held' | 'aborted' | 'stolen' | 'done'
    // Invoking a callback whose return type is Promise<any> (WebIDL): called as is (no
    // lookup of its `call`), its result resolves a new promise, a throw rejects it.
    const invoke = (lock) => new Promise((settle) => settle(Reflect.apply(callback, undefined, [lock])));
    // Every answer ends the wait: no more listening to the signal.
    let unwatch;
    const end = (next) => {
      state = next;
      if (unwatch) unwatch();
    };
    // §4.1 step 2 / §4.3 "signal to abort the request". The request is forgotten here: the
    // worker drops it, or releases it if it was granted meanwhile, and a grant already on
    // its way finds no handler and is given back (connection.js).
    // (Settled before anything is posted: a post can throw, when reconnecting fails.)
    const onAbort = () => {
      if (state !== 'pending') return;
      end('aborted');
      connection.done_(id);
      reject(abortReason(signal));
      connection.post_({ type: 'abort', id });
    };
    // (`t`: when it was made; re-declared as it is, so that a new lock worker queues the
    // requests and queries of several contexts again in that order: recovery.rs.)
    const message = { type: 'request', id, ...target, mode, ifAvailable, steal, t: Date.now() };
    connection.send_(id, message, {
      // §4.4 step 2.14. (A second grant of the same request, possible when a replaced port's
      // request was re-sent, is ignored; step 2.14.1.1, a grant after the abort, is
      // connection.js's.)
      granted() {
        if (state !== 'pending') return;
        // §4.4 step 14.1: a signal aborted meanwhile (unheard: a browser without
        // AbortSignal.any, whose listener stopped the event) gets no callback run.
        if (signal && signal.aborted) return onAbort();
        end('held');
        const waiting = invoke(lock);
        // §2.4: when the waiting promise settles, release, then resolve with it. (Resolved
        // first here, as no reaction runs before the release has gone out: a post can throw.)
        const settle = () => {
          resolve(waiting);
          if (state === 'held') {
            state = 'done';
            connection.done_(id);
            connection.post_({ type: 'release', id });
          }
        };
        waiting.then(settle, settle);
      },
      // §4.1 step 3.5.1.
      notAvailable() {
        connection.done_(id);
        end('done');
        resolve(invoke(null));
      },
      // §4.1 step 3.4.1.1.2.
      stolen() {
        connection.done_(id);
        end('stolen');
        reject(stolenError());
      },
      // (`failed`: the lock worker cannot load, connection.js; a held lock is kept.)
      error(error, failed) {
        if (failed && state === 'held') return;
        connection.done_(id);
        end('done');
        reject(error);
      },
      // The worker restarted: say again what this request is (recovery.rs).
      redeclare_() {
        return state === 'held' ? { type: 'reclaim', id, ...target, mode } : message;
      },
      // The page entered the back/forward cache: its requests and locks are gone. Or
      // (`evicted`) the worker took this context for gone: its locks are gone (another
      // context may have held them since), its requests are sent again.
      lost_(evicted) {
        if (state !== 'held' && (evicted || state !== 'pending')) return;
        connection.done_(id);
        end('stolen');
        reject(lostError());
      },
    });
    // Listening only once the request is sent: a send that throws leaves no listener.
    if (signal) unwatch = addAbortAlgorithm(signal, onAbort);
  });
}
