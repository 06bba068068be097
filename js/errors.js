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

export function domException(name, message) {
  return new DOMExceptionCtor(message, name);
}

// Reasons of the signals this package aborts itself (js/scopes.js: `timeout`), for browsers
// before AbortSignal.reason (Chrome < 98, Firefox < 97, Safari < 15.4), which drop it.
export const reasons = new WeakMap();

export function abortReason(signal) {
  return signal.reason !== undefined
    ? signal.reason
    : reasons.get(signal) || domException('AbortError', 'The operation was aborted.');
}

export const stolenError = () =>
  domException('AbortError', "Lock broken by another request with the 'steal' option.");
