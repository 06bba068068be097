// The SharedWorker's classic-script entry, bundled and appended to wasm-bindgen's
// `no-modules` output (which defines `wasm_bindgen`). Ports that connect while the wasm loads are kept, not
// started, so their messages wait in the port until the Rust side listens to them.
//
// The loader carries out the service's IndexedDB work (src/service/election.rs,
// recovery.rs): `claim(over)` records this worker as the origin's serving one in one
// readwrite transaction, unless another is recorded (over: null) or over the dead one named,
// and lists the origin's databases meanwhile (the survey a new leader needs); it answers
// through the module's export `claimed`. The first claim starts here, with the wasm's fetch
// and compile rather than after them (cold start), and so does the worker's lifeline
// `web-locks-worker-<epoch>` (held open for the worker's life: its clients and the other
// lock workers watch it to notice its death), asked for before the claim's record can be
// written: whoever reads the record and then watches the lifeline finds it open.
import { ELECTION } from '../shared/election.js';
import { BROADCAST, WORKER_NAME } from '../shared/link-settings.js';

(() => {
  // User Timing marks of the worker's start (the benchmark's cold-start breakdown reads them
  // over DevTools; so can anyone's performance panel): its script ran, its wasm was ready,
  // it started serving.
  performance.mark('web-locks script');
  // A fault inside the wasm (a trap, or an exception thrown through it) leaves the driver
  // borrowed for good, so every later message would fault too: the worker ends itself
  // instead, and its clients, noticing through its lifeline, rebuild the state in a new one.
  // (Not in Firefox: see docs/lifecycle.md "Known limits".)
  onerror = onunhandledrejection = close;
  let early = [];
  // (After a failed load, the next port to connect has the wasm loaded again: `retry`.)
  let retry;
  const keep = (event) => {
    early.push(...event.ports);
    if (retry) load((retry = 0));
  };
  addEventListener('connect', keep);
  // Hands the driver a port (a connect event, as a SharedWorker's): a MessagePort, or a
  // stand-in, whose messages are dispatched to the driver at once (`deliver(data, ports)`)
  // and whose replies go to `send`.
  const connect = (port) => {
    const event = new Event('connect');
    event.ports = [port];
    dispatchEvent(event);
  };
  const standIn = (send, close = () => {}) => {
    const port = new EventTarget();
    port.start = () => {};
    port.close = close;
    port.postMessage = send;
    connect(port);
    return (data, ports) => port.dispatchEvent(new MessageEvent('message', { data, ports }));
  };
  // A page's frames speak through its port (js/client/connection.js `via`): each frame's messages
  // go to a stand-in of its own, at once, so that the page's order is kept; its replies go
  // back over the page's port, marked with the frame's clientId (`c`). (Listening first: a
  // `via` reaches the driver only that way.)
  addEventListener('connect', ({ ports: [port] }) => {
    const frames = {};
    port.addEventListener('message', (event) => {
      const { data } = event;
      if (data && data.type == 'via') {
        event.stopImmediatePropagation();
        const c = data.c;
        (frames[c] ||= standIn(
          (message) => port.postMessage(((message.c = c), message)),
          () => delete frames[c],
        ))(data.m, event.ports);
      }
    });
  });
  // Where SharedWorker is missing, a tab's dedicated worker (js/client/tab-host.js): its page hands
  // it ports, connected as a SharedWorker's are, and says whether it is hidden.
  const tab = !('onconnect' in self);
  let hidden;
  if (tab) {
    onmessage = (event) => {
      if (event.ports[0]) return connect(event.ports[0]);
      if (!early) return wasm_bindgen.hidden(event.data);
      hidden = event.data;
      // (After a failed load, the page's next word has it loaded again, as a port's connect does.)
      keep({ ports: [] });
    };
  }
  const factory = self.indexedDB;
  // The URL its contexts construct it with (their glue puts it in the worker's name: see
  // js/client/connection.js; a redirect of the script's request changes `location`, not that).
  const url = name.includes(' ') ? name.slice(name.indexOf(' ') + 1) : location.href;
  // Where the .wasm is: next to this script unless the page said where (#wasm=<url>).
  const hash = /[#&]wasm=([^&]*)/.exec(url);
  const wasmUrl = hash ? decodeURIComponent(hash[1]) : new URL('web_locks_bg.wasm', location).href;
  // This worker's identity, its lifeline, and the record the claim writes (new at each try
  // to load: a worker whose wasm failed gives its claim up).
  let me;
  // (A request that fails, e.g. storage blocked, resolves with null rather than rejecting.)
  const idb = (request, then) =>
    new Promise((done) => {
      request.onsuccess = () => done(then ? then(request.result) : request.result);
      request.onerror = (event) => {
        event.preventDefault();
        done(null);
      };
    });
  // The origin's record after recording `me` unless another worker is recorded (`over`
  // null) or over the one with epoch `over` (found dead). Where IndexedDB cannot be used,
  // no other worker can be found: this one serves (docs/lifecycle.md "Known limits").
  const claim = (over) =>
    Promise.all([record(over), survey()]).then(([leader, names]) => {
      if (!leader) console.warn('web-locks worker: no IndexedDB, serving alone');
      leader = leader || me;
      return [leader.epoch, leader.url, leader.lifeline, ...names];
    });
  wasm_bindgen.claim = (over) => claim(over).then((answer) => wasm_bindgen.claimed(lead(answer)));
  // Once it serves, the contexts that cannot construct it reach it over BroadcastChannel
  // (js/client/broadcast-link.js): a hello on the channel WORKER_NAME names the context's own
  // channel, which is bridged to a port of its own here. (Its page is told, with its
  // lifeline's name: js/client/tab-host.js.)
  let rendezvous;
  const lead = (answer) => {
    if (answer[0] == me.epoch && !rendezvous) {
      if (tab) postMessage(me.lifeline);
      rendezvous = new BroadcastChannel(WORKER_NAME);
      const bridged = new Set();
      rendezvous.onmessage = ({ data }) => {
        // (Anything else a same-origin script posts there is refused; a throw would end us.)
        if (!data || typeof data.p != 'string') return console.error('web-locks worker: refused: no channel named', data);
        // (A hello sent again: see js/client/broadcast-link.js.)
        if (bridged.has(data.p)) return;
        bridged.add(data.p);
        const channel = new BroadcastChannel(data.p);
        // (Closed after the last message the service sends it, or its goodbye.)
        const deliver = standIn((message) => {
          channel.postMessage(message);
          if (message.type == 'evicted' || message.type == 'redirect') channel.close();
        });
        channel.onmessage = ({ data }) => {
          deliver(data);
          if (data && data.type == 'goodbye') channel.close();
        };
        channel.postMessage(0);
        deliver(data);
      };
    }
    return answer;
  };
  // The lock workers' own channel (src/service/tabs.rs): a hidden tab's serving worker asks
  // for a visible one (1), which answers (2), and it resigns: it ends (its page is told).
  const signals = new BroadcastChannel(WORKER_NAME + ' tabs');
  wasm_bindgen.tabs = (signal) => signals.postMessage(signal);
  wasm_bindgen.resign = () => {
    if (tab) postMessage(0);
    close();
  };
  // (A worker that creates the record's database records itself as it does: none can be
  // recorded before, and it serves without another transaction: a fresh origin's cold
  // start.)
  // (`me` as it is when the record is written: a later try's, if one began meanwhile, whose
  // lifeline was asked for in the task that made it `me`, so before this write.)
  const record = (over) =>
    new Promise((done) => {
      const request = factory.open(ELECTION, 1);
      let created;
      request.onupgradeneeded = () => (created = request.result.createObjectStore('leader').put(me, 0));
      done(
        idb(request, (db) => {
          if (created) return db.close(), me;
          const store = db.transaction('leader', 'readwrite').objectStore('leader');
          return idb(store.get(0), (leader) => {
            if (!leader || leader.epoch === over) store.put((leader = me), 0);
            db.close();
            return leader;
          });
        }),
      );
    }).catch(() => null);
  // The origin's databases of this kind (`client`, `worker`). Empty where `databases()` is
  // missing (Firefox before 126) or fails.
  const listed = (kind) =>
    new Promise((done) => done(factory.databases()))
      .then((infos) => infos.map((info) => info.name).filter((name) => name.startsWith('web-locks-' + kind + '-')))
      .catch(() => []);
  // The survey: the databases of the origin's contexts, of every build (where there is no
  // list, a new leader cannot know its survivors).
  const survey = () => listed('client');
  // Lock workers' lifelines are deleted once they end (as a death watch does:
  // src/worker/death_watch.rs): a worker that served no one watched by its clients (one that
  // sent them elsewhere) leaves its own behind. (This worker's own, listed too, is then
  // deleted once it ends.)
  const sweep = () =>
    listed('worker')
      .then((names) =>
        names.map((name) => {
          const request = factory.open(name, 2);
          request.onupgradeneeded = () => {
            request.transaction.abort();
            factory.deleteDatabase(name);
          };
          request.onerror = (event) => event.preventDefault(); // (the upgrade aborted)
        }),
      )
      .catch(() => {}); // (an unhandled rejection would end the worker: see onerror)
  const load = () => {
    const epoch = Math.random().toString(36).slice(2); // (about 52 random bits)
    const lifeline = 'web-locks-worker-' + epoch;
    me = { epoch, url: tab ? BROADCAST : url, lifeline };
    // (No IndexedDB, or an open that fails, e.g. private browsing in older Firefox: clients
    // are welcomed without a lifeline.)
    // (The claim's database is asked for first, the lifeline right after: before the
    // record can be written, and out of the claim's way. Its connection is kept for the
    // worker's life once it serves: a collected one is closed.)
    const claimed = claim(null);
    const opened = new Promise((done) => done(idb(factory.open(lifeline, 1)))).catch(() => null);
    // (Once the lifeline is open: out of the cold start's way.)
    opened.then(sweep);
    // (Serving starts once the wasm and this claim are ready; the lifeline, often the
    // slowest, only delays the clients' welcome.)
    Promise.all([wasm_bindgen({ module_or_path: wasmUrl }).then(() => performance.mark('web-locks wasm')), claimed]).then(
      ([, answer]) => {
        removeEventListener('connect', keep);
        performance.mark('web-locks serving');
        wasm_bindgen.serve(early, epoch, lead(answer), self);
        early = null;
        signals.onmessage = (event) => wasm_bindgen.signal(event.data);
        if (hidden) wasm_bindgen.hidden(hidden);
        opened.then((db) => wasm_bindgen.lifeline_open(db && (wasm_bindgen.lifeline = db) && lifeline));
      },
      (error) => {
        // (Each client logs it and rejects its requests with it.) The worker stays, and tries
        // again when a port connects next (a client's next request, or every second a client
        // holding a lock), serving once it loads. (Ending instead, for a new worker to try:
        // in Firefox, a construction that met the ending worker left it matched by later
        // ones, which never connected, and their requests hung.) Its claim is given
        // up meanwhile: its lifeline ends, and another worker of the origin serves.
        opened.then((db) => {
          if (db) db.close();
          factory.deleteDatabase(lifeline);
        });
        // (A Content-Security-Policy without 'wasm-unsafe-eval' refuses the compile: the
        // worker script's own response carries the policy that applies.)
        const csp = /CSP|Content Sec/.test(error) ? " (its CSP needs 'wasm-unsafe-eval')" : '';
        const message = { v: 4, type: 'fatal', message: 'web-locks worker could not load its wasm (' + wasmUrl + '): ' + error + csp };
        // (And to the ports a context handed on in its `adopt`s, its workers', and so on down:
        // a shared worker's dedicated workers' come through its port.)
        const tell = (port) => {
          port.postMessage(message);
          port.onmessage = (event) => event.ports.map(tell);
        };
        early.map(tell);
        early = [];
        if (tab) postMessage(message);
        retry = 1;
      },
    );
  };
  load();
})();
