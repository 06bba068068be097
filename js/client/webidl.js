// WebIDL conversions for LockManager.request() (https://webidl.spec.whatwg.org/).

import { typeError } from './errors.js';

const MODES = ['exclusive', 'shared'];
// Captured now: a detached iframe's global may have lost it by the time it is called, as
// errors.js says of DOMException.
const Signal = globalThis.AbortSignal;

// DOMString: ToString, which throws a TypeError for symbols.
export function toDOMString(value) {
  return `${value}`;
}

// dictionary LockOptions { LockMode mode = "exclusive"; boolean ifAvailable = false;
//   boolean steal = false; AbortSignal signal; } — members read in lexicographic order.
export function toLockOptions(value) {
  if (value !== undefined && value !== null && typeof value !== 'object' && typeof value !== 'function') {
    throw typeError("Failed to execute 'request' on 'LockManager': The provided value is not of type 'LockOptions'.");
  }
  const options = { mode: 'exclusive', ifAvailable: false, steal: false, signal: undefined };
  if (value === undefined || value === null) return options;
  const ifAvailable = value.ifAvailable;
  if (ifAvailable !== undefined) options.ifAvailable = !!ifAvailable;
  const mode = value.mode;
  if (mode !== undefined) {
    const text = toDOMString(mode);
    if (!MODES.includes(text)) {
      throw typeError(`Failed to execute 'request' on 'LockManager': The provided value '${text}' is not a valid enum value of type LockMode.`);
    }
    options.mode = text;
  }
  const signal = value.signal;
  if (signal !== undefined) {
    if (!branded(signal, () => Signal.prototype, 'aborted')) {
      throw typeError("Failed to execute 'request' on 'LockManager': Failed to read the 'signal' property from 'LockOptions': Failed to convert value to 'AbortSignal'.");
    }
    options.signal = signal;
  }
  const steal = value.steal;
  if (steal !== undefined) options.steal = !!steal;
  return options;
}

// Whether `value` is a platform object implementing the interface of prototype `proto()`,
// of any realm (`instanceof` would look at this realm's prototype chain): its native getter
// `name` (found along the prototype chain: a DOM emulation may define it on a base class)
// brand-checks its receiver, throwing for any other. (An emulation's getter may check
// nothing: it gives undefined then.)
export function branded(value, proto, name) {
  try {
    return proto().__lookupGetter__(name).call(value) !== undefined;
  } catch {
    return false;
  }
}

// callback LockGrantedCallback: any callable.
export function toCallback(value) {
  if (typeof value !== 'function') {
    throw typeError("Failed to execute 'request' on 'LockManager': The callback provided as parameter is not a function.");
  }
  return value;
}

// Makes accessors and methods enumerable, as WebIDL defines them, and adds the
// toStringTag; `names` are the prototype's own members to adjust. The interface object is
// named `tag` whatever a minifier called the class (its length is 0: see js/client/lock-manager.js).
// Both inherit from the Function and Object prototypes of `global`, the interfaces' realm
// (a frame's are made here: js/client/lock-manager.js realmOf).
export function shapeInterface(cls, tag, names, global) {
  Object.setPrototypeOf(cls, global.Function.prototype);
  Object.setPrototypeOf(cls.prototype, global.Object.prototype);
  Object.defineProperty(cls, 'name', { value: tag, configurable: true });
  for (const name of names) {
    const desc = Object.getOwnPropertyDescriptor(cls.prototype, name);
    desc.enumerable = true;
    Object.defineProperty(cls.prototype, name, desc);
  }
  Object.defineProperty(cls.prototype, Symbol.toStringTag, { value: tag, configurable: true });
}
