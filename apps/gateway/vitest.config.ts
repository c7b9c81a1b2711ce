import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['@contacts/db/testing/global-setup'],
    testTimeout: 30_000,
    hookTimeout: 90_000,
    // The multi-replica run spawns processes and a browser: one file at a time.
    fileParallelism: false,
  },
});
