// The SharedWorker's classic-script entry, appended to wasm-bindgen's `no-modules` output
// (which defines `wasm_bindgen`). Ports that connect while the wasm loads are kept, not
// started, so their messages wait in the port until the Rust side listens to them.
(function () {
  'use strict';
  // For cold-start measurements (protocol `boot`): when this script started, absolute ms.
  var started = performance.timeOrigin + performance.now();
  var early = [];
  function keep(event) { early.push(event.ports[0]); }
  self.addEventListener('connect', keep);
  // The .wasm sits next to this script unless the page said where (#wasm=<url>).
  var hash = /[#&]wasm=([^&]*)/.exec(self.location.hash);
  var wasmUrl = hash ? decodeURIComponent(hash[1]) : new URL('web_locks_bg.wasm', self.location.href).href;
  wasm_bindgen({ module_or_path: wasmUrl }).then(function () {
    self.removeEventListener('connect', keep);
    var boot = { v: 3, type: 'boot', script: started, wasm: performance.timeOrigin + performance.now() };
    early.forEach(function (port) { port.postMessage(boot); });
    wasm_bindgen.serve(early);
    early = null;
  }, function (error) {
    console.error('web-locks worker: cannot load ' + wasmUrl, error);
    var message = { v: 3, type: 'fatal', message: 'web-locks worker could not load its wasm: ' + error };
    early.forEach(function (port) { port.postMessage(message); });
    self.removeEventListener('connect', keep);
    self.addEventListener('connect', function (event) { event.ports[0].postMessage(message); });
  });
})();
