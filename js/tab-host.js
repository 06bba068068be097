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

export function endHost() {
  if (host) host.terminate();
  host = null;
}

// The page's visibility, for its worker to hand the service on (tabs.rs).
const tell = () => host && host.postMessage(document.visibilityState == 'hidden');

// The tab's lock worker (script `url`), started unless running. (Also for a context whose
// link goes over BroadcastChannel: should no worker serve when its hello goes out, this one
// takes the service over, and the context's next hello reaches it.)
export function ensureHost(url) {
  if (!host) {
    if (!listening) {
      listening = addEventListener('visibilitychange', tell) || 1;
      // (At the freeze, after the page's connections have said goodbye (js/install.js), where
      // there is one: ended at pagehide, it was reconnected to before the freeze, and the
      // new worker had Chromium evict the cached page.)
      const freezes = 'onfreeze' in document;
      addEventListener('pagehide', (event) => event.persisted && !freezes && endHost());
      document.addEventListener('freeze', endHost);
    }
    const Worker = globalThis.Worker[CONNECT] || globalThis.Worker;
    const worker = (host = new Worker(url, { name: WORKER_NAME + ' ' + url }));
    hosting = 0;
    // (An error ends it too: its script failed to load, or it ended itself at a fault.)
    worker.onmessage = worker.onerror = (event) => {
      hosting = event.data;
      if (!hosting && host == worker) host = null;
    };
    tell();
  }
  return host;
}

// A new port to the tab's lock worker; `failed` is called if its script cannot start (an
// error event that is not an ErrorEvent: a fault once it runs ends it, and its contexts
// notice through its lifeline, as for a SharedWorker).
export function hostPort(url, failed) {
  const worker = ensureHost(url);
  worker.addEventListener('error', (event) => event.message === undefined && failed());
  const { port1, port2 } = new MessageChannel();
  worker.postMessage(0, [port2]);
  return port1;
}
