/**
 * The floors of the burst figures (issue 30): what this machine, in this run, with the same parts,
 * takes for a burst when none of the service's own logic is in it.
 *
 * Publish lag floor: N bare creates sent at one whole second T to the sandbox platforms, through
 * the service's own platform clients (lib/platforms, the same HTTP stack the worker sends with),
 * with the accounts' tokens read and decrypted beforehand (the worker prepares them before the
 * second), all N at once as the worker sends a held burst, each followed by its outcome write (a
 * PutItem of the published post item, lib/store/post-item.ts, so the table's indexes and stream
 * do what an outcome makes them do). No claim, no lease, no marker, no queue. A post's lag is its
 * platform answer - T, as the service's `publishedAt` is the answer's time.
 *
 * Webhook lag floor (with `endpoints`): the same outcome writes are the item updates; a reader
 * polls the posts table's stream as the local stream poller does (every 150 ms, GetRecords as
 * plain JSON, local/stream-records.ts), and each record of a floor post becomes a signed body
 * (lib/domain/webhooks.ts signedHeaders) POSTed by the service's webhook sender
 * (lib/egress/webhook-sender.ts) to the receiver, on ENDPOINT_IN_FLIGHT_LIMIT lanes per endpoint.
 * No router, no queue, no delivery records, no claims, no slots. Its lag is arrival - the post's
 * updatedAt (the answer's time, as for the service's events).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { BatchWriteItemCommand, DescribeTableCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { Account, Post } from '../lib/domain/model.js';
import { ENDPOINT_IN_FLIGHT_LIMIT, signedHeaders } from '../lib/domain/webhooks.js';
import { postToItem } from '../lib/store/post-item.js';
import type { PlatformPublisher } from '../lib/use-cases/ports/platform-publisher.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../local/local-aws.js';
import type { RunningStack } from '../local/stack.js';
import { getStreamRecords } from '../local/stream-records.js';
import { inParallel, log, sleep, type BenchUser } from './harness.js';
import type { LatencySummary } from './load-protocol.js';
import { summarize } from './stats.js';
import { seedPost } from './seed.js';
import { startLagReceiver } from './webhook-lag.js';

/** The local stream poller's interval (local/stream-router.ts), so the floor waits for the stream as the router does. */
const STREAM_POLL_MS = 150;

export interface BurstFloorFigures {
  posts: number;
  /** Sends in flight at once: all of them, as the worker sends a held burst at its second. */
  concurrency: number;
  /** Platform answer - T. */
  lagMs: LatencySummary;
  /** Outcome write done - T. */
  outcomeWrittenMs: LatencySummary;
  failed: number;
  webhooks?: { endpoints: number; lanesPerEndpoint: number; delivered: number; lagMs: LatencySummary };
}

interface Prepared {
  account: Account;
  accessToken: string;
}

/** The worker's client's sockets (lib/store/dynamo-client.ts): the floor's outcome writes go out as many at once. */
const WORKER_SOCKETS = 256;

export async function burstFloor(stack: RunningStack, setup: DynamoDBClient, user: BenchUser, posts: number, endpoints = 0): Promise<BurstFloorFigures> {
  const db = new DynamoDBClient({
    endpoint: stack.info.dynamodbEndpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    retryMode: 'standard',
    maxAttempts: 3,
    requestHandler: { httpAgent: { keepAlive: true, maxSockets: WORKER_SOCKETS } },
  });
  // As the worker's client: the SDK's logger middleware off (lib/store/dynamo-client.ts says why).
  db.middlewareStack.remove('loggerMiddleware');
  try {
    return await floorRun(stack, setup, db, user, posts, endpoints);
  } finally {
    db.destroy();
  }
}

async function floorRun(stack: RunningStack, setup: DynamoDBClient, db: DynamoDBClient, user: BenchUser, posts: number, endpoints: number): Promise<BurstFloorFigures> {
  // Imported only now, as harness.ts imports the provisioning helper: the stores' shared client reads
  // the stack's environment (SDK_METERING among it) when its module is first evaluated, and the
  // handlers of this process share that module.
  const [{ directoryStores }, { tokenCipherFromEnv }, { xClientFromEnv }, { linkedinClientFromEnv }] = await Promise.all([
    import('../lib/store/directory-stores.js'),
    import('../lib/store/token-cipher.js'),
    import('../lib/platforms/x-client.js'),
    import('../lib/platforms/linkedin-client.js'),
  ]);
  const { accounts } = directoryStores();
  const cipher = tokenCipherFromEnv();
  const publishers: Record<string, PlatformPublisher> = { x: xClientFromEnv(), linkedin: linkedinClientFromEnv() };
  // Prepared before the second, as the worker prepares a held post: account, token.
  const prepared: Prepared[] = [];
  for (const accountId of user.accountIds) {
    const { account, credentials } = await accounts.getAccountWithCredentials(accountId);
    if (!account || !credentials) throw new Error(`floor: account ${accountId} has no credentials`);
    prepared.push({ account, accessToken: await cipher.decrypt(credentials.accessTokenEncrypted, { accountId }) });
  }
  // The floor's posts, as drafts (out of the sweeper's way) of the same user, so each outcome write
  // moves an existing item between the status partitions as a real outcome does.
  const now = Date.now();
  const drafts: Post[] = Array.from({ length: posts }, (_, index) => {
    const target = prepared[index % prepared.length]!;
    return draftPost(user, target.account, `Floor ${index} ${randomUUID()}`, now);
  });
  await writeDrafts(setup, stack.tables.posts, drafts);

  const reader = endpoints > 0 ? await startFloorDeliveries(stack, new Set(drafts.map((post) => post.id)), endpoints) : undefined;
  try {
    const due = Math.ceil((Date.now() + 2_000) / 1000) * 1000;
    await sleep(due - Date.now());
    const answered: number[] = [];
    const written: number[] = [];
    let failed = 0;
    await inParallel(
      drafts.map((draft, index) => async () => {
        const target = prepared[index % prepared.length]!;
        const publisher = publishers[target.account.platform]!;
        try {
          const result = await publisher.publish({
            account: { id: target.account.id, platformUserId: target.account.platformUserId, handle: target.account.handle, accountType: target.account.accountType },
            accessToken: target.accessToken,
            text: draft.text ?? '',
            media: [],
            options: {},
          });
          const at = Date.now();
          answered.push(at - due);
          const iso = new Date(at).toISOString();
          const post: Post = { ...draft, status: 'published', scheduledFor: new Date(due).toISOString(), publishedAt: iso, updatedAt: iso, platformPostId: result.platformPostId, publishedUrl: result.publishedUrl };
          await db.send(new PutItemCommand({ TableName: stack.tables.posts, Item: marshall(postToItem(post), { removeUndefinedValues: true }) }));
          written.push(Date.now() - due);
        } catch (error) {
          failed += 1;
          if (failed === 1) log(`floor: a send failed: ${String(error)}`);
        }
      }),
      posts,
    );
    const figures: BurstFloorFigures = { posts, concurrency: posts, lagMs: summarize(answered), outcomeWrittenMs: summarize(written), failed };
    if (reader) figures.webhooks = await reader.finish(Date.now() + 60_000);
    return figures;
  } finally {
    await reader?.stop();
  }
}

function draftPost(user: BenchUser, account: Account, text: string, now: number): Post {
  const created = new Date(now).toISOString();
  // A post item as the service stores it (bench/seed.ts), made a fresh draft of this account.
  return {
    ...seedPost({ userId: user.userId, workspaceId: user.workspaceId, accountIds: [account.id] }, 0, now),
    // The floor's accounts are the bench's X and LinkedIn accounts (harness.ts provisionUsers).
    platform: account.platform as Post['platform'],
    status: 'draft',
    text,
    scheduledFor: created,
    createdAt: created,
    updatedAt: created,
    publishedAt: null,
    publishedUrl: null,
    platformPostId: null,
    error: null,
    allowanceCycle: null,
  };
}

async function writeDrafts(db: DynamoDBClient, table: string, drafts: readonly Post[]): Promise<void> {
  for (let start = 0; start < drafts.length; start += 25) {
    let requests: { PutRequest: { Item: Record<string, never> } }[] | undefined = drafts
      .slice(start, start + 25)
      .map((post) => ({ PutRequest: { Item: marshall(postToItem(post), { removeUndefinedValues: true }) as Record<string, never> } }));
    while (requests && requests.length > 0) {
      const out = await db.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests } }));
      requests = out.UnprocessedItems?.[table] as typeof requests;
    }
  }
}

interface FloorDeliveries {
  finish(deadline: number): Promise<NonNullable<BurstFloorFigures['webhooks']>>;
  stop(): Promise<void>;
}

/**
 * Reads the posts table's stream from now on and POSTs a signed body per floor post to one of
 * `endpoints` URLs of a receiver (post i to endpoint i mod endpoints), ENDPOINT_IN_FLIGHT_LIMIT at
 * once per endpoint.
 */
async function startFloorDeliveries(stack: RunningStack, ids: ReadonlySet<string>, endpoints: number): Promise<FloorDeliveries> {
  const endpoint = stack.info.dynamodbEndpoint;
  const streams = new DynamoDBStreamsClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, retryMode: 'standard', maxAttempts: 3 });
  const dynamo = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, retryMode: 'standard', maxAttempts: 3 });
  const streamArn = (await dynamo.send(new DescribeTableCommand({ TableName: stack.tables.posts }))).Table?.LatestStreamArn;
  dynamo.destroy();
  if (!streamArn) throw new Error('floor: the posts table has no stream');
  const iterators = new Map<string, string | undefined>();
  const described = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  for (const shard of described.StreamDescription?.Shards ?? []) {
    if (!shard.ShardId || shard.SequenceNumberRange?.EndingSequenceNumber) continue;
    const out = await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'LATEST' }));
    iterators.set(shard.ShardId, out.ShardIterator);
  }
  const receiver = await startLagReceiver();
  const { HttpWebhookSender } = await import('../lib/egress/webhook-sender.js');
  const sender = new HttpWebhookSender({ allowLoopback: true });
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const lanes: { queue: { id: string; body: string }[]; waiting: (() => void)[] }[] = Array.from({ length: endpoints }, () => ({ queue: [], waiting: [] }));
  const updatedAt = new Map<string, number>();
  let stopped = false;
  let assigned = 0;

  const lane = async (index: number): Promise<void> => {
    const own = lanes[index]!;
    for (;;) {
      const next = own.queue.shift();
      if (next) {
        const at = new Date();
        await sender.send({ url: `${receiver.url}/${index}`, headers: { 'content-type': 'application/json', ...signedHeaders(next.id, at, next.body, [secret]) }, body: next.body });
        continue;
      }
      if (stopped) return;
      await new Promise<void>((wake) => own.waiting.push(wake));
    }
  };
  const workers = lanes.flatMap((_, index) => Array.from({ length: ENDPOINT_IN_FLIGHT_LIMIT }, () => lane(index)));

  const poll = (async () => {
    let newShardsLookedAt = Date.now();
    while (!stopped) {
      for (const [shardId, iterator] of iterators) {
        if (!iterator) continue;
        const out = await getStreamRecords(endpoint, { shardIterator: iterator, limit: 1000, streamArn }).catch(() => undefined);
        if (!out) continue;
        iterators.set(shardId, out.nextShardIterator);
        for (const record of out.records) {
          const image = record.dynamodb?.NewImage;
          const id = image?.id?.S;
          if (!id || !ids.has(id) || image?.status?.S !== 'published' || updatedAt.has(id)) continue;
          updatedAt.set(id, Date.parse(image.updatedAt?.S ?? ''));
          const body = JSON.stringify({ id: `evt_${id}`, type: 'post.published', createdAt: image.updatedAt?.S, data: { object: { id, status: 'published', publishedAt: image.publishedAt?.S } } });
          const target = lanes[assigned++ % endpoints]!;
          target.queue.push({ id: `evt_${id}`, body });
          target.waiting.shift()?.();
        }
      }
      // A shard that closed (or a new one): look again, as the poller does every 2 s.
      if (Date.now() - newShardsLookedAt > 2_000 || [...iterators.values()].every((iterator) => !iterator)) {
        newShardsLookedAt = Date.now();
        const again = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn })).catch(() => undefined);
        for (const shard of again?.StreamDescription?.Shards ?? []) {
          if (!shard.ShardId || iterators.has(shard.ShardId)) continue;
          const out = await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' })).catch(() => undefined);
          iterators.set(shard.ShardId, out?.ShardIterator);
        }
      }
      await sleep(STREAM_POLL_MS);
    }
  })();

  const stop = async (): Promise<void> => {
    stopped = true;
    for (const own of lanes) for (const wake of own.waiting.splice(0)) wake();
    await poll.catch(() => undefined);
    await Promise.all(workers);
    await receiver.stop();
    streams.destroy();
  };
  return {
    finish: async (deadline) => {
      while ([...ids].some((id) => !receiver.firstArrival.has(id)) && Date.now() < deadline) await sleep(100);
      const lags: number[] = [];
      for (const id of ids) {
        const arrived = receiver.firstArrival.get(id);
        const changed = updatedAt.get(id);
        lags.push(arrived === undefined || changed === undefined ? Number.POSITIVE_INFINITY : arrived - changed);
      }
      return { endpoints, lanesPerEndpoint: ENDPOINT_IN_FLIGHT_LIMIT, delivered: receiver.firstArrival.size, lagMs: summarize(lags) };
    },
    stop,
  };
}
