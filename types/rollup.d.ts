// 'navigator-locks-polyfill/rollup': a Rollup plugin, `plugins: [nodeResolve(), webLocks()]`.

/** What the plugin is, structurally (assignable to Rollup's `Plugin`). */
export interface WebLocksRollupPlugin {
  name: string;
  generateBundle(this: { emitFile(file: { type: 'asset'; fileName: string; source: Uint8Array }): string }): void;
}

/**
 * Emits the lock worker and its .wasm at the output folder's root, next to the chunks, where
 * the bundled polyfill looks for them (ES module output).
 */
export default function webLocks(): WebLocksRollupPlugin;
export { webLocks };
