// 'navigator-locks-polyfill/esbuild': an esbuild plugin, `plugins: [webLocks()]`.

/** What the plugin is, structurally (assignable to esbuild's `Plugin`). */
export interface WebLocksEsbuildPlugin {
  name: string;
  setup(build: {
    initialOptions: { outdir?: string; outfile?: string; absWorkingDir?: string; write?: boolean };
    onEnd(callback: (result: { errors: unknown[] }) => void): void;
  }): void;
}

/**
 * Writes the lock worker and its .wasm next to the build's output (its outdir, or its
 * outfile's folder), where the bundled polyfill looks for them (format 'esm').
 */
export default function webLocks(): WebLocksEsbuildPlugin;
export { webLocks };
