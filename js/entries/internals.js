// What the separately built extension entry (dist/scopes.js) shares with dist/index.js: one
// copy of the lock manager's internals per page, so that it recognises this package's
// managers. Exported by js/entries/index.js as `__internals` (not part of the public API).
import { abortReason, addAbortAlgorithm, domException, reasons } from '../client/errors.js';
import { checkRequest, connectionOf, readArguments, scopeRuns, sendRequest } from '../client/lock-manager.js';
import { toDOMString, toLockOptions } from '../client/webidl.js';

export const __internals = {
  abortReason,
  addAbortAlgorithm,
  domException,
  reasons,
  checkRequest,
  connectionOf,
  readArguments,
  scopeRuns,
  sendRequest,
  toDOMString,
  toLockOptions,
};
