// The page script of the fixture apps (Vite, webpack, static): the package as users import
// it, and a small T for the tests to drive.
import 'navigator-locks-polyfill/auto';
import { createLockManager } from 'navigator-locks-polyfill';
import { findDeadlocks } from 'navigator-locks-polyfill/deadlocks';
import { queryScopes, requestAll } from 'navigator-locks-polyfill/scopes';

const getter = Object.getOwnPropertyDescriptor(Navigator.prototype, 'locks').get;
let release;
window.T = {
  polyfilled: !getter.toString().includes('[native code]'),
  deadlockFinder: typeof findDeadlocks,
  log: [],
  hold(name) {
    navigator.locks.request(name, () => {
      window.T.log.push(`granted:${name}`);
      return new Promise((r) => (release = r));
    });
  },
  release: () => release(),
  query: () => navigator.locks.query(),
  // The extension's entry recognises the installed manager (one copy of the package): the
  // scope is one entry across its names ('s1,s2'; each name its own with a second copy).
  scope: () =>
    requestAll(['s1', 's2'], () => queryScopes()).then(({ held }) =>
      held.find((entry) => entry.names.includes('s1')).names.join(),
    ),
  // The in-realm lock manager: its service chunk and the wasm, loaded through the bundle.
  local: () => createLockManager({ local: true }).request('local', (lock) => `${lock.name}:${lock.mode}`),
  ready: true,
};
