// The server-side runtimes tests/node/runtimes.test.mjs imports the package in, each an npm
// package at a fixed version, run with npx. `npm run setup` fetches them into npm's cache
// (`node tests/node/runtimes.mjs`); the test runs them from there, offline.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// [package, its arguments before the script], and whether the runtime has a navigator.locks
// of its own.
export const RUNTIMES = {
  'Node 18': [['node@18.20.8'], false],
  'Node 22': [['node@22.23.3'], false],
  'Node 24': [['node@24.21.0'], true],
  Bun: [['bun@1.4.5'], false],
  Deno: [['deno@2.9.6', 'run', '--allow-read'], true],
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [[pkg]] of Object.values(RUNTIMES)) {
    const version = execFileSync('npx', ['-y', pkg, '--version'], { encoding: 'utf8' }).trim().split('\n')[0];
    console.log(`setup: ${pkg} in npm's cache: ${version}`);
  }
}
