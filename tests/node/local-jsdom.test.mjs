// The local entry in a jsdom environment: installed on jsdom's Navigator, exact behaviour.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import { exposeWindow } from './dom-globals.mjs';
import { runCases } from './run-cases.mjs';

const { window } = new JSDOM('<!doctype html>', { url: 'http://localhost:3000/' });
exposeWindow(window);
assert.equal(navigator.locks, undefined);
await import('../../dist/local.js');

it("installs on jsdom's Navigator.prototype", () => {
  assert.ok(Object.getOwnPropertyDescriptor(window.Navigator.prototype, 'locks'));
  assert.equal(window.navigator.locks, navigator.locks);
});

await runCases();
