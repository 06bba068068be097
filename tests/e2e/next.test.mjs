// The packed package in a Next.js 16 app (App Router, tests/apps/next), imported in a client
// component as the README says, with Next's dev server (Turbopack) and with `next build` +
// `next start`: two tabs on two pages exclude each other through one lock worker URL. Next,
// React and React DOM are installed from the registry, at these versions.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { launch } from './harness/browser.mjs';
import { twoTabsExclude } from './harness/apps.mjs';
import { ROOT, fixtureApp, run } from '../fixtures.mjs';

const ENV = { NEXT_TELEMETRY_DISABLED: '1' };

// A port nothing listens on now (Next's servers take a port number).
const freePort = () =>
  new Promise((ok) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => ok(port));
    });
  });

// `next <command>` on a free port, once it says it is ready: its origin and process.
async function start(app, command) {
  const port = await freePort();
  const args = ['node_modules/next/dist/bin/next', command, '--port', String(port), '--hostname', '127.0.0.1'];
  const child = spawn(process.execPath, args, { cwd: app, env: { ...process.env, ...ENV }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((ok, fail) => {
    let out = '';
    const late = setTimeout(() => fail(new Error(`next ${command}: not ready after 180 s: ${out}`)), 180_000);
    child.stdout.on('data', (chunk) => (out += chunk) && /Ready in/.test(out) && (clearTimeout(late), ok()));
    child.once('exit', (code) => (clearTimeout(late), fail(new Error(`next ${command} exited (${code}): ${out}`))));
  }).catch((error) => {
    child.kill();
    throw error;
  });
  return { origin: `http://127.0.0.1:${port}`, child };
}

let app;
let env;
before(async () => {
  app = fixtureApp(join(ROOT, 'test-output/next'), 'next');
  env = await launch();
});
after(() => env?.close());

for (const command of ['dev', 'start']) {
  describe(command === 'dev' ? 'next dev (Turbopack)' : 'next build, next start', () => {
    let server;
    before(async () => {
      if (command === 'start') run(process.execPath, ['node_modules/next/dist/bin/next', 'build'], app, ENV);
      server = await start(app, command);
    });
    after(() => server?.child.kill());

    it('two tabs on two pages exclude each other through one worker', async () => {
      const worker = await twoTabsExclude(env.browser, [`${server.origin}/`, `${server.origin}/other`]);
      assert.match(worker, /web-locks-worker[^/]*\.js/);
    });
  });
}
