// The demo: primary-tab election, a shared/exclusive document, a deadlock on purpose (and the
// same work without one, with the package's requestAll), and a live inspector of query(),
// grouped by request (queryScopes), with the package's deadlock detector.
// ?impl=native|polyfill.
import { install } from '/dist/index.js';
import { findDeadlocks } from '/dist/deadlocks.js';
import { queryScopes, requestAll } from '/dist/scopes.js';

const impl = new URLSearchParams(location.search).get('impl') === 'native' ? 'native' : 'polyfill';
const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const forever = () => new Promise(() => {});

const other = impl === 'native' ? 'polyfill' : 'native';
$('impl').innerHTML = `Using the <b>${impl}</b> implementation — <a href="?impl=${other}">switch to ${other}</a>.`;
const locks = impl === 'polyfill' ? install({ force: true }) : navigator.locks;
if (!locks) {
  $('impl').textContent = 'No native navigator.locks here (not a secure context?): use the polyfill.';
  throw new Error('no navigator.locks');
}

function log(text) {
  const item = document.createElement('li');
  item.textContent = `${new Date().toLocaleTimeString()} ${text}`;
  $('log').prepend(item);
}

// Each tab names itself with a lock it holds for its whole life, so that the inspector can
// tell which clientId is which tab.
const label = `Tab ${Math.random().toString(16).slice(2, 6).toUpperCase()}`;
$('tab').textContent = label;
document.title = `${label} — web-locks demo`;
locks.request(`demo:tab:${label}`, forever);

// (a) Primary election: whoever holds demo:primary is primary until its tab goes away.
locks.request('demo:primary', () => {
  $('role').textContent = 'PRIMARY';
  $('role').className = 'role primary';
  log('became primary');
  return forever();
});

// (b) A document: readers share, an editor excludes. Content travels by BroadcastChannel.
const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel('demo:doc') : null;
let content = 'Hello from the shared document.';
if (channel) channel.onmessage = (e) => (content = e.data);
$('read').onclick = () => {
  $('doc-status').textContent = 'waiting to read…';
  locks.request('demo:doc', { mode: 'shared' }, async () => {
    $('doc').value = content;
    $('doc-status').textContent = 'reading (shared)';
    log('reading the document');
    await sleep(2000);
    $('doc-status').textContent = '';
  });
};
$('write').onclick = () => {
  $('doc-status').textContent = 'waiting to edit…';
  locks.request('demo:doc', async () => {
    $('doc').value = content;
    $('doc').readOnly = false;
    $('doc-status').textContent = 'editing (exclusive)';
    log('editing the document');
    await sleep(4000);
    content = $('doc').value;
    if (channel) channel.postMessage(content);
    $('doc').readOnly = true;
    $('doc-status').textContent = 'saved';
  });
};

// (c) A deadlock on purpose: A then B here, B then A in another tab.
const grab = (first, second) =>
  locks
    .request(`demo:${first}`, async () => {
      log(`holding ${first}, asking for ${second}`);
      await sleep(300);
      await locks.request(`demo:${second}`, () => log(`got ${second} too`));
    })
    .catch((e) => log(`lost ${first}: ${e.name}`));
$('ab').onclick = () => grab('A', 'B');
$('ba').onclick = () => grab('B', 'A');
$('break').onclick = () => locks.request('demo:A', { steal: true }, () => log('stole A: the cycle is broken'));
// The same work without the deadlock: both names as one scope (the extension's requestAll;
// atomic with the polyfill, taken in sorted order with the native API). Held a second, so
// that the inspector shows it.
$('atomic').onclick = () =>
  requestAll(['demo:B', 'demo:A'], { manager: locks }, async () => {
    log('holding A and B together');
    await sleep(1000);
    log('done with A and B');
  }).catch((e) => log(`lost A and B: ${e.name}`));

// The inspector: one chip per request — a scope is one chip across its names.
const isTab = (lock) => lock.names[0].startsWith('demo:tab:');
const tabOf = (snapshot) => {
  const names = new Map();
  for (const lock of snapshot.held) if (isTab(lock)) names.set(lock.clientId, lock.names[0].slice('demo:tab:'.length));
  return (clientId) => names.get(clientId) || clientId.slice(0, 8);
};
const escape = (text) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
const chip = (lock) =>
  `<span class="lock ${lock.mode}${lock.names.length > 1 ? ' scope' : ''}">${escape(lock.names.join(' + '))}` +
  `${lock.mode === 'shared' ? ' (shared)' : ''}</span>`;

async function refresh() {
  const snapshot = await queryScopes(locks);
  const name = tabOf(snapshot);
  const clients = new Map();
  const row = (id) => clients.get(id) || clients.set(id, { held: [], pending: [] }).get(id);
  for (const lock of snapshot.held) if (!isTab(lock)) row(lock.clientId).held.push(lock);
  for (const lock of snapshot.pending) row(lock.clientId).pending.push(lock);
  for (const lock of snapshot.held) if (isTab(lock)) row(lock.clientId);
  const deadlocks = findDeadlocks(snapshot);
  const inCycle = new Set(deadlocks.flatMap((d) => d.clients));
  $('inspector').tBodies[0].innerHTML = [...clients]
    .map(([id, c]) => {
      const classes = [name(id) === label ? 'me' : '', inCycle.has(id) ? 'cycle' : ''].join(' ');
      return `<tr class="${classes}"><td>${escape(name(id))}</td>` +
        `<td>${c.held.map(chip).join('')}</td><td>${c.pending.map(chip).join('')}</td></tr>`;
    })
    .join('');
  const banner = $('deadlock');
  banner.hidden = deadlocks.length === 0;
  banner.textContent = deadlocks
    .map((d) => 'Deadlock: ' + d.waits.map((w) => `${name(w.client)} waits for ${name(w.waitsFor)} (${w.name})`).join(', '))
    .join(' · ');
}
setInterval(refresh, 300);
refresh();
window.demo = { label, impl, refresh };
