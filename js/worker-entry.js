// The SharedWorker's classic-script entry, appended to wasm-bindgen's `no-modules` output
// (which defines `wasm_bindgen`). Ports that connect while the wasm loads are kept, not
// started, so their messages wait in the port until the Rust side listens to them.
//
// The survey of the contexts' databases that exist (which a restarted worker waits for; see
// src/service/recovery.rs), and of earlier workers' lifelines (watched the same way: one
// that a worker left when it ended with the origin's last tab is found closed and deleted),
// starts here, with the wasm's fetch and compile rather than after them (cold start);
// serve() gets it. The worker's lifeline `web-locks-worker-<epoch><its URL's #fragment>`
// (held open for the worker's life: its clients watch it to notice the worker's death) is
// opened once it serves, so that a worker whose wasm fails leaves no database behind;
// lifeline_open() gets it.
(() => {
  // User Timing marks of the worker's start (the benchmark's cold-start breakdown reads them
  // over DevTools; so can anyone's performance panel): its script ran, its wasm was ready,
  // it started serving.
  performance.mark('web-locks script');
  // A fault inside the wasm (a trap, or an exception thrown through it) leaves the driver
  // borrowed for good, so every later message would fault too: the worker ends itself
  // instead, and its clients, noticing through its lifeline, rebuild the state in a new one.
  // (Not in Firefox: see README "Known limits".)
  onerror = onunhandledrejection = close;
  let early = [];
  // (After a failed load, the next port to connect has the wasm loaded again: `retry`.)
  let retry;
  const keep = (event) => {
    early.push(event.ports[0]);
    if (retry) load((retry = 0));
  };
  addEventListener('connect', keep);
  // This worker's identity: its lifeline database is named after it.
  const epoch = Math.random().toString(36).slice(2); // (about 52 random bits)
  const key = location.hash;
  const factory = self.indexedDB;
  // (No IndexedDB, or an open that fails, e.g. private browsing in older Firefox: clients
  // are welcomed without a lifeline.)
  const opened = () =>
    new Promise((done) => {
      const db = 'web-locks-worker-' + epoch + key;
      const request = factory.open(db, 1);
      request.onsuccess = () => {
        // Kept for the worker's life: a collected connection would be closed.
        wasm_bindgen.lifeline = request.result;
        done(db);
      };
      request.onerror = (event) => {
        event.preventDefault();
        done(null);
      };
    }).catch(() => null);
  // Empty where `databases()` is missing (Firefox before 126) or fails: there a restarted
  // worker cannot know its survivors.
  // A window's database and a worker's lifeline end with their lock worker URL's fragment,
  // `#wasm=<url>` as its pages give it (a redirect keeps it; it differs between lock workers
  // of two builds or apps): those with another are another lock worker's, not awaited. A
  // worker whose own fragment is not such (none: a `workerUrl` without `wasmUrl`; one that a
  // redirect's target or a service worker's response put there) cannot tell: it keeps all.
  // (Worker contexts' databases have none: kept.)
  const surveyed = new Promise((done) => done(factory.databases()))
    .then((infos) =>
      infos
        .map((info) => info.name)
        .filter((name) => {
          const tail = name.replace(/^web-locks-(client|worker)-[^#]*/, '');
          return tail != name && (!tail || tail == key || !/^#wasm=/.test(key));
        }),
    )
    .catch(() => []);
  // The .wasm sits next to this script unless the page said where (#wasm=<url>).
  const hash = /[#&]wasm=([^&]*)/.exec(key);
  const wasmUrl = hash ? decodeURIComponent(hash[1]) : new URL('web_locks_bg.wasm', location).href;
  // Serving starts once the wasm and the survey are ready; the lifeline, often the slowest
  // (creating a database), only delays the clients' welcome, not their first grants.
  const load = () =>
    Promise.all([wasm_bindgen({ module_or_path: wasmUrl }).then(() => performance.mark('web-locks wasm')), surveyed]).then(
      ([, survey]) => {
        removeEventListener('connect', keep);
        performance.mark('web-locks serving');
        wasm_bindgen.serve(early, epoch, survey);
        early = null;
        opened().then(wasm_bindgen.lifeline_open);
      },
      (error) => {
        // (Each client logs it and rejects its requests with it.) The worker stays, and tries
        // again when a port connects next (a client's next request, or every second a client
        // holding a lock), serving once it loads. (Ending instead, for a new worker to try:
        // in Firefox, a construction that met the ending worker left it matched by later
        // ones, which never connected: measured, 2 requests in 12 hung.)
        const message = { v: 3, type: 'fatal', message: 'web-locks worker could not load its wasm (' + wasmUrl + '): ' + error };
        // (And to the ports a context handed on in its `adopt`s, its workers', and so on down:
        // a shared worker's dedicated workers' come through its port.)
        const tell = (port) => {
          port.postMessage(message);
          port.onmessage = (event) => event.ports.map(tell);
        };
        early.map(tell);
        early = [];
        retry = 1;
      },
    );
  load();
})();
