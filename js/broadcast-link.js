// A link to the serving lock worker over BroadcastChannel, for a context that cannot
// construct it: where SharedWorker is missing, or the serving worker is a tab's
// (docs/architecture.md "Where SharedWorker is missing"). It has a MessagePort's part that
// js/connection.js uses: postMessage, onmessage, close.
//
// Each link has a channel of its own, `p`, which only it and the serving worker open: no
// other context hears its traffic (every listener of a channel receives every message).
// Its first message, the hello, goes out on the serving worker's channel (WORKER_NAME, which
// only a serving worker listens to) naming `p`; the worker opens `p`, posts a first message
// on it (0) and connects it as a port (js/worker-entry.js). Messages posted before that
// would be lost: they wait here until that first message arrives.
import { WORKER_NAME } from './link-settings.js';

export function broadcastLink() {
  const p = WORKER_NAME + ' ' + Math.random();
  const channel = new BroadcastChannel(p);
  let rendezvous = new BroadcastChannel(WORKER_NAME);
  let waiting = [];
  const link = {
    p,
    postMessage(message) {
      message.p = p;
      if (rendezvous) {
        rendezvous.postMessage(message);
        rendezvous.close();
        rendezvous = null;
      } else if (waiting) waiting.push(message);
      else channel.postMessage(message);
    },
    close: () => channel.close(),
  };
  channel.onmessage = (event) => {
    if (waiting) waiting.map((message) => channel.postMessage(message));
    waiting = null;
    if (event.data) link.onmessage(event);
  };
  return link;
}
