// A DOM implementation's window as this Node realm's globals, the way DOM test environments
// (Vitest's, global-jsdom, happy-dom's GlobalRegistrator) expose one: what a page's script
// would see, over Node's own globals.
const KEYS = [
  'document',
  'navigator',
  'Navigator',
  'location',
  'DOMException',
  'AbortController',
  'AbortSignal',
  'Event',
  'EventTarget',
  'MessageEvent',
  'MessagePort',
];

export function exposeWindow(window) {
  for (const key of KEYS) {
    if (window[key] === undefined) continue;
    Object.defineProperty(globalThis, key, { value: window[key], writable: true, configurable: true });
  }
  for (const key of ['addEventListener', 'removeEventListener', 'dispatchEvent']) {
    globalThis[key] = window[key].bind(window);
  }
  globalThis.window = globalThis;
}
