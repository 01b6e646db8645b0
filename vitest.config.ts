import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Starts DynamoDB Local and fauxqs once on free ports, and always stops them (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores here: more workers only fight over the CPU with DynamoDB Local's JVM.
    maxWorkers: 2,
  },
});
