/**
 * Reliability settings of the deployed service (issue 10, item 13), read off the synthesized
 * templates: the publish worker may have concurrency of its own (a setting), so API traffic cannot starve it; the
 * workers may write only connected accounts' items of the directory, never API keys or users;
 * allowance counters live in a table with a TTL (the expiry itself: test/store/allowance-counter.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { App } from 'aws-cdk-lib';
import { QUEUE_CONSUMERS, API_ROUTES, SWEEPER, DEFAULT_ROUTE } from '../../functions/catalogue.js';
import { TABLE_ACTIONS } from '../../infra/constructs/bindings.js';
import { PUBLISH_RESERVED_CONCURRENCY_CONTEXT } from '../../infra/stacks/api-stack.js';
import { buildService } from '../../infra/stacks/service.js';
import { ACCOUNT_KEY_PREFIX, DIRECTORY_KEY_PREFIXES } from '../../lib/store/tables.js';
import { grantsOfRole, logicalId, synthesize, SYNTH_TEST_TIMEOUT_MS } from './synth.js';
import type { CfnResource, Synthesized } from './synth.js';

// Some tests synthesize the app again with other settings: seconds of CPU each, minutes on a loaded machine.
vi.setConfig({ testTimeout: SYNTH_TEST_TIMEOUT_MS });

let s: Synthesized;
beforeAll(() => {
  s = synthesize({ bundle: false });
});
afterAll(() => s?.cleanup());

const ALL_FUNCTIONS = [...API_ROUTES.map((r) => r.name), ...QUEUE_CONSUMERS.map((c) => c.name), SWEEPER.name, DEFAULT_ROUTE.name];
const WRITES = TABLE_ACTIONS.readWrite.filter((action) => !TABLE_ACTIONS.read.includes(action));

function functionProperties(synth: Synthesized, name: string): Record<string, unknown> {
  const fn = synth.service.api.functions.get(name);
  if (!fn) throw new Error(`No function ${name}`);
  return (synth.apiJson.Resources[logicalId(fn)] as CfnResource).Properties ?? {};
}

function grantsOf(name: string) {
  return grantsOfRole(s, logicalId(s.service.api.functions.get(name)!.role!));
}

describe('publish worker concurrency', () => {
  it('reserves nothing by default: a new account (quota 10, Lambda keeps 100 unreserved) could not create the stack', () => {
    for (const name of ALL_FUNCTIONS) {
      expect(functionProperties(s, name).ReservedConcurrentExecutions, name).toBeUndefined();
    }
  });

  it('is a deploy-time setting: reserved for the publish worker alone, at least the maxConcurrency its queue may use', () => {
    const reserved = synthesize({ bundle: false, context: { [PUBLISH_RESERVED_CONCURRENCY_CONTEXT]: '100' } });
    try {
      const mapping = Object.values(reserved.apiJson.Resources).find(
        (resource) =>
          resource.Type === 'AWS::Lambda::EventSourceMapping' &&
          JSON.stringify(resource.Properties?.FunctionName).includes(logicalId(reserved.service.api.functions.get('PublishWorker')!)),
      );
      const maxConcurrency = (mapping?.Properties?.ScalingConfig as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency ?? 0;
      expect(maxConcurrency).toBeGreaterThan(0);
      const reservedConcurrency = functionProperties(reserved, 'PublishWorker').ReservedConcurrentExecutions as number;
      expect(reservedConcurrency).toBe(100);
      expect(reservedConcurrency).toBeGreaterThanOrEqual(maxConcurrency);
      for (const name of ALL_FUNCTIONS.filter((other) => other !== 'PublishWorker')) {
        expect(functionProperties(reserved, name).ReservedConcurrentExecutions, name).toBeUndefined();
      }
    } finally {
      reserved.cleanup();
    }
    const none = synthesize({ bundle: false, context: { [PUBLISH_RESERVED_CONCURRENCY_CONTEXT]: 0 } });
    try {
      expect(functionProperties(none, 'PublishWorker').ReservedConcurrentExecutions).toBeUndefined();
    } finally {
      none.cleanup();
    }
    const app = new App({ context: { [PUBLISH_RESERVED_CONCURRENCY_CONTEXT]: '2', 'aws:cdk:bundling-stacks': [] } });
    expect(() => buildService(app)).toThrow(/publishWorkerReservedConcurrency must be 0 \(none\) or a whole number of at least/);
  });
});

describe('directory writes of the workers', () => {
  it.each(['PublishWorker', 'PlatformDeletionWorker'])('%s may write only items under ACCOUNT#, and read anything', (name) => {
    const onDirectory = grantsOf(name).filter((grant) => grant.resources.includes('table:directory'));
    const writing = onDirectory.filter((grant) => grant.actions.some((action) => WRITES.includes(action)));
    expect(writing.length).toBeGreaterThan(0);
    for (const grant of writing) {
      expect(grant.resources).toEqual(['table:directory']);
      expect(grant.conditions).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${ACCOUNT_KEY_PREFIX}*`] } });
    }
    // The writes the token refresh and tokenHealth need are all there, under the condition.
    expect(writing.flatMap((grant) => grant.actions).sort()).toEqual([...WRITES].sort());
    const reading = onDirectory.filter((grant) => grant.conditions === undefined);
    expect(reading.flatMap((grant) => grant.actions).sort()).toEqual([...TABLE_ACTIONS.read].sort());
  });

  // The sweeper writes account items only (marking an account expiring): least-privilege.test.ts checks that condition.
  it('the posts API may not write the directory at all', () => {
    for (const name of ['ListPosts', 'GetPost', 'ListAccounts', 'GetQueue', 'NextQueueSlots', 'RouteNotFound']) {
      const writes = grantsOf(name)
        .filter((grant) => grant.resources.includes('table:directory'))
        .flatMap((grant) => grant.actions.filter((action) => WRITES.includes(action)));
      expect(writes, name).toEqual([]);
    }
  });

  // A queued post takes its slot (an item under QUEUE#) in its own transaction, and gives it back
  // with its cancel or a new time: these may write those items and nothing else of the directory.
  it.each(['CreatePosts', 'DeletePost', 'UpdatePost', 'PublishDraft', 'RetryPost', 'PutQueue'])(
    '%s may write only the queues\' items (QUEUE#) of the directory',
    (name) => {
      const writing = grantsOf(name)
        .filter((grant) => grant.resources.includes('table:directory'))
        .filter((grant) => grant.actions.some((action) => WRITES.includes(action)));
      expect(writing.length, name).toBeGreaterThan(0);
      for (const grant of writing) {
        expect(grant.conditions, name).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${DIRECTORY_KEY_PREFIXES.queue}*`] } });
      }
    },
  );
});

describe('allowance counters', () => {
  it('live in the counters table, whose TTL attribute is the one the store sets (expiresAt)', () => {
    const table = s.dataJson.Resources[logicalId(s.service.data.tables.counters)];
    expect(table?.Properties?.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
  });
});
