// The benchmark's floor (scripts/bench.mjs): a SharedWorker with no lock logic. `echo`
// answers the sender; `relay` passes the message to the other port that said `join`.
// With `?db` (the cold-start floor, fresh storage), it first creates an IndexedDB database
// as a lock worker's first claim does on a fresh origin (js/shared/election.js: one store, one
// record, in the upgrade) and echoes how long that took from its script's start (ms).
// With `?wasm`, the same, and it also fetches and compiles the polyfill's wasm meanwhile, as
// a lock worker must before it serves, and answers once both are done.
const ports = [];
let created = Promise.resolve('echo');
if (location.search === '?db' || location.search === '?wasm') {
  const start = performance.now();
  created = new Promise((done) => {
    const request = indexedDB.open('floor', 1);
    request.onupgradeneeded = () => request.result.createObjectStore('leader').put({ epoch: 'e' }, 0);
    request.onsuccess = () => done(performance.now() - start);
  });
  // (As the polyfill's loader compiles it: streaming, else from the whole response.)
  const compile = (response) =>
    WebAssembly.compileStreaming(response.clone()).catch(() => response.arrayBuffer().then((bytes) => WebAssembly.compile(bytes)));
  if (location.search === '?wasm') created = Promise.all([created, fetch('/dist/web_locks_bg.wasm').then(compile)]).then(([ms]) => ms);
}
onconnect = ({ ports: [port] }) => {
  port.onmessage = ({ data }) => {
    if (data === 'join') ports.push(port);
    else if (data === 'echo') created.then((reply) => port.postMessage(reply));
    else ports.find((p) => p !== port).postMessage(data);
  };
};
