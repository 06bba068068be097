// The tab's lock worker where SharedWorker is missing (src/service/tabs.rs): the lock
// worker's script in a dedicated worker of the page, so that the page's long tasks do not
// stall other tabs. It takes part in the origin's election like any lock worker; the page's
// contexts connect to it over a port (a MessageChannel handed to it), and it serves them or
// sends them to the serving worker. Started when first needed and again after it ended: it
// resigned (it posts 0; 1 when it serves), or the page ended it as it froze or entered the
// back/forward cache (a frozen worker would serve no one, and its lifeline would keep
// others from taking over).
import { CONNECT } from './couriers.js';
import { WORKER_NAME } from './link-settings.js';

let host = null;
let listening;
// Whether the tab's worker served the origin when last heard from.
export let hosting = 0;

// Ends the tab's worker; `park`: none again until `unpark()` (the page enters the
// back/forward cache: a worker started meanwhile would be frozen with it, serving no one).
let parked;
export function endHost(park) {
  if (host) host.terminate();
  host = null;
  if (park) parked = 1;
}
export const unpark = () => (parked = 0);

// The page's visibility, for its worker to hand the service on (tabs.rs).
const tell = () => host && host.postMessage(document.visibilityState == 'hidden');

// The tab's lock worker (script `url`), started unless running. (Also for a context whose
// link goes over BroadcastChannel: should no worker serve when its hello goes out, this one
// takes the service over, and the context's next hello reaches it.)
export function ensureHost(url) {
  if (!host && !parked) {
    if (!listening) {
      // (Told a moment later: a page navigated away is hidden just before it goes, and
      // its worker, ended then, must not hand the service on meanwhile.)
      listening = addEventListener('visibilitychange', () => setTimeout(tell, 500)) || 1;
      // (Entering the cache, at once: ended at the freeze that follows, it was now and then
      // frozen first, its lifeline open, and no other could serve: measured in Chromium.)
      addEventListener('pagehide', (event) => event.persisted && endHost(1));
    }
    const Worker = globalThis.Worker[CONNECT] || globalThis.Worker;
    const worker = (host = new Worker(url, { name: WORKER_NAME + ' ' + url }));
    hosting = 0;
    // (An error ends it too: its script failed to load, or it ended itself at a fault.)
    worker.onmessage = worker.onerror = (event) => {
      hosting = event.data;
      if (!hosting && host == worker) host = null;
      // (Its end; not a script that failed to start: see hostPort's `failed`.)
      if (event.data === 0 || event.message !== undefined) worker.dispatchEvent(new Event('end'));
    };
    tell();
  }
  return host;
}

// A new port to the tab's lock worker; `failed` is called if its script cannot start (an
// error event that is not an ErrorEvent), `ended` when it ends otherwise (it resigned, or
// ended itself at a fault). Its contexts learn its end so, not through its lifeline: a
// watch of that would fire in the page as the page ends it entering the back/forward
// cache, and Chromium evicts a cached page for an IndexedDB event (measured). (`own`:
// js/connection.js watches no lifeline for such a port.)
export function hostPort(url, failed, ended) {
  const worker = ensureHost(url);
  const { port1, port2 } = new MessageChannel();
  port1.own = 1;
  // (Parked: a port to no one, whose watchdog tries again; its page is frozen meanwhile.)
  if (!worker) return port1;
  worker.addEventListener('error', (event) => event.message === undefined && failed());
  worker.addEventListener('end', ended);
  worker.postMessage(0, [port2]);
  return port1;
}
