// A Vitest project (tests/apps/vitest) using the packed package's local lock manager as its
// setup file: the API cases pass in Vitest's node, jsdom and happy-dom environments, and
// `vitest run` exits by itself.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, fixtureApp, run } from '../fixtures.mjs';
import { cases } from './api-cases.mjs';

it('vitest run: every case passes in the node, jsdom and happy-dom environments', { timeout: 600_000 }, () => {
  const app = fixtureApp(join(ROOT, 'test-output/vitest'), 'vitest');
  copyFileSync(join(ROOT, 'tests/node/api-cases.mjs'), join(app, 'api-cases.mjs'));
  const report = join(app, 'report.json');
  run(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--reporter=json', `--outputFile=${report}`], app, { CI: '1' });
  const results = JSON.parse(readFileSync(report, 'utf8'));
  const perFile = Object.fromEntries(
    results.testResults.map((file) => [
      file.name.split('/').pop(),
      file.assertionResults.map((test) => test.status).filter((status) => status === 'passed').length,
    ]),
  );
  const expected = cases({}).length + 1;
  assert.deepEqual(perFile, { 'happy-dom.test.js': expected, 'jsdom.test.js': expected, 'node.test.js': expected });
  assert.equal(results.numFailedTests, 0);
});
