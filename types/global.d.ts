// 'web-locks-polyfill/global' is a classic script; it exposes the API on globalThis: the main
// entry's, the deadlock detector and the extension (each an entry of its own for modules).
declare global {
  var WebLocksPolyfill: typeof import('./index.js') &
    typeof import('./deadlocks.js') &
    typeof import('./scopes.js');
}
export {};
