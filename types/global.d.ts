// 'web-locks-polyfill/global' is a classic script; it exposes the API on globalThis.
declare global {
  var WebLocksPolyfill: typeof import('./index.js');
}
export {};
