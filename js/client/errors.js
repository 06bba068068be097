// Real DOMExceptions with the spec's names (and TypeErrors for WebIDL conversions).

// Captured now: in a detached iframe, global lookups of DOMException fail later. (A runtime
// without DOMException, e.g. a bare `vm` context, gets Errors with the same names: importing
// never throws.)
const DOMExceptionCtor =
  typeof DOMException === 'function'
    ? DOMException
    : function DOMException(message, name) {
        const error = new Error(message);
        error.name = name;
        return error;
      };

// This package's own errors, not a signal's reason nor what a caller's code threw: a lock
// manager of another realm (a frame's: js/client/realms.js) reports them made again with that
// realm's constructors (remake).
const ours = new WeakMap(); // error -> the name of its constructor
const own = (error, kind) => (ours.set(error, kind), error);

export function domException(name, message) {
  return own(new DOMExceptionCtor(message, name), 'DOMException');
}

export const typeError = (message) => own(new TypeError(message), 'TypeError');

// `error` as the lock manager of realm `R` (js/client/lock-manager.js realmOf) reports it: one of
// ours of another realm made again with R's constructors, any other as it is.
export const remake = (error, R, kind = ours.get(error)) =>
  kind && !(error instanceof R.Error) ? new R[kind](error.message, error.name) : error;

// Reasons of the signals this package aborts itself (js/extensions/scopes.js: `timeout`), for browsers
// before AbortSignal.reason (Chrome < 98, Firefox < 97, Safari < 15.4), which drop it.
export const reasons = new WeakMap();

export function abortReason(signal) {
  return signal.reason !== undefined
    ? signal.reason
    : reasons.get(signal) || domException('AbortError', 'The operation was aborted.');
}

// Adds `algorithm` to `signal`'s abort algorithms (DOM "add" an abort algorithm) as closely
// as script can: it runs once the signal is aborted, not at an `abort` event dispatched by
// script, and whatever the signal's own listeners do. It listens on the signal (its
// listeners added earlier run first: an algorithm would run before them) and, where there is
// AbortSignal.any, on a signal depending on it, whose event no listener of the signal can
// stop. `algorithm` may run twice: it ignores its second run. Returns what removes it.
export function addAbortAlgorithm(signal, algorithm) {
  const run = () => signal.aborted && algorithm();
  const targets = AbortSignal.any ? [signal, AbortSignal.any([signal])] : [signal];
  for (const target of targets) target.addEventListener('abort', run);
  return () => {
    for (const target of targets) target.removeEventListener('abort', run);
  };
}

export const stolenError = () =>
  domException('AbortError', "Lock broken by another request with the 'steal' option.");
