// Loaded by the dev server's ssrLoadModule (server-side rendering): the entries import on
// the server, where install() does nothing.
import 'navigator-locks-polyfill/auto';
import { createLockManager, install } from 'navigator-locks-polyfill';

export const installed = install();
export const manager = createLockManager();
export const navigatorType = typeof globalThis.navigator;
