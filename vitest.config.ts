import { defineConfig } from 'vitest/config';
import SlowestFirst, { SYNTH_FILES } from './test/sequencer.js';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores here: more workers only fight over the CPU with DynamoDB Local's JVM.
    maxWorkers: 2,
    // The slowest files first, whether or not Vitest has timings from an earlier run (test/sequencer.ts).
    sequence: { sequencer: SlowestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: SYNTH_FILES,
          // Starts DynamoDB Local and fauxqs once on free ports, and always stops them (test/global-setup.ts).
          globalSetup: ['test/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          // Template-only files (no local stack): one process per worker for all of them, so the CDK
          // app's libraries and the CloudFormation validator load once per worker, not once per
          // file. Each file still synthesizes its own app; nothing of a synthesis is shared.
          name: 'synth',
          include: SYNTH_FILES,
          isolate: false,
          // Each of these synthesizes the app: seconds of CPU, minutes on a loaded machine (test/infra/synth.ts).
          testTimeout: 180_000,
        },
      },
    ],
  },
});
