// Loaded by the dev server's ssrLoadModule (server-side rendering): the entries import on
// the server, where install() does nothing.
import 'web-locks-polyfill/auto';
import { createLockManager, install } from 'web-locks-polyfill';

export const installed = install();
export const manager = createLockManager();
export const navigatorType = typeof globalThis.navigator;
