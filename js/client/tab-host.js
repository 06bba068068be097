// The tab's lock worker where SharedWorker is missing (src/service/tabs.rs): the lock
// worker's script in a dedicated worker of the page, so that the page's long tasks do not
// stall other tabs. It takes part in the origin's election like any lock worker. Started when
// first needed and again after it ended: it resigned (it posts 0), or the page ended it as it
// froze or entered the back/forward cache (a frozen worker would serve no one, and its
// lifeline would keep others from taking over).
import { CONNECT } from './couriers.js';
import { WORKER_NAME } from '../shared/link-settings.js';

let host = null;
let listening;
// The lifeline of the tab's worker if it served the origin when last heard from.
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

// The tab's lock worker (script `url`), started unless running (none while parked). Contexts
// connect to it over a port once it serves (it posts its lifeline's name; before, and when
// it is another's, over BroadcastChannel: js/client/connection.js); should none serve when their
// hello goes out, this one takes the service over. `failed` is called if its script cannot
// start, `served` once it serves, `ended` when it ends otherwise (it resigned, or ended
// itself at a fault): its contexts learn its end so, not through its lifeline (they watch
// every other), since a watch of that would fire in the page as the page ends it entering
// the back/forward cache, and Chromium evicts a cached page for an IndexedDB event
// (measured). (The callbacks check that their link is still current: a stale one does
// nothing.)
export function ensureHost(url, failed, ended, served) {
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
    // (It posts its lifeline's name once it serves, 0 as it resigns, and `fatal` if its wasm
    // did not load; an error ends it too: its script failed to load, or it ended itself at a
    // fault.)
    worker.onmessage = worker.onerror = (event) => {
      const fatal = event.data && event.data.type && event.data;
      hosting = !fatal && event.data;
      // (It serves now: a context whose hello no serving worker answered yet takes a port to
      // it instead, and need not wait for that hello to go out again, nor for its channel to
      // be open: BroadcastChannel drops what is posted before its listener's is.)
      if (hosting) worker.dispatchEvent(new Event('serve'));
      if (!hosting && !fatal && host == worker) host = null;
      // (Its end; not a script that failed to start: `failed`.)
      if (fatal || event.data === 0 || event.message !== undefined) worker.dispatchEvent(new MessageEvent('end', { data: fatal }));
    };
  }
  // (Told at every connection: after a failed load, that has it load its wasm again.)
  tell();
  // (A failed start is an error event that is not an ErrorEvent.)
  if (host) {
    host.addEventListener('error', (event) => event.message === undefined && failed());
    host.addEventListener('end', ended);
    host.addEventListener('serve', served);
  }
  return host;
}
