// Importing 'navigator-locks-polyfill/auto' installs navigator.locks where missing; no exports.
export {};
