// Real DOMExceptions with the spec's names (and TypeErrors for WebIDL conversions).

export function domException(name, message) {
  return new DOMException(message, name);
}

export function abortReason(signal) {
  // Browsers before AbortSignal.reason (Chrome < 98, Firefox < 97, Safari < 15.4).
  return signal.reason !== undefined ? signal.reason : domException('AbortError', 'The operation was aborted.');
}

export const stolenError = () =>
  domException('AbortError', "Lock broken by another request with the 'steal' option.");
