// A project's Vitest config with the polyfill's in-process lock manager: one setup file.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    setupFiles: ['navigator-locks-polyfill/local'],
  },
});
