// The classic script dist/web-locks-extras.global.js, loaded after web-locks.global.js:
// adds the deadlock detector and the extension (docs/extensions.md) to
// globalThis.WebLocksPolyfill. Its scopes reach the lock managers of that script through
// its internals (js/entries/global-internals.js stands for js/entries/internals.js in this build).
import { findDeadlocks } from '../extensions/deadlocks.js';
import { queryScopes, requestAll } from '../extensions/scopes.js';

Object.assign(globalThis.WebLocksPolyfill, { findDeadlocks, requestAll, queryScopes });
