// Importing this module installs navigator.locks where the browser lacks it.
import { install } from './index.js';

install();
