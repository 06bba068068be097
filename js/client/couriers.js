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
//   context's requests wait meanwhile (docs/lifecycle.md "Contexts and lifecycle").
//
// Each new offer replaces an undelivered older one, and goes to the courier asked least
// recently: the connection offers again when its port went unanswered (the welcome
// watchdog, started when the offer is delivered), which is what a dead, busy or
// unpolyfilled courier looks like — or a page whose polyfill was not listening yet. The
// offer replaced is taken for delivered (a second lock manager of this realm: its watchdog
// offers it again).

const POLL_MS = 250;
const MAX_PAGES = 32;
// A worker asks for a link (its parent, or a courier) with a message carrying this key, and
// the port to hand on: `{ [CONNECT]: 1 }`, and from a dedicated worker also `child`, the
// clientId of the dedicated worker whose port it is (its own, or a worker's of its own, handed
// up to the page, whose goodbye names it: js/client/connection.js).
export const CONNECT = '__webLocksPolyfillConnect';

export function inSharedWorker() {
  return typeof SharedWorkerGlobalScope === 'function' && self instanceof SharedWorkerGlobalScope;
}

export function inServiceWorker() {
  return typeof ServiceWorkerGlobalScope === 'function' && self instanceof ServiceWorkerGlobalScope;
}

// The ports of the pages connected to this shared worker, in the order they are to be asked:
// newest first, and each one asked goes to the back. Recorded from the start: the
// polyfill must be loaded by the worker's script before its first `connect`.
const pages = [];
// For a service worker: when each window (by client id) was last asked (the offer's number).
const asked = new Map();
let offers = 0;
let offer = null; // { port, delivered }: an undelivered offer
if (inSharedWorker()) {
  self.addEventListener('connect', (event) => {
    pages.unshift(event.ports[0]);
    if (pages.length > MAX_PAGES) pages.pop();
    if (offer) deliver();
  });
}

// Offers `port` to a courier as soon as there is one; `delivered()` is called then
// (possibly at once).
export function offerPort(port, delivered) {
  if (offer) offer.delivered_();
  offer = { port, delivered_: delivered };
  offers++;
  deliver();
}

function deliver() {
  const current = offer;
  if (inSharedWorker()) {
    if (!pages.length) return; // sent at the next connect
    offer = null;
    const page = pages.shift();
    pages.push(page);
    page.postMessage({ [CONNECT]: 1 }, [current.port]);
    current.delivered_();
  } else if (inServiceWorker()) {
    const retry = () => setTimeout(() => offer === current && deliver(), POLL_MS);
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      if (offer !== current) return; // replaced meanwhile
      if (!windows.length) return retry();
      offer = null;
      // The window asked least recently (never, first), in matchAll's order.
      const when = (client) => (asked.has(client.id) ? asked.get(client.id) : -1);
      const client = windows.reduce((best, w) => (when(w) < when(best) ? w : best));
      asked.delete(client.id); // (re-inserted last: the map's first entry is the oldest)
      asked.set(client.id, offers);
      if (asked.size > MAX_PAGES) asked.delete(asked.keys().next().value);
      client.postMessage({ [CONNECT]: 1 }, [current.port]);
      current.delivered_();
    }, retry);
  }
}
