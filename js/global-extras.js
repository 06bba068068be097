// The classic script dist/web-locks-extras.global.js, loaded after web-locks.global.js:
// adds the deadlock detector and the extension (docs/extensions.md) to
// globalThis.WebLocksPolyfill. Its scopes reach the lock managers of that script through
// its internals (js/global-internals.js stands for js/internals.js in this build).
import { findDeadlocks } from './deadlocks.js';
import { queryScopes, requestAll } from './scopes.js';

Object.assign(globalThis.WebLocksPolyfill, { findDeadlocks, requestAll, queryScopes });
