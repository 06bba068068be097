// The SharedWorker's classic-script entry, appended to wasm-bindgen's `no-modules` output
// (which defines `wasm_bindgen`). Ports that connect while the wasm loads are kept, not
// started, so their messages wait in the port until the Rust side listens to them.
//
// The worker's two IndexedDB requests start here, with the wasm's fetch and compile rather
// than after them (cold start): its lifeline `web-locks-worker-<epoch>` (held open for the
// worker's life: its clients watch it to notice the worker's death) and the survey of the
// contexts' databases that exist (which a restarted worker waits for; see
// src/service/recovery.rs). serve() gets the survey, lifeline_open() the lifeline.
(function () {
  'use strict';
  // User Timing marks of the worker's start (the benchmark's cold-start breakdown reads them
  // over DevTools; so can anyone's performance panel): its script ran, its wasm was ready,
  // it started serving.
  performance.mark('web-locks script');
  // A fault inside the wasm (a trap, or an exception thrown through it) leaves the driver
  // borrowed for good, so every later message would fault too: the worker ends itself
  // instead, and its clients, noticing through its lifeline, rebuild the state in a new one.
  onerror = onunhandledrejection = close;
  var early = [];
  function keep(event) { early.push(event.ports[0]); }
  addEventListener('connect', keep);
  // This worker's identity: its lifeline database is named after it.
  var epoch = Date.now().toString(36) + Math.random().toString(36).slice(2, 8);
  var factory = self.indexedDB;
  var opened = new Promise(function (done) {
    // (No IndexedDB, or an open that fails, e.g. private browsing in older Firefox: clients
    // are welcomed without a lifeline.)
    var db = 'web-locks-worker-' + epoch;
    try {
      var request = factory.open(db, 1);
      request.onsuccess = function () {
        // Kept for the worker's life: a collected connection would be closed.
        wasm_bindgen.lifeline = request.result;
        done(db);
      };
      request.onerror = function (event) { event.preventDefault(); done(null); };
    } catch (e) {
      done(null);
    }
  });
  // Empty where `databases()` is missing (Firefox before 126) or fails: there a restarted
  // worker cannot know its survivors.
  var surveyed = new Promise(function (done) { done(factory.databases()); }).then(function (infos) {
    return infos.map(function (info) { return info.name; }).filter(function (name) {
      return /^web-locks-client-/.test(name);
    });
  }).catch(function () { return []; });
  // The .wasm sits next to this script unless the page said where (#wasm=<url>).
  var hash = /[#&]wasm=([^&]*)/.exec(location.hash);
  var wasmUrl = hash ? decodeURIComponent(hash[1]) : new URL('web_locks_bg.wasm', location.href).href;
  var loaded = wasm_bindgen({ module_or_path: wasmUrl }).then(function () {
    performance.mark('web-locks wasm');
  });
  // Serving starts once the wasm and the survey are ready; the lifeline, often the slowest
  // (creating a database), only delays the clients' welcome, not their first grants.
  Promise.all([loaded, surveyed]).then(function (results) {
    removeEventListener('connect', keep);
    performance.mark('web-locks serving');
    wasm_bindgen.serve(early, epoch, results[1]);
    early = null;
    opened.then(wasm_bindgen.lifeline_open);
  }, function (error) {
    // (Each client logs it and rejects its requests with it.) The worker ends: a client's
    // next port gets a new one, which tries again (and works if the cause has gone). A port
    // that connected too late for this is replaced by its client's welcome watchdog.
    var message = { v: 3, type: 'fatal', message: 'web-locks worker could not load its wasm (' + wasmUrl + '): ' + error };
    early.forEach(function (port) { port.postMessage(message); });
    close();
  });
})();
