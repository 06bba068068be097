// Fixture projects for the tests that use the package as users install it: `npm pack`, a
// copy of a fixture folder, a package.json depending on the tarball (and on its tools), `npm
// install`, offline: `npm run setup` fetches every fixture's tools into npm's cache (`node
// tests/fixtures.mjs`), so that `npm test` needs no network.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(import.meta.dirname, '..');
const DEV = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies;

// The fixtures (folders under tests/apps/, over tests/apps/shared/) and the tools each
// installs beside the package: names of this repository's devDependencies (at their
// versions), or `name@version` for tools it does not use itself.
const FIXTURES = {
  static: [],
  vite: ['vite'],
  webpack: ['webpack'],
  parcel: ['parcel'],
  esbuild: ['esbuild'],
  rollup: ['rollup', '@rollup/plugin-node-resolve'],
  next: ['next@16.4.6', 'react@19.3.1', 'react-dom@19.3.1'],
  vitest: ['vitest', 'jsdom', 'happy-dom'],
};

export const run = (cmd, args, cwd, env) =>
  execFileSync(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] }).toString();

const version = (tool, at = tool.lastIndexOf('@')) => (at > 0 ? [tool.slice(0, at), tool.slice(at + 1)] : [tool, DEV[tool]]);
const devDependencies = (fixture) => Object.fromEntries(FIXTURES[fixture].map((tool) => version(tool)));
const install = (dir, network) =>
  run('npm', ['install', '--no-audit', '--no-fund', '--silent', network ? '--prefer-offline' : '--offline'], dir);

// A fresh `work` folder (under test-output/) with the packed package and the fixture
// `fixture` copied to work/app, installed with its tools. Returns the app's path.
export function fixtureApp(work, fixture) {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const tarball = run('npm', ['pack', '--silent', '--pack-destination', work], ROOT).trim().split('\n').pop();
  const app = join(work, 'app');
  cpSync(join(ROOT, 'tests/apps/shared'), app, { recursive: true });
  cpSync(join(ROOT, 'tests/apps', fixture), app, { recursive: true });
  const dependencies = { 'navigator-locks-polyfill': `file:../${tarball}` };
  const pkg = { private: true, type: 'module', dependencies, devDependencies: devDependencies(fixture) };
  writeFileSync(join(app, 'package.json'), JSON.stringify(pkg, null, 2));
  install(app, false);
  return app;
}

// Setup: each fixture's tools installed once in a scratch folder, which leaves them in npm's
// cache (a fixture already there installs offline, without asking the registry).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const fixture of Object.keys(FIXTURES)) {
    const dir = mkdtempSync(join(tmpdir(), 'web-locks-fixture-'));
    try {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, devDependencies: devDependencies(fixture) }));
      let how = 'in';
      try {
        install(dir, false);
      } catch {
        install(dir, true);
        how = 'fetched into';
      }
      console.log(`setup: the ${fixture} fixture's tools ${how} npm's cache`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
