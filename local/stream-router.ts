/**
 * What Lambda's DynamoDB Streams event source mapping does on AWS, locally: DynamoDB Local serves
 * the same Streams API (DescribeStream, GetShardIterator, GetRecords), and this poller reads each
 * table's stream shard by shard, in order, every ~150 ms (GetRecords as plain JSON,
 * stream-records.ts, which also gives each record Lambda's shape), and hands the records to the router's
 * handler (functions/webhook-router.ts) as real DynamoDBStreamEvents, as the mapping does: up to
 * 1,000 records per GetRecords, the mapping's filters applied, what passes cut into batches of at
 * most the batch size (100), and up to ParallelizationFactor (4) batches of a shard handled at
 * once, split by partition key so one item's records stay in order (handOver).
 *
 * The checkpoint (per shard, the sequence number of the last record read and handled) lives in
 * DATA_DIR/streams/<table>.json and is written only AFTER every batch of a read returned, with a
 * rename so a kill cannot tear it: a process killed mid-read starts again after its last finished
 * read and hands those records to the router again (which writes nothing twice), never skipping
 * one. A read whose batch the handler fails is retried from the checkpoint after a pause, as the
 * mapping retries on AWS.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetShardIteratorCommand,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { matchesStreamFilter, WEBHOOK_ROUTER_PARALLELIZATION, WEBHOOK_STREAM_FILTERS, type StreamFilterPattern } from '../lib/store/webhook-stream-filters.js';
import { dynamoDbClientFor } from './dynamodb-local.js';
import { lambdaContext, loadHandler } from './lambda-runtime.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.js';
import { getStreamRecords } from './stream-records.js';

export interface StreamRouterOptions {
  dynamodbEndpoint: string;
  /** Physical names of the tables whose streams are read. */
  tables: readonly string[];
  /** Where the checkpoints are kept (DATA_DIR/streams). */
  checkpointDir: string;
  /** The handler module (functions/webhook-router.ts), loaded like every local Lambda. */
  entry: string;
  name?: string;
  /** Pause between polls of a shard with nothing new. */
  intervalMs?: number;
  /** Per table (physical name), a pause of its own between polls with nothing new (routerIdleIntervals). */
  idleIntervalsMs?: Readonly<Record<string, number>>;
  /** Records per batch handed over, after the filters (the mapping's batch size). */
  batchSize?: number;
  /** Records read per GetRecords, before the filters (a mapping's poller reads up to 1,000). */
  readLimit?: number;
  /**
   * Batches of one shard handled at once (the mapping's ParallelizationFactor): the records read are
   * split by partition key, so one item's records stay in order in one batch sequence.
   */
  parallelization?: number;
  /**
   * Where a shard without a checkpoint is read from: its oldest record (TRIM_HORIZON, as the mapping
   * on AWS; the default) or only what is written from now on (LATEST: the bench, whose seeded
   * 100,000 posts have no endpoint to route to and must not be read during its measurements).
   */
  startAt?: 'oldest' | 'latest';
  /**
   * Per table (physical name), the event filter patterns of its mapping on AWS: a record matching
   * none is not handed over (as Lambda drops it); a table without an entry passes everything.
   */
  filters?: Readonly<Record<string, readonly StreamFilterPattern[]>>;
  /** Tests: what handling a batch means (default: the entry's handler). */
  invoke?: (event: DynamoDBStreamEvent) => Promise<void>;
  log?: (message: string, error?: unknown) => void;
}

export interface StreamRouter {
  stop(): Promise<void>;
}

/** How a table's records are read: its mapping's filters, its partition key's attribute, and its pause when idle. */
interface Reading {
  filters: readonly StreamFilterPattern[] | null;
  hashKey: string | null;
  idleMs: number;
}

interface Checkpoint {
  streamArn: string;
  /** Per shard: the last sequence number handled (null: none yet) and whether the shard is finished. */
  shards: Record<string, { sequenceNumber: string | null; closed: boolean }>;
}

async function readCheckpoint(file: string): Promise<Checkpoint | null> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Checkpoint;
    return typeof parsed.streamArn === 'string' && typeof parsed.shards === 'object' ? parsed : null;
  } catch {
    return null;
  }
}

async function writeCheckpoint(file: string, checkpoint: Checkpoint): Promise<void> {
  const temporary = `${file}.tmp`;
  await writeFile(temporary, JSON.stringify(checkpoint));
  await rename(temporary, file);
}

/**
 * How long a shard of the webhook router's tables with nothing new waits for its next read: the
 * posts table's every 150 ms (the default), the directory table's once a second. DynamoDB Local
 * pays for an empty read of a stream in proportion to the records other tables' streams took since
 * that stream's last one, and the directory (accounts, rarely written) falls far behind the posts
 * table: read as often as the posts table, its empty reads slowed the bench's 2,000-post burst
 * several times over (docs/performance.md, "Figures behind the code"). An account event reaches
 * the router within about a second; on AWS each mapping polls four times a second at no cost to
 * the table.
 */
export function routerIdleIntervals(tables: Readonly<Record<keyof typeof WEBHOOK_STREAM_FILTERS, string>>): Record<string, number> {
  return { [tables.directory]: 1_000 };
}

/** The webhook router's filters by physical table name, as its mappings have them on AWS. */
export function routerFilters(tables: Readonly<Record<keyof typeof WEBHOOK_STREAM_FILTERS, string>>): Record<string, readonly StreamFilterPattern[]> {
  return Object.fromEntries(Object.entries(WEBHOOK_STREAM_FILTERS).map(([name, patterns]) => [tables[name as keyof typeof WEBHOOK_STREAM_FILTERS], patterns]));
}

export async function startStreamRouter(options: StreamRouterOptions): Promise<StreamRouter> {
  const log = options.log ?? ((message: string, error?: unknown) => console.error(`[streams] ${message}`, error ?? ''));
  const intervalMs = options.intervalMs ?? 150;
  const batchSize = options.batchSize ?? 100;
  const readLimit = options.readLimit ?? 1000;
  const parallelization = options.parallelization ?? WEBHOOK_ROUTER_PARALLELIZATION;
  const startAt = options.startAt ?? 'oldest';
  /**
   * Per shard, the iterator where the last read left off: the shards are looked at again every 2 s
   * (a new or split shard), and reading on from here instead of asking for a new iterator saves a
   * GetShardIterator each time and never skips what a new LATEST iterator would.
   */
  const iterators = new Map<string, string>();
  const name = options.name ?? 'WebhookRouter';
  const abort = new AbortController();
  // The SDK's standard retries, as the mapping's own reads are retried on AWS: a transient error of
  // the emulator costs a backoff, not the 1 s pause below.
  const dynamo = dynamoDbClientFor(options.dynamodbEndpoint, { retries: 'standard' });
  const streams = new DynamoDBStreamsClient({ endpoint: options.dynamodbEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, retryMode: 'standard', maxAttempts: 3 });
  await mkdir(options.checkpointDir, { recursive: true });
  const invoke =
    options.invoke ??
    (async (event: DynamoDBStreamEvent): Promise<void> => {
      const handler = await loadHandler(options.entry);
      await handler(event, lambdaContext(name, 60_000));
    });

  const pause = (ms: number): Promise<void> => sleep(ms, undefined, { signal: abort.signal }).catch(() => undefined);

  async function shardsOf(streamArn: string): Promise<Shard[]> {
    const shards: Shard[] = [];
    let start: string | undefined;
    do {
      const out = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ...(start ? { ExclusiveStartShardId: start } : {}) }));
      shards.push(...(out.StreamDescription?.Shards ?? []));
      start = out.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    return shards;
  }

  async function iteratorFor(streamArn: string, shardId: string, sequenceNumber: string | null): Promise<string | undefined> {
    const out = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ...(sequenceNumber === null
          ? { ShardIteratorType: startAt === 'latest' ? 'LATEST' : 'TRIM_HORIZON' }
          : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: sequenceNumber }),
      }),
    );
    return out.ShardIterator;
  }

  async function pollTable(table: string): Promise<void> {
    const file = join(options.checkpointDir, `${table}.json`);
    while (!abort.signal.aborted) {
      try {
        const described = await dynamo.send(new DescribeTableCommand({ TableName: table }));
        const streamArn = described.Table?.LatestStreamArn;
        if (!streamArn) {
          await pause(1000);
          continue;
        }
        const stored = await readCheckpoint(file);
        // A table made anew has a new stream: its old checkpoint says nothing about it.
        const checkpoint: Checkpoint = stored?.streamArn === streamArn ? stored : { streamArn, shards: {} };
        const hashKey = described.Table?.KeySchema?.find((key) => key.KeyType === 'HASH')?.AttributeName ?? null;
        await pollStream(file, streamArn, checkpoint, { filters: options.filters?.[table] ?? null, hashKey, idleMs: options.idleIntervalsMs?.[table] ?? intervalMs });
      } catch (error) {
        if (abort.signal.aborted) return;
        log(`${name}: reading the stream of ${table} failed; trying again`, error);
        await pause(1000);
      }
    }
  }

  /** Reads every open shard (parents first) until the set of shards changes, then returns to look again. */
  async function pollStream(file: string, streamArn: string, checkpoint: Checkpoint, reading: Reading): Promise<void> {
    const shards = await shardsOf(streamArn);
    const known = new Set(shards.map((shard) => shard.ShardId));
    const open = shards.filter((shard) => shard.ShardId && !checkpoint.shards[shard.ShardId]?.closed);
    // A child shard waits until its parent is finished (or gone from the stream), as on AWS.
    const ready = open.filter((shard) => !shard.ParentShardId || !known.has(shard.ParentShardId) || checkpoint.shards[shard.ParentShardId]?.closed);
    if (ready.length === 0) {
      await pause(reading.idleMs);
      return;
    }
    const rediscoverAt = Date.now() + 2000;
    await Promise.all(ready.map((shard) => pollShard(file, streamArn, checkpoint, shard.ShardId ?? '', rediscoverAt, reading)));
  }

  async function pollShard(
    file: string,
    streamArn: string,
    checkpoint: Checkpoint,
    shardId: string,
    until: number,
    reading: Reading,
  ): Promise<void> {
    const state = (checkpoint.shards[shardId] ??= { sequenceNumber: null, closed: false });
    try {
      await readShard(file, streamArn, checkpoint, state, shardId, until, reading);
    } catch (error) {
      if ((error as { name?: string }).name !== 'TrimmedDataAccessException') throw error;
      if (state.sequenceNumber === null) {
        // DynamoDB Local answers a read of a new, still empty shard this way: nothing to lose yet.
        await pause(intervalMs);
        return;
      }
      // The checkpoint is older than the stream keeps (24 h): what lay between is gone, as it would
      // be for a mapping on AWS; say so and go on from the oldest record there is.
      log(`${name}: the checkpoint of ${shardId} is older than the stream's retention; reading from its oldest record`);
      state.sequenceNumber = null;
      await writeCheckpoint(file, checkpoint);
    }
  }

  async function readShard(
    file: string,
    streamArn: string,
    checkpoint: Checkpoint,
    state: Checkpoint['shards'][string],
    shardId: string,
    until: number,
    { filters, hashKey, idleMs }: Reading,
  ): Promise<void> {
    const key = `${streamArn} ${shardId}`;
    let iterator = iterators.get(key) ?? (await iteratorFor(streamArn, shardId, state.sequenceNumber));
    // Kept only while a read from it succeeds and its batch was handled: otherwise the next
    // look starts again from the checkpoint.
    iterators.delete(key);
    while (!abort.signal.aborted && iterator) {
      const out = await getStreamRecords(options.dynamodbEndpoint, { shardIterator: iterator, limit: readLimit, streamArn });
      const records = out.records;
      const passed = records.filter((record) => filters === null || filters.some((pattern) => matchesStreamFilter(record, pattern)));
      if (records.length > 0) {
        try {
          await handOver(passed, hashKey);
        } catch (error) {
          log(`${name} failed on a batch of the ${records.length} record(s) read; they are handled again from the checkpoint`, error);
          await pause(1000);
          return;
        }
        // Only now, after every batch of the read finished: a kill before this line replays them.
        state.sequenceNumber = records[records.length - 1]?.dynamodb?.SequenceNumber ?? state.sequenceNumber;
        await writeCheckpoint(file, checkpoint);
      }
      iterator = out.nextShardIterator;
      if (!iterator) {
        state.closed = true;
        await writeCheckpoint(file, checkpoint);
        return;
      }
      if (records.length === 0) {
        if (Date.now() > until) {
          iterators.set(key, iterator);
          return;
        }
        await pause(idleMs);
      }
    }
  }

  /**
   * The records of one read, as the mapping hands them over: split by partition key into up to
   * `parallelization` sequences (one item's records in one sequence, in stream order), each cut into
   * batches of at most `batchSize` handled one after another, the sequences at the same time. Done
   * when every batch is; a failed one fails the read (after the others end), which is then handled
   * again whole from the checkpoint: the router writes nothing twice.
   */
  async function handOver(passed: readonly DynamoDBRecord[], hashKey: string | null): Promise<void> {
    if (passed.length === 0) return;
    const sequences: DynamoDBRecord[][] = Array.from({ length: parallelization }, () => []);
    for (const record of passed) {
      const keys = record.dynamodb?.Keys as Record<string, unknown> | undefined;
      const partition = JSON.stringify(hashKey !== null && keys ? keys[hashKey] : keys);
      sequences[createHash('sha256').update(partition).digest().readUInt32BE(0) % parallelization]!.push(record);
    }
    const ended = await Promise.allSettled(
      sequences.map(async (sequence) => {
        for (let start = 0; start < sequence.length; start += batchSize) await invoke({ Records: sequence.slice(start, start + batchSize) });
      }),
    );
    const failure = ended.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failure) throw failure.reason;
  }

  const running = options.tables.map((table) => pollTable(table));
  let stopping: Promise<void> | undefined;
  return {
    stop: () =>
      (stopping ??= (async () => {
        abort.abort();
        await Promise.allSettled(running);
        streams.destroy();
        dynamo.destroy();
      })()),
  };
}
