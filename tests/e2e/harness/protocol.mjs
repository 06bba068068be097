// What a context says as it installs, recorded in the page for the suites that check it
// (install.test.mjs, storage.test.mjs): passed to addInitScript().

// Records, in page order, the context's IndexedDB opens of its liveness database and the
// hello/watch messages it posts; `mode` makes those opens fail: 'error' (an error event: a
// lower version than the database has) or 'throw' (IndexedDB unusable).
export function recordProtocol(mode) {
  const seen = (globalThis.__protocol = []);
  const ours = (name) => typeof name === 'string' && name.startsWith('web-locks-client-');
  const open = IDBFactory.prototype.open;
  if (mode === 'error') open.call(indexedDB, 'edges-higher', 2);
  IDBFactory.prototype.open = function (name, version) {
    if (!ours(name)) return open.call(this, name, version);
    seen.push(`open:${name}`);
    if (mode === 'throw') throw new DOMException('blocked', 'SecurityError');
    return mode === 'error' ? open.call(this, 'edges-higher', 1) : open.call(this, name, version);
  };
  // (Over a port, or a BroadcastChannel where SharedWorker is missing; a hello sent again
  // there until answered, the same message, is seen once.)
  const posted = new WeakSet();
  for (const Link of [MessagePort, BroadcastChannel]) {
    const post = Link.prototype.postMessage;
    Link.prototype.postMessage = function (message, ...rest) {
      if (message && (message.type === 'hello' || message.type === 'watch') && !posted.has(message)) {
        posted.add(message);
        seen.push(`${message.type}:${'db' in message ? message.db : '-'}`);
      }
      return post.call(this, message, ...rest);
    };
  }
}
