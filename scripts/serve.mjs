// A small static server for the demo, the tests and the benchmark: the repository root,
// with `/` showing www/. `node scripts/serve.mjs [port]` (npm start) or `serve(port)`;
// `serve(port, { root, base })` serves another folder under the URL prefix `base`.
import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
};

// `store: true` lets the browser keep responses (no `cache-control: no-store`, which keeps
// Firefox from putting a page in its back/forward cache); `headers`, more headers on every
// file served (a CSP, CORS: tests/e2e/hosts.test.mjs).
export function serve(port = 0, { root = ROOT, base = '/', host = '127.0.0.1', store = false, headers = {} } = {}) {
  const failed = new Set();
  const deleted = new Set();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    // (For the end-to-end tests of several builds of one app on one origin: `/builds/<name>/`
    // serves dist/ as build <name> (another URL for each file), or the protocol fixture
    // tests/fixtures/<name>/ for a name starting with `protocol-`; `/builds/delete?name=<name>`
    // deletes that build's files, as a deploy does.)
    const build = /^\/builds\/([^/]+)\/(.*)$/.exec(url.pathname);
    if (url.pathname === '/builds/delete') {
      deleted.add(url.searchParams.get('name'));
      res.writeHead(200, { 'cache-control': 'no-store' }).end('deleted');
      return;
    }
    if (build && deleted.has(build[1])) {
      res.writeHead(404, { 'cache-control': 'no-store' }).end('not found');
      return;
    }
    if (build) url.pathname = build[1].startsWith('protocol-') ? `/tests/fixtures/${build[1]}/${build[2]}` : `/dist/${build[2]}`;
    // (For the end-to-end test of a lock worker whose script URL redirects: `?redirect`
    // answers 302 to the same path without it.)
    if (url.search === '?redirect') {
      res.writeHead(302, { location: url.pathname, 'cache-control': 'no-store' }).end();
      return;
    }
    // (For the end-to-end test of a lock worker that failed to start once: `?fail-once=<key>`
    // answers 404 the first time for each key.)
    const once = url.searchParams.get('fail-once');
    if (once !== null && !failed.has(once)) {
      failed.add(once);
      res.writeHead(404, { 'cache-control': 'no-store' }).end('not found');
      return;
    }
    let path = decodeURIComponent(url.pathname);
    if (!path.startsWith(base)) {
      res.writeHead(404).end('not found');
      return;
    }
    path = '/' + path.slice(base.length);
    // (For the end-to-end test of the site's storage cleared under open tabs.)
    if (path === '/tests/e2e/clear-site-data') {
      res.writeHead(200, { 'clear-site-data': '"storage"', 'cache-control': 'no-store' }).end();
      return;
    }
    if (path.endsWith('/')) path += root === ROOT && path === '/' ? 'www/index.html' : 'index.html';
    const file = normalize(join(root, path));
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      const type = TYPES[extname(file)] || 'application/octet-stream';
      res.writeHead(200, { 'content-type': type, ...(store ? {} : { 'cache-control': 'no-store' }), ...headers });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  return new Promise((ok) => server.listen(port, host, () => ok(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!existsSync(join(ROOT, 'dist/index.js'))) console.warn('dist/ is missing: run `npm run build` first');
  const port = Number(process.argv[2] || process.env.PORT || 8080);
  const server = await serve(port);
  console.log(`demo: http://127.0.0.1:${server.address().port}/  (open it in several tabs)`);
}
