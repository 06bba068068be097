// The package's extension beyond the standard API (docs/extensions.md), from
// the spec's early drafts: a scope — several names granted together — and a timeout. On a
// lock manager of this package a scope is one request to the lock worker, granted atomically;
// on any other (the browser's own) its names are taken one by one in sorted order.

// (The entry 'navigator-locks-polyfill/scopes': the internals it shares with the main entry come
// from there, see js/entries/internals.js.)
import { __internals as internals } from '../entries/internals.js';

const defaultManager = () => globalThis.navigator && navigator.locks;
const timeoutError = (ms) => internals.domException('TimeoutError', `Not granted within ${ms} ms.`);

// sequence<DOMString>: an iterable object (spreading throws the TypeError for any other
// object), each item converted with ToString. The scope is the set of them, sorted by UTF-16
// code units, frozen; it must not be empty.
function toScope(value) {
  if (Object(value) !== value) throw new TypeError('requestAll: names must be an iterable object');
  const names = [...new Set([...value].map(internals.toDOMString))].sort();
  if (!names.length) throw new TypeError('requestAll: no names');
  return Object.freeze(names);
}

// A dictionary inheriting LockOptions: the inherited members read as request() reads them,
// then its own — `manager`, and `timeout`, a double (finite) that must not be negative.
function toScopeOptions(value) {
  const options = internals.toLockOptions(value);
  if (value != null) {
    options.manager = value.manager;
    const timeout = value.timeout;
    if (timeout !== undefined) {
      options.timeout = +timeout;
      if (!(options.timeout >= 0 && options.timeout < Infinity)) {
        throw new TypeError('requestAll: timeout must be finite, 0 or more');
      }
    }
  }
  return options;
}

// requestAll(names, callback) / requestAll(names, options, callback). Promise-returning: every
// failure is a rejection. `options` is named so that requestAll.length is 2, as request's.
export function requestAll(names, options) {
  let stop;
  try {
    const [scope, opts, callback] = internals.readArguments(arguments, 'requestAll', toScope, toScopeOptions);
    const manager = opts.manager === undefined ? defaultManager() : opts.manager;
    const connection = internals.connectionOf(manager);
    if (!connection && !(manager && typeof manager.request === 'function')) {
      throw new TypeError('requestAll: no lock manager');
    }
    internals.checkRequest(connection, scope, opts);
    const lock = Object.freeze({ names: scope, mode: opts.mode });
    // `timeout: 0` tries once: granted if grantable now (as ifAvailable), else TimeoutError
    // (answered at once: no timer, and a signal has nothing to abort).
    const now = opts.timeout === 0;
    if (now) {
      opts.ifAvailable = true;
      opts.timeout = opts.signal = undefined;
    }
    // (With a timeout, the request watches a signal of its own, which the caller's aborts
    // through a listener: unheard where that event is stopped and there is no
    // AbortSignal.any, the caller's aborted signal still gets no callback run, as §4.4 step
    // 14.1 has it for request().)
    const { signal } = opts;
    stop = deadline(opts);
    const run = (held) => {
      stop();
      if (signal && signal.aborted) throw internals.abortReason(signal);
      if (now && !held) throw timeoutError(0);
      return callback(held);
    };
    const promise = connection
      ? internals.sendRequest(connection, { names: scope }, lock, run, opts)
      : nest(manager, scope, opts, lock, run);
    promise.then(stop, stop);
    return promise;
  } catch (error) {
    if (stop) stop(); // (another package's manager threw: no timer or listener left behind)
    return Promise.reject(error);
  }
}

// `timeout` (> 0): the request waits on a signal of its own, aborted with a "TimeoutError" when the
// time is up (or with the reason of the caller's `signal`, if that aborts first), so that it
// leaves every queue as an aborted request does. Returns what stops both (once granted, or
// failed). A timeout beyond setTimeout's 2^31-1 ms (~24.8 days) never fires (Node would
// fire it at once).
function deadline(options) {
  const { signal, timeout } = options;
  if (timeout === undefined) return () => {};
  const controller = new AbortController();
  const abort = (reason) => {
    stop();
    internals.reasons.set(controller.signal, reason);
    controller.abort(reason);
  };
  const follow = () => abort(internals.abortReason(signal));
  const timer = timeout <= 2 ** 31 - 1 && setTimeout(() => abort(timeoutError(timeout)), timeout);
  const unwatch = signal ? internals.addAbortAlgorithm(signal, follow) : () => {};
  const stop = () => {
    clearTimeout(timer);
    unwatch();
  };
  options.signal = controller.signal;
  return stop;
}

// A lock manager not of this package: each name in sorted order, requested in the callback of
// the previous one, so that all are held until the innermost callback settles. Deadlock-free
// among requestAll callers (one order), not atomic (docs/extensions.md "On another lock manager").
function nest(manager, names, { mode, ifAvailable, steal, signal }, lock, run) {
  const none = {};
  const take = (i) =>
    manager.request(names[i], { mode, ifAvailable, steal, signal }, (held) =>
      !held ? none : i + 1 < names.length ? take(i + 1) : run(lock),
    );
  // ifAvailable: what was taken is released before the callback gets null.
  return take(0).then((result) => (result === none ? run(null) : result));
}

// query() by request: { held, pending } of { names, mode, clientId }, a scope being one
// entry across its names. (On a lock manager not of this package, each entry is its own.)
export function queryScopes(manager = defaultManager()) {
  return new Promise((resolve) => resolve(manager.query())).then((snapshot) => {
    const runs = internals.scopeRuns.get(snapshot) || [];
    const group = (list, more = []) => {
      const out = [];
      list.forEach(({ name, mode, clientId }, i) => {
        if (more[i - 1]) out[out.length - 1].names.push(name);
        else out.push({ clientId, mode, names: [name] });
      });
      return out;
    };
    return { held: group(snapshot.held, runs[0]), pending: group(snapshot.pending, runs[1]) };
  });
}
