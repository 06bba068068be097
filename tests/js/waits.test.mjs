// The end-to-end tests wait on what a page can answer at once: Playwright's waitForFunction
// does not await a predicate's promise, so an async predicate would be asked once and its
// first answer, true or false, taken (harness/browser.mjs's untilQuery asks query() again).
// Node built-ins only:
//   node --test tests/js/waits.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const scripts = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? scripts(join(dir, e.name)) : e.name.endsWith('.mjs') ? [join(dir, e.name)] : [],
  );

test('no test waits for a function that answers with a promise', () => {
  const found = [];
  for (const file of [...scripts(join(ROOT, 'tests/e2e')), ...scripts(join(ROOT, 'bench'))]) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/waitForFunction\(\s*async\b/.test(line)) found.push(`${relative(ROOT, file)}:${i + 1}`);
      });
  }
  assert.deepEqual(found, [], 'use untilQuery (or a synchronous predicate) instead');
});
