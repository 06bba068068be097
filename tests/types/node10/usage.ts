// Compiled with tsc (npm test) under `moduleResolution: "node"` (node10, older tsconfigs),
// which reads no `exports`: every entry's declarations are found through `typesVersions`.
import { createLockManager, install } from 'web-locks-polyfill';
import { findDeadlocks, type Deadlock } from 'web-locks-polyfill/deadlocks';
import { queryScopes, requestAll } from 'web-locks-polyfill/scopes';
import webLocks, { type WebLocksVitePlugin } from 'web-locks-polyfill/vite';
import 'web-locks-polyfill/auto';
import 'web-locks-polyfill/local';
import 'web-locks-polyfill/global';
import 'web-locks-polyfill/global-extras';

const manager: LockManager | undefined = install();
const local: LockManager = createLockManager({ local: true });
const deadlocks: Promise<Deadlock[]> = local.query().then(findDeadlocks);
const all: Promise<number> = requestAll(['a', 'b'], () => 1);
const scopes = queryScopes();
const plugin: WebLocksVitePlugin = webLocks();
export { all, deadlocks, manager, plugin, scopes };
