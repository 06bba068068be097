// The page script of the fixture apps (Vite, webpack, static): the package as users import
// it, and a small T for the tests to drive.
import 'web-locks-polyfill/auto';
import { createLockManager } from 'web-locks-polyfill';
import { findDeadlocks } from 'web-locks-polyfill/deadlocks';

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
  // The in-realm lock manager: its service chunk and the wasm, loaded through the bundle.
  local: () => createLockManager({ local: true }).request('local', (lock) => `${lock.name}:${lock.mode}`),
  ready: true,
};
