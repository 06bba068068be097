// 'navigator-locks-polyfill/vite': a Vite plugin, `plugins: [webLocks()]` in vite.config.

/** What the plugin is, structurally (assignable to Vite's `Plugin`). */
export interface WebLocksVitePlugin {
  name: string;
  config(user: { build?: { assetsInlineLimit?: unknown } }): {
    optimizeDeps: { exclude: string[] };
    build: { assetsInlineLimit: (file: string, content: Uint8Array) => boolean | undefined };
  };
}

/**
 * Keeps the polyfill out of the dev server's dependency optimizer, so that its worker and
 * .wasm are served next to it (one URL for every page), and keeps both files out of a
 * build's asset inlining (a data: URL worker would have an opaque origin).
 */
export default function webLocks(): WebLocksVitePlugin;
export { webLocks };
