// The package as npm would publish it: `npm pack --dry-run` lists only what users need (the
// built files every `exports` entry names, their declarations, the docs the README links to,
// LICENSE and CHANGELOG, and the subpath folders of resolvers without `exports`), and
// `npm publish --dry-run` goes through. (Offline: whether the name is ours on the registry
// is npm publish's own check.)
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8'));

function npm(args) {
  return new Promise((ok) => {
    execFile('npm', args, { cwd: ROOT, timeout: 120_000 }, (error, stdout, stderr) => ok({ error, stdout, stderr }));
  });
}

it('npm pack lists the built files, declarations, docs, LICENSE and CHANGELOG, nothing else', async () => {
  const { error, stdout, stderr } = await npm(['pack', '--dry-run', '--json']);
  assert.ifError(error, stderr);
  const files = JSON.parse(stdout)[0].files.map((file) => file.path).sort();
  const expected = [
    'CHANGELOG.md',
    'LICENSE',
    'README.md',
    'package.json',
    ...readdirSync(resolve(ROOT, 'dist')).map((file) => `dist/${file}`),
    ...readdirSync(resolve(ROOT, 'types')).map((file) => `types/${file}`),
    ...readdirSync(resolve(ROOT, 'docs')).map((file) => `docs/${file}`),
    // (A folder per module subpath, its package.json naming the file: for resolvers that
    // read no `exports`, Parcel's by default.)
    ...['auto', 'local', 'scopes', 'deadlocks', 'vite', 'esbuild', 'rollup'].map((entry) => `${entry}/package.json`),
  ].sort();
  assert.deepEqual(files, expected);
  // Every entry's file and declarations are in it.
  const targets = Object.values(pkg.exports).flatMap((entry) => (typeof entry === 'string' ? [entry] : Object.values(entry)));
  for (const target of targets) assert.ok(files.includes(target.replace(/^\.\//, '')), `${target} is not packed`);
});

it('npm publish --dry-run goes through, with no warning but the login one', async () => {
  const { error, stderr } = await npm(['publish', '--dry-run']);
  assert.ifError(error, stderr);
  const warnings = stderr.split('\n').filter((line) => line.startsWith('npm warn') && !/logged in/.test(line));
  assert.deepEqual(warnings, []);
  assert.match(stderr + '', /navigator-locks-polyfill@/);
});

it('each subpath folder names the file and declarations its `exports` entry does', () => {
  for (const entry of ['auto', 'local', 'scopes', 'deadlocks', 'vite', 'esbuild', 'rollup']) {
    const folder = JSON.parse(readFileSync(resolve(ROOT, entry, 'package.json'), 'utf8'));
    const exported = pkg.exports[`./${entry}`];
    assert.equal(resolve(ROOT, entry, folder.main), resolve(ROOT, exported.default), entry);
    assert.equal(resolve(ROOT, entry, folder.types), resolve(ROOT, exported.types), entry);
  }
});

it('npm publish refuses a dist/ built on the precompiled libraries (prepublishOnly)', async () => {
  assert.equal(pkg.scripts.prepublishOnly, 'node scripts/sizes.mjs --release');
  const check = (route) => {
    const dir = mkdtempSync(resolve(tmpdir(), 'web-locks-route-'));
    cpSync(resolve(ROOT, 'dist'), resolve(dir, 'dist'), { recursive: true });
    mkdirSync(resolve(dir, 'pkg'));
    writeFileSync(resolve(dir, 'pkg/route'), `${route}\n`);
    return new Promise((ok) => {
      const env = { ...process.env };
      delete env.npm_config_dry_run;
      execFile(process.execPath, [resolve(ROOT, 'scripts/sizes.mjs'), '--release'], { cwd: dir, env }, (error, stdout, stderr) => ok({ code: error ? error.code : 0, stderr }));
    });
  };
  assert.equal((await check('build-std')).code, 0);
  const refused = await check('std');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /built on the std route: publish the release build/);
});
