// The local entry in a happy-dom environment (whose Navigator has a `locks` getter returning
// null, and whose MessagePort is a class of its own): installed, exact behaviour.
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { Window } from 'happy-dom';
import { exposeWindow } from './dom-globals.mjs';
import { runCases } from './run-cases.mjs';

const window = new Window({ url: 'http://localhost:3000/' });
exposeWindow(window);
assert.equal(navigator.locks, null);
assert.notEqual(MessagePort, Object.getPrototypeOf(new MessageChannel().port1).constructor);
await import('../../dist/local.js');
after(() => window.happyDOM.close());

it("installs on happy-dom's Navigator.prototype", () => {
  assert.equal(window.navigator.locks, navigator.locks);
  assert.ok(navigator.locks instanceof globalThis.LockManager);
});

// happy-dom's windows (a second Window, an iframe's) share one Navigator class, so one
// prototype and getter: theirs is this realm's lock manager too (it recursed without end).
it("another happy-dom window's navigator: this realm's lock manager", () => {
  const other = new Window({ url: 'http://localhost:3000/' });
  assert.equal(Object.getPrototypeOf(other.navigator), Object.getPrototypeOf(navigator));
  assert.equal(other.navigator.locks, navigator.locks);
  other.happyDOM.close();
});

await runCases();
