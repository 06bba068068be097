// tests/e2e/hosts.test.mjs: installs the polyfill (over any native API) as the page's query
// says, takes one lock, and puts the outcome in `window.outcome`: 'granted', or the
// rejection's name and message.
//   ?from=<origin>   the package's files from there (a CDN), else from this origin's /dist/
//   &worker=self     the recipe for a CDN: the lock worker's script from this origin, the
//                    .wasm from the CDN (README "Bundlers, dev servers and hosts")
const params = new URLSearchParams(location.search);
const dist = `${params.get('from') || ''}/dist/`;
const { install } = await import(`${dist}index.js`);
const options = params.get('worker') === 'self' ? { workerUrl: '/dist/web-locks-worker.js', wasmUrl: `${dist}web_locks_bg.wasm` } : {};
install({ force: true, ...options });
window.outcome = await navigator.locks.request('x', () => 'granted').catch((error) => `${error.name}: ${error.message}`);
