/**
 * One local stack per test file, on the emulators test/global-setup.ts started: the HTTP API, the
 * Scheduler stand-in and (when asked) the sandbox platforms, queue consumers and sweeper, in this
 * test worker, with their own tables, queues and media bucket (a random name prefix). So a test
 * file's consumers and sweeper only ever see its own posts and messages, while every file still
 * shares one DynamoDB Local JVM.
 *
 * The handlers read their configuration when first imported, so start one stack per test file
 * (in beforeAll) and stop it in afterAll.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { dynamoDbClientFor, deleteTables } from '../../local/dynamodb-local.js';
import { deleteQueues } from '../../local/messaging.js';
import { startStackServices, type RunningStack, type StackServicesOptions } from '../../local/stack.js';

export type TestStackOptions = Pick<
  StackServicesOptions,
  'consumers' | 'sweeper' | 'streams' | 'sandbox' | 'env' | 'visibilityTimeoutSeconds' | 'sweeperIntervalMs' | 'functions'
>;

export type TestStack = RunningStack;

export async function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const endpoints = inject('localAws');
  const dataDir = await mkdtemp(join(tmpdir(), 'social-api-test-'));
  // Lower-case hex: valid in table, queue and bucket names alike.
  const prefix = `t${randomBytes(4).toString('hex')}-`;
  let stack: RunningStack;
  try {
    stack = await startStackServices({ ...options, endpoints, dataDir, prefix, port: 0 });
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    ...stack,
    stop: () =>
      (stopping ??= (async () => {
        try {
          await stack.stop();
          const dynamo = dynamoDbClientFor(endpoints.dynamodbEndpoint);
          try {
            await deleteTables(dynamo, stack.tables);
          } finally {
            dynamo.destroy();
          }
          await deleteQueues(endpoints.sqsEndpoint, stack.queues);
        } finally {
          await rm(dataDir, { recursive: true, force: true });
        }
      })()),
  };
}
