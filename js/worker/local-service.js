// Appended to wasm-bindgen's `no-modules` glue (which defines `wasm_bindgen`) to make the ES
// module dist/web-locks-service.js: the lock service in the calling realm, for
// install({ local: true }) and createLockManager({ local: true }) (js/client/local.js). Not minified:
// the bundler hints in nodeModule() must survive.

// A Node built-in module, without a static import a browser bundler would try to resolve.
function nodeModule(name) {
  const proc = globalThis.process;
  if (proc && typeof proc.getBuiltinModule === 'function') return Promise.resolve(proc.getBuiltinModule(name));
  const specifier = 'node:' + name;
  return import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);
}

// What wasm-bindgen instantiates: a file: URL (Node, jsdom, happy-dom: no fetch for those)
// is read from disk; anything else is fetched.
async function wasmSource(url) {
  if (!url.startsWith('file:')) return url;
  const [fs, path] = await Promise.all([nodeModule('fs/promises'), nodeModule('url')]);
  return fs.readFile(path.fileURLToPath(url));
}

// Loads the wasm from `wasmUrl` and serves protocol v3 on `port` (the service's end of the
// realm's hub channel; clients are adopted through it).
export async function serveLocal(port, wasmUrl) {
  await wasm_bindgen({ module_or_path: await wasmSource(wasmUrl) });
  // (Served as a lock worker is, its one port connected at once, and its own leader with
  // no lifeline: src/worker/mod.rs.)
  wasm_bindgen.serve([port], 'local', ['local'], port);
  wasm_bindgen.lifeline_open(null);
  // Node: the service's ports never hold the process open (a client's port does while it
  // waits for an answer). The service listens first; then each adopted port is unref'd.
  if (typeof port.unref === 'function') {
    port.addEventListener('message', (event) => {
      const adopted = event.ports && event.ports[0];
      if (adopted && typeof adopted.unref === 'function') adopted.unref();
    });
    port.unref();
  }
}
