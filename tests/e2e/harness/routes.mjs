// The end-to-end tests' own routes on the test server (scripts/serve.mjs `route`), beside
// the repository's files. Each server gets its own state: `testRoutes()`.
export function testRoutes() {
  const failed = new Set();
  const deleted = new Set();
  return (url, res) => {
    const answer = (status, body, headers = {}) => (res.writeHead(status, { 'cache-control': 'no-store', ...headers }).end(body), true);
    // Several builds of one app on one origin (tests/e2e/builds.test.mjs): `/builds/<name>/`
    // serves dist/ as build <name> (another URL for each file), or the protocol fixture
    // tests/fixtures/<name>/ for a name starting with `protocol-`; `/builds/delete?name=<name>`
    // deletes that build's files, as a deploy does.
    if (url.pathname === '/builds/delete') {
      deleted.add(url.searchParams.get('name'));
      return answer(200, 'deleted');
    }
    const build = /^\/builds\/([^/]+)\/(.*)$/.exec(url.pathname);
    if (build && deleted.has(build[1])) return answer(404, 'not found');
    if (build) url.pathname = build[1].startsWith('protocol-') ? `/tests/fixtures/${build[1]}/${build[2]}` : `/dist/${build[2]}`;
    // A lock worker whose script URL redirects: `?redirect` answers 302 to the same path
    // without it.
    if (url.search === '?redirect') return answer(302, '', { location: url.pathname });
    // A lock worker that failed to start once: `?fail-once=<key>` answers 404 the first time
    // for each key.
    const once = url.searchParams.get('fail-once');
    if (once !== null && !failed.has(once)) {
      failed.add(once);
      return answer(404, 'not found');
    }
    // The site's storage cleared under open tabs (tests/e2e/storage.test.mjs).
    if (url.pathname === '/tests/e2e/clear-site-data') return answer(200, '', { 'clear-site-data': '"storage"' });
    return false;
  };
}
