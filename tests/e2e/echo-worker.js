// The benchmark's floor (scripts/bench.mjs): a SharedWorker with no lock logic. `echo`
// answers the sender; `relay` passes the message to the other port that said `join`.
// With `?db` (the cold-start floor, fresh storage), it first creates an IndexedDB database
// as a lock worker's first claim does on a fresh origin (js/election.js: one store, one
// record, in the upgrade) and echoes how long that took from its script's start (ms).
const ports = [];
let created = Promise.resolve('echo');
if (location.search === '?db') {
  const start = performance.now();
  created = new Promise((done) => {
    const request = indexedDB.open('floor', 1);
    request.onupgradeneeded = () => request.result.createObjectStore('leader').put({ epoch: 'e' }, 0);
    request.onsuccess = () => done(performance.now() - start);
  });
}
onconnect = ({ ports: [port] }) => {
  port.onmessage = ({ data }) => {
    if (data === 'join') ports.push(port);
    else if (data === 'echo') created.then((reply) => port.postMessage(reply));
    else ports.find((p) => p !== port).postMessage(data);
  };
};
