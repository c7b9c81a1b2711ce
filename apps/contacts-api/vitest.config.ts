import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['@contacts/db/testing/global-setup'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
