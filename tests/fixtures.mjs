// Fixture projects for the tests that use the package as users install it: `npm pack`, a
// copy of a fixture folder, a package.json depending on the tarball (and on tools at the
// versions of this repository's devDependencies), `npm install`.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..');
const DEV = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies;

export const run = (cmd, args, cwd, env) =>
  execFileSync(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] }).toString();

// A fresh `work` folder (under test-output/) with the packed package and the fixture
// `fixture` (a folder under tests/apps/, over tests/apps/shared/) copied to work/app,
// installed with `tools` (names of devDependencies, or `name@version` for tools this
// repository does not use itself); `fields`: more of its package.json (a tool's
// configuration). Returns the app's path.
export function fixtureApp(work, fixture, tools = [], fields = {}) {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const tarball = run('npm', ['pack', '--silent', '--pack-destination', work], ROOT).trim().split('\n').pop();
  const app = join(work, 'app');
  cpSync(join(ROOT, 'tests/apps/shared'), app, { recursive: true });
  cpSync(join(ROOT, fixture), app, { recursive: true });
  const version = (tool, at = tool.lastIndexOf('@')) => (at > 0 ? [tool.slice(0, at), tool.slice(at + 1)] : [tool, DEV[tool]]);
  const devDependencies = Object.fromEntries(tools.map((tool) => version(tool)));
  const pkg = { private: true, type: 'module', dependencies: { 'navigator-locks-polyfill': `file:../${tarball}` }, devDependencies, ...fields };
  writeFileSync(join(app, 'package.json'), JSON.stringify(pkg, null, 2));
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--silent'], app);
  return app;
}
