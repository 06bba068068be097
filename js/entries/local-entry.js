// Importing this module installs an in-process navigator.locks where the runtime has none
// (Node, jsdom, happy-dom, test runners): it coordinates this realm only (README).
import { install } from './index.js';

install({ local: true });
