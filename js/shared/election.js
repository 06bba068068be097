// The origin's record of its serving lock worker (src/service/election.rs): the IndexedDB
// database `ELECTION`, whose store `leader` holds it at key 0 as `{ epoch, url, lifeline }`.
// Lock workers claim it (js/worker/worker-entry.js, which creates it); a context whose lock worker
// did not start reads it to find the serving one (js/client/connection.js).
export const ELECTION = 'web-locks-election';

// The URL that reaches the serving lock worker, as the record names it (undefined: none, or
// no usable IndexedDB). (Where the database is not there, none is recorded: a context
// creates none, `abort`.)
export function recordedUrl() {
  return new Promise((done) => {
    const request = indexedDB.open(ELECTION, 1);
    request.onupgradeneeded = () => request.transaction.abort();
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
