/**
 * Starts the emulators every test file shares, once per `vitest run`: DynamoDB Local (in memory,
 * on a free port) and fauxqs (SQS + S3, on a free port). Test files reach them through
 * `inject('localAws')`; test/support/stack.ts starts a stack on top of them with its own tables,
 * queues and bucket, so test files running in parallel never see each other's data or messages.
 *
 * Teardown always stops both; if vitest itself dies, local/child-guard.ts kills the JVM.
 */
import type { TestProject } from 'vitest/node';
import { dynamoDbClientFor, ensureTables, startDynamoDbLocal, tableNames, type DynamoDbLocal, type TableNames } from '../local/dynamodb-local.js';
import { startFauxqsServer, type Fauxqs } from '../local/messaging.js';
import type { StackEndpoints } from '../local/stack.js';
import { buildApiReference } from '../web/api-reference/build.js';

export interface LocalAws extends StackEndpoints {
  /** Unprefixed tables for store-level tests that run no stack (no sweeper reads them). */
  sharedTables: TableNames;
}

declare module 'vitest' {
  export interface ProvidedContext {
    localAws: LocalAws;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let dynamo: DynamoDbLocal | undefined;
  let fauxqs: Fauxqs | undefined;
  const teardown = async (): Promise<void> => {
    await fauxqs?.stop();
    await dynamo?.stop();
  };
  try {
    // Built once here, before the test files' stacks each check it is current (local/stack.ts).
    buildApiReference();
    dynamo = await startDynamoDbLocal({ dataDir: null });
    fauxqs = await startFauxqsServer();
    const sharedTables = tableNames();
    const client = dynamoDbClientFor(dynamo.endpoint);
    try {
      await ensureTables(client, sharedTables);
    } finally {
      client.destroy();
    }
    project.provide('localAws', {
      dynamodbEndpoint: dynamo.endpoint,
      s3Endpoint: fauxqs.endpoint,
      sqsEndpoint: fauxqs.sqsEndpoint,
      sharedTables,
    });
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}
