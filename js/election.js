// The origin's record of its serving lock worker (src/service/election.rs): the IndexedDB
// database `web-locks-election`, whose store `leader` holds it at key 0 as
// `{ epoch, url, lifeline }`. Lock workers claim it (js/worker-entry.js); a context whose lock
// worker did not start reads it to find the serving one (js/connection.js).
// (A lock worker that creates the database records itself with it, `record`: none can be
// recorded before.)
export function openElection(record) {
  const request = indexedDB.open('web-locks-election', 1);
  request.onupgradeneeded = () => {
    const store = request.result.createObjectStore('leader');
    if (record) store.put(record, 0);
  };
  return request;
}

// The URL that reaches the serving lock worker, as the record names it (undefined: none, or
// no usable IndexedDB).
export function recordedUrl() {
  return new Promise((done) => {
    const request = openElection();
    request.onsuccess = () => {
      const get = request.result.transaction('leader').objectStore('leader').get(0);
      get.onsuccess = get.onerror = () => done(get.result && get.result.url);
      request.result.close();
    };
    request.onerror = (event) => {
      event.preventDefault();
      done();
    };
  }).catch(() => {});
}
