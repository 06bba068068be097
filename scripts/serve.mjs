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
// file served (a CSP, CORS: tests/e2e/hosts.test.mjs); `route(url, res)`, asked first, answers
// a request itself (returning true) or changes `url` to the file to serve (the end-to-end
// tests' routes: tests/e2e/harness/routes.mjs).
export function serve(port = 0, { root = ROOT, base = '/', host = '127.0.0.1', store = false, headers = {}, route = () => false } = {}) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    if (route(url, res)) return;
    let path = decodeURIComponent(url.pathname);
    if (!path.startsWith(base)) {
      res.writeHead(404).end('not found');
      return;
    }
    path = '/' + path.slice(base.length);
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
