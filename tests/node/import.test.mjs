// Every entry imports in Node (SSR, scripts, test runners) without throwing, and without a
// lock worker to reach install() does nothing and says so. Each scenario runs in a fresh
// Node process (globals untouched by the others) and prints JSON.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import vm from 'node:vm';

const DIST = resolve(import.meta.dirname, '../../dist');

// Runs `code` as an ES module in a new Node process; resolves with what it printed (JSON)
// and how long the process took to exit.
function run(code, { timeout = 60_000 } = {}) {
  const started = Date.now();
  return new Promise((ok, fail) => {
    execFile(process.execPath, ['--input-type=module', '-e', code], { cwd: DIST, timeout }, (error, stdout, stderr) => {
      if (error) return fail(new Error(`${error.message}\n${stderr}`));
      ok({ out: JSON.parse(stdout), ms: Date.now() - started, stderr });
    });
  });
}

it('index, deadlocks, scopes: import; install() does nothing and returns undefined; createLockManager() rejects only when used', async () => {
  const { out, stderr } = await run(`
    const { install, createLockManager, LockManager, Lock } = await import('./index.js');
    const { findDeadlocks } = await import('./deadlocks.js');
    const { requestAll, queryScopes } = await import('./scopes.js');
    const installed = install();
    const forced = install({ force: true });
    const manager = createLockManager();
    const outcome = (p) => p.then(() => 'resolved', (e) => e.name + ': ' + e.message);
    console.log(JSON.stringify({
      installed: installed === undefined, forced: forced === undefined,
      navigator: typeof globalThis.navigator, globals: typeof globalThis.LockManager + typeof globalThis.Lock,
      manager: manager instanceof LockManager,
      types: [typeof Lock, typeof findDeadlocks, typeof requestAll, typeof queryScopes],
      request: await outcome(manager.request('x', () => 1)),
      query: await outcome(manager.query()),
    }));
  `);
  assert.equal(out.installed, true);
  assert.equal(out.forced, true);
  assert.equal(out.navigator, 'undefined');
  assert.equal(out.globals, 'undefinedundefined');
  assert.equal(out.manager, true);
  assert.deepEqual(out.types, ['function', 'function', 'function', 'function']);
  assert.match(out.request, /^NotSupportedError: .*no lock worker.*createLockManager\(\{ local: true \}\)/);
  assert.match(out.query, /^NotSupportedError: /);
  assert.equal(stderr, '');
});

it('index: install() returns an existing navigator.locks, untouched', async () => {
  const { out } = await run(`
    const existing = { request() {}, query() {} };
    globalThis.navigator = { locks: existing };
    const { install } = await import('./index.js');
    console.log(JSON.stringify([install() === existing, install({ force: true }) === existing, navigator.locks === existing]));
  `);
  assert.deepEqual(out, [true, true, true]);
});

it('local: without a MessageChannel, importing it throws a NotSupportedError that says why', async () => {
  const { out } = await run(`
    delete globalThis.MessageChannel;
    const outcome = await import('./local.js').then(() => 'imported', (e) => e.name + ': ' + e.message);
    console.log(JSON.stringify(outcome));
  `);
  assert.match(out, /^NotSupportedError: .*no MessageChannel/);
});

it('auto: imports and installs nothing', async () => {
  const { out } = await run(`
    await import('./auto.js');
    console.log(JSON.stringify([typeof globalThis.navigator, typeof globalThis.LockManager]));
  `);
  assert.deepEqual(out, ['undefined', 'undefined']);
});

it('global: evaluates in a bare vm context and in this realm; installs nothing; the extras script adds to it', async () => {
  const code = readFileSync(resolve(DIST, 'web-locks.global.js'), 'utf8');
  const extras = readFileSync(resolve(DIST, 'web-locks-extras.global.js'), 'utf8');
  const context = vm.createContext({});
  assert.throws(() => vm.runInContext(extras, context), /load web-locks\.global\.js before it/);
  vm.runInContext(code, context);
  assert.equal(vm.runInContext('typeof WebLocksPolyfill.install', context), 'function');
  assert.equal(vm.runInContext('typeof WebLocksPolyfill.requestAll', context), 'undefined');
  assert.deepEqual(vm.runInContext('Object.keys(WebLocksPolyfill).join()', context), 'install,createLockManager,LockManager,Lock');
  vm.runInContext(extras, context);
  assert.equal(
    vm.runInContext('typeof WebLocksPolyfill.requestAll + typeof WebLocksPolyfill.queryScopes + typeof WebLocksPolyfill.findDeadlocks', context),
    'functionfunctionfunction',
  );
  assert.equal(vm.runInContext('WebLocksPolyfill.install()', context), undefined);
  assert.equal(vm.runInContext('typeof navigator + typeof LockManager', context), 'undefinedundefined');
  const { out } = await run(`
    import vm from 'node:vm';
    import { readFileSync } from 'node:fs';
    vm.runInThisContext(readFileSync('./web-locks.global.js', 'utf8'));
    console.log(JSON.stringify([typeof WebLocksPolyfill.createLockManager, WebLocksPolyfill.install() === undefined]));
  `);
  assert.deepEqual(out, ['function', true]);
});

it('vite: the plugin module imports in Node', async () => {
  const { out } = await run(`
    const { default: webLocks, webLocks: named } = await import('./vite.js');
    const plugin = webLocks();
    // build.assetsInlineLimit: never the worker or the wasm; otherwise the app's own limit.
    const limit = (build) => plugin.config({ build }).build.assetsInlineLimit;
    const size = (length) => ({ length });
    const files = ['/app/node_modules/x/dist/web-locks-worker.js', '/p/web_locks_bg.wasm', '/a.png'];
    const inline = {
      unset: files.map((file) => limit(undefined)(file, size(1))),
      number: [limit({ assetsInlineLimit: 10 })('/a.png', size(5)), limit({ assetsInlineLimit: 10 })('/a.png', size(50))],
      function: files.map((file) => limit({ assetsInlineLimit: (f) => !f.endsWith('.svg') })(file, size(1))),
    };
    console.log(JSON.stringify({ same: webLocks === named, name: plugin.name, config: plugin.config({}), inline }));
  `);
  assert.equal(out.same, true);
  assert.equal(out.name, 'navigator-locks-polyfill');
  assert.deepEqual(out.inline, { unset: [false, false, null], number: [true, false], function: [false, false, true] });
  assert.deepEqual(out.config.optimizeDeps.exclude, [
    'navigator-locks-polyfill',
    'navigator-locks-polyfill/auto',
    'navigator-locks-polyfill/local',
    'navigator-locks-polyfill/scopes',
    'navigator-locks-polyfill/deadlocks',
  ]);
});

it('local: installs navigator.locks, and the process exits once nothing waits', async () => {
  const { out, ms } = await run(`
    await import('./local.js');
    const value = await navigator.locks.request('a', async (lock) => lock.name + lock.mode);
    const other = (await import('./index.js')).createLockManager({ local: true });
    let release;
    navigator.locks.request('held forever', () => new Promise((r) => (release = r)));
    const snapshot = await other.query();
    console.log(JSON.stringify({ value, held: snapshot.held.map((l) => l.name) }));
  `);
  assert.deepEqual(out, { value: 'aexclusive', held: ['held forever'] });
  // A lock still held (its callback's promise never settles) does not keep Node alive, as
  // with a native API: nothing can ever answer it.
  assert.ok(ms < 30_000, `exited after ${ms} ms`);
});

it('local: a request waiting for a lock keeps Node alive until granted', async () => {
  const { out } = await run(`
    await import('./local.js');
    const other = (await import('./index.js')).createLockManager({ local: true });
    await new Promise((granted) => other.request('x', () => { granted(); return new Promise((r) => setTimeout(r, 300)); }));
    // Top-level await on a request queued behind the other's: Node must not exit meanwhile.
    const value = await navigator.locks.request('x', () => 'second');
    console.log(JSON.stringify(value));
  `);
  assert.equal(out, 'second');
});

it('local: a .wasm that cannot be loaded rejects requests, and the process still exits', async () => {
  const { out } = await run(`
    const { createLockManager } = await import('./index.js');
    const manager = createLockManager({ local: true, wasmUrl: new URL('./missing.wasm', import.meta.url) });
    const outcome = (p) => p.then(() => 'resolved', (e) => e.name + ': ' + e.message);
    const first = await outcome(manager.request('x', () => 1));
    const later = await outcome(createLockManager({ local: true }).query());
    console.log(JSON.stringify([first, later]));
  `);
  assert.match(out[0], /^InvalidStateError: .*could not start .*missing\.wasm/);
  assert.match(out[1], /^InvalidStateError: .*could not start/);
});
