// 'web-locks-polyfill/vite': a Vite plugin, `plugins: [webLocks()]` in vite.config.

/** What the plugin is, structurally (assignable to Vite's `Plugin`). */
export interface WebLocksVitePlugin {
  name: string;
  config(): { optimizeDeps: { exclude: string[] } };
}

/**
 * Keeps the polyfill out of the dev server's dependency optimizer, so that its worker and
 * .wasm are served next to it (one URL for every page). Builds need nothing of it.
 */
export default function webLocks(): WebLocksVitePlugin;
export { webLocks };
