// Compiled with tsc (npm test) under `moduleResolution: "node"` (node10, older tsconfigs),
// which reads no `exports`: every entry's declarations are found through `typesVersions`.
import { createLockManager, install } from 'navigator-locks-polyfill';
import { findDeadlocks, type Deadlock } from 'navigator-locks-polyfill/deadlocks';
import { queryScopes, requestAll } from 'navigator-locks-polyfill/scopes';
import webLocks, { type WebLocksVitePlugin } from 'navigator-locks-polyfill/vite';
import 'navigator-locks-polyfill/auto';
import 'navigator-locks-polyfill/local';
import 'navigator-locks-polyfill/global';
import 'navigator-locks-polyfill/global-extras';

const manager: LockManager | undefined = install();
const local: LockManager = createLockManager({ local: true });
const deadlocks: Promise<Deadlock[]> = local.query().then(findDeadlocks);
const all: Promise<number> = requestAll(['a', 'b'], () => 1);
const scopes = queryScopes();
const plugin: WebLocksVitePlugin = webLocks();
export { all, deadlocks, manager, plugin, scopes };
