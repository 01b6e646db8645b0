/**
 * The order test files start in, for `vitest run` on two workers. Vitest's own order runs the
 * files that took longest last time first, but a fresh clone (CI) has no such record and falls
 * back to the largest files first, which put the slowest files (bundles.test.ts alone is minutes
 * on a loaded machine) anywhere, often last, with one worker finishing them alone while the other
 * idled. So:
 *
 * 1. SLOWEST_FIRST, in that order (longest first keeps the two workers' ends close);
 * 2. then the template files of the `synth` project (vitest.config.ts) one after another, so
 *    each worker that takes one keeps its process for the next and synthesizes warm;
 * 3. then the rest in Vitest's order.
 *
 * Only the order changes: every file still runs, and the isolated ones each in a process of its own.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The slowest files of a full run, longest first (their durations: the run's own report). */
export const SLOWEST_FIRST = [
  'test/infra/bundles.test.ts',
  'test/http/webhooks-delivery.test.ts',
  'test/http/publishing.test.ts',
  // Not beside bundles.test.ts: its setup (a synthesis, a stack, a process per function) and the
  // synthesis's esbuild runs, both at once on a loaded machine, overran the setup's limit.
  'test/infra/function-environment.test.ts',
  'test/http/publishing-reliability.test.ts',
  'test/local/dynamodb-durability.test.ts',
  'test/http/threads.test.ts',
  'test/http/post-lifecycle.test.ts',
  'test/local/npm-start.test.ts',
  'test/admin/admin-cli.test.ts',
  'test/sdk/client.test.ts',
  'test/browser/settings-webhooks.test.ts',
  'test/browser/connect.test.ts',
  'test/browser/settings-workspaces-posts.test.ts',
];

/**
 * The files that only synthesize the app and read the templates (no local stack, no handler
 * loaded): the `synth` project runs them without a process per file, so CDK, cdk-nag and the
 * CloudFormation validator load and warm up once per worker instead of once per file.
 */
export const SYNTH_FILES = [
  'test/infra/first-deploy.test.ts',
  'test/infra/template.test.ts',
  'test/infra/reliability.test.ts',
  'test/infra/least-privilege.test.ts',
  'test/infra/media-uploads.test.ts',
  'test/infra/stack-layout.test.ts',
];

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rest = await super.sort(files);
    const relative = (spec: TestSpecification) => spec.moduleId.slice(this.ctx.config.root.length + 1);
    const rank = (spec: TestSpecification) => {
      const slow = SLOWEST_FIRST.indexOf(relative(spec));
      if (slow !== -1) return slow;
      const synth = SYNTH_FILES.indexOf(relative(spec));
      if (synth !== -1) return SLOWEST_FIRST.length + synth;
      return Number.MAX_SAFE_INTEGER;
    };
    // Array.prototype.sort is stable: the rest keep Vitest's order among themselves.
    return rest.sort((a, b) => rank(a) - rank(b));
  }
}
