// The settings of a context's link to the lock worker (js/client/connection.js). (A module of
// its own, importing nothing: esbuild inlines the constants of such a module where they
// are used, which is smaller.)

// The protocol's version (src/protocol.rs), the first of its compatibility contract (a
// message of that version or later is read as this one's), and the lock worker's
// SharedWorker name, which the worker's URL follows (js/worker/worker-entry.js reads it there).
// The name is part of the protocol (docs/protocol.md): a SharedWorker is found by URL and
// name, so every build keeps it as protocol 4 set it, the package's old name.
export const VERSION = 4;
export const OLDEST = 4;
export const WORKER_NAME = 'web-locks-polyfill';
// A port unanswered for this long is given up for a new one; the bound doubles with each
// consecutive failure, up to the maximum.
export const WELCOME_MS = 1000;
// (At most 2 s: a context holding a lock reconnects within a new worker's 3 s wait for
// survivors, recovery.rs, also when it has no other way to learn that the worker failed: a
// dedicated worker, whose port is in its parent's `adopt`.)
export const WELCOME_MAX_MS = 2000;
// After a lock worker failed to start, how long a context waits before constructing the
// next one: Firefox ESR joins a SharedWorker constructed at the failure's error event to
// the failed worker, which never answers, and now and then keeps it so for every later one
// (one constructed a moment later is answered). As long as the first
// wait for a welcome: a context holding a lock still tries a new port every second (fail).
export const SETTLE_MS = WELCOME_MS;
// The URL a lock worker hosted by a tab (a dedicated worker, where SharedWorker is missing:
// js/client/tab-host.js) records as its own: no SharedWorker can be constructed with it (an older
// build, told to, fails loudly rather than serving apart); a context sent there reaches it
// over BroadcastChannel (js/client/broadcast-link.js). Part of the protocol (docs/protocol.md).
export const BROADCAST = 'about:blank#' + WORKER_NAME;
