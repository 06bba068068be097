// Importing 'navigator-locks-polyfill/local' installs an in-process navigator.locks where missing
// (creating `navigator` where the runtime has none); it coordinates this realm only. (Typed
// access without the DOM lib: `install({ local: true })` returns the LockManager in place.)
import './index.js';

export {};
