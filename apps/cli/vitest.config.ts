import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['@contacts/db/testing/global-setup'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
