// In dist/web-locks-extras.global.js, what js/entries/internals.js is elsewhere: the internals of the
// lock managers of web-locks.global.js, which must have run before (the same WeakMaps, so
// that the extension recognises that script's managers).
const polyfill = globalThis.WebLocksPolyfill;
if (!polyfill || !polyfill.__internals) {
  throw new Error('web-locks-extras.global.js: load web-locks.global.js before it');
}
export const __internals = polyfill.__internals;
