// Shared and service workers cannot construct a SharedWorker, and have no parent to ask as a
// dedicated worker does: they reach the lock worker through a window of their origin. They
// make a MessageChannel, keep one end, and hand the other to a window (the courier), whose
// polyfill passes it on to the lock worker (`adopt`). From then on the port links the worker
// and the lock worker directly: the courier may go away without breaking it.
//
// - A shared worker asks through the ports of the pages that connected to it (its `connect`
//   events), newest first; the page's polyfill (its wrapped SharedWorker) answers.
// - A service worker asks one of its origin's windows (`clients.matchAll`, controlled or
//   not); the window's polyfill answers from `navigator.serviceWorker`'s message event.
//   With no window open, the offer waits (looked for again every POLL_MS) until one is: the
//   context's requests wait meanwhile (README "Contexts and lifecycle").
//
// Each new offer replaces an undelivered older one, and turns to the next courier: the
// connection offers again when its port went unanswered (the welcome watchdog), which is
// what a dead or unpolyfilled courier looks like.

const POLL_MS = 250;
const MAX_PAGES = 32;

export function inSharedWorker() {
  return typeof SharedWorkerGlobalScope === 'function' && self instanceof SharedWorkerGlobalScope;
}

export function inServiceWorker() {
  return typeof ServiceWorkerGlobalScope === 'function' && self instanceof ServiceWorkerGlobalScope;
}

// The ports of the pages connected to this shared worker, newest first. Recorded from the
// start: the polyfill must be loaded by the worker's script before its first `connect`.
const pages = [];
let offer = null; // { port, message }: an undelivered offer
let turn = 0; // how many offers were made: which courier is next
if (inSharedWorker()) {
  self.addEventListener('connect', (event) => {
    pages.unshift(event.ports[0]);
    if (pages.length > MAX_PAGES) pages.pop();
    if (offer) deliver();
  });
}

// Offers `port` (with `message`, which says what it is) to a courier as soon as there is one.
export function offerPort(port, message) {
  offer = { port, message };
  turn++;
  deliver();
}

function deliver() {
  const current = offer;
  if (inSharedWorker()) {
    if (!pages.length) return; // sent at the next connect
    offer = null;
    pages[(turn - 1) % pages.length].postMessage(current.message, [current.port]);
  } else if (inServiceWorker()) {
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then(
      (windows) => {
        if (offer !== current) return; // replaced meanwhile
        if (!windows.length) {
          setTimeout(() => offer === current && deliver(), POLL_MS);
          return;
        }
        offer = null;
        windows[(turn - 1) % windows.length].postMessage(current.message, [current.port]);
      },
      () => setTimeout(() => offer === current && deliver(), POLL_MS),
    );
  }
}
