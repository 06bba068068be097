// Compiled with tsc (npm test): the package's types with no DOM lib and no @types/node.
import { install } from 'navigator-locks-polyfill';
import { requestAll } from 'navigator-locks-polyfill/scopes';
import 'navigator-locks-polyfill/local';

const locks: LockManager = install({ local: true });
export const n: Promise<number> = locks.request('x', { ifAvailable: true }, (lock) => (lock ? 1 : 0));
export const all: Promise<string> = requestAll(['x', 'y'], { manager: locks, timeout: 100 }, (scope) => (scope ? scope.names.join() : ''));
