// A tiny app bundled by Vite from the packed package, as users install it.
import 'web-locks-polyfill/auto';
import { findDeadlocks } from 'web-locks-polyfill';

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
  ready: true,
};
