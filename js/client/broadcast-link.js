// A link to the serving lock worker over BroadcastChannel, for a context that cannot
// construct it: where SharedWorker is missing, or the serving worker is a tab's
// (docs/architecture.md "Where SharedWorker is missing"). It has a MessagePort's part that
// js/client/connection.js uses: postMessage, onmessage, close.
//
// Each link has a channel of its own, `p`, which only it and the serving worker open: no
// other context hears its traffic (every listener of a channel receives every message).
// Its first message, the hello, goes out on the serving worker's channel (WORKER_NAME, which
// only a serving worker listens to) naming `p`; the worker opens `p`, posts a first message
// on it (0) and connects it as a port (js/worker/worker-entry.js). Messages posted before that
// would be lost: they wait here until that first message arrives.
import { WORKER_NAME } from '../shared/link-settings.js';

const RESEND_MS = 100;

export function broadcastLink() {
  const p = WORKER_NAME + ' ' + Math.random();
  const channel = new BroadcastChannel(p);
  const rendezvous = new BroadcastChannel(WORKER_NAME);
  let waiting = [];
  let resend;
  const link = {
    p,
    postMessage(message) {
      message.p = p;
      // (The hello goes out again every RESEND_MS until answered: none may serve yet, e.g.
      // a worker that sent us here is taking over from a dead one; the serving worker
      // bridges a channel once.)
      if (!resend) {
        resend = setInterval(() => rendezvous.postMessage(message), RESEND_MS);
        rendezvous.postMessage(message);
      } else if (waiting) waiting.push(message);
      else channel.postMessage(message);
    },
    close() {
      stopHello();
      channel.close();
    },
  };
  const stopHello = () => {
    clearInterval(resend);
    rendezvous.close();
  };
  // (`answered`: a serving worker took it.)
  channel.onmessage = (event) => {
    stopHello();
    link.answered = 1;
    if (waiting) waiting.map((message) => channel.postMessage(message));
    waiting = null;
    if (event.data) link.onmessage(event);
  };
  return link;
}
