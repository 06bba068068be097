// 'navigator-locks-polyfill/global' is a classic script; it exposes the main entry's API on
// globalThis. 'navigator-locks-polyfill/global-extras' (types/global-extras.d.ts), loaded after it,
// adds the deadlock detector and the extension.
type WebLocksPolyfillApi = typeof import('./index.js');
declare global {
  interface WebLocksPolyfill extends WebLocksPolyfillApi {}
  var WebLocksPolyfill: WebLocksPolyfill;
}
export {};
