// A Vite project's config, as README tells users: the plugin (for the dev server), and two
// pages for the build.
import { fileURLToPath } from 'node:url';
import webLocks from 'navigator-locks-polyfill/vite';

const page = (path) => fileURLToPath(new URL(path, import.meta.url));

export default {
  plugins: [webLocks()],
  build: { rollupOptions: { input: { main: page('./index.html'), other: page('./other/index.html') } } },
};
