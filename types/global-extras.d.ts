// 'navigator-locks-polyfill/global-extras' is a classic script, loaded after
// 'navigator-locks-polyfill/global': it adds the deadlock detector and the extension (each an entry
// of its own for modules) to globalThis.WebLocksPolyfill.
import './global.js';
type WebLocksPolyfillExtras = typeof import('./deadlocks.js') & typeof import('./scopes.js');
declare global {
  interface WebLocksPolyfill extends WebLocksPolyfillExtras {}
}
export {};
