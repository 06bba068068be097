// A SharedWorker that tells each connecting page its own location (tests/e2e/edges.test.mjs).
onconnect = (event) => event.ports[0].postMessage(location.href);
