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
import type { FloorProcess } from './floor-process.js';
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

/** What one floor run is given, in the process that sends it (this one, or bench/floor-process.ts's). */
export interface FloorSpec {
  dynamodbEndpoint: string;
  postsTable: string;
  user: BenchUser;
  posts: number;
  /** The signed POSTs from the stream: to `endpoints` paths of the receiver at `receiverUrl` (post i to path i mod endpoints). */
  webhooks: { receiverUrl: string; endpoints: number } | null;
}

/** A floor run's sends and writes, and for the webhooks when each floor post's change was read from the stream. */
export interface FloorSends extends Omit<BurstFloorFigures, 'webhooks'> {
  ids: string[];
  webhooks?: { endpoints: number; lanesPerEndpoint: number; changedAt: Record<string, number> };
}

interface Prepared {
  account: Account;
  accessToken: string;
}

/** The worker's client's sockets (lib/store/dynamo-client.ts): the floor's outcome writes go out as many at once. */
const WORKER_SOCKETS = 256;

/**
 * A floor of `posts` sends, and with `endpoints` its webhooks on that many endpoints. `sender`: the
 * floor's own process (bench/floor-process.ts), as the worker sends from the functions host; null:
 * from this process, as the worker's when every function runs here. The receiver is this process's
 * in both, as the figure's is.
 */
export async function burstFloor(stack: RunningStack, user: BenchUser, posts: number, endpoints = 0, sender: FloorProcess | null = null): Promise<BurstFloorFigures> {
  const receiver = endpoints > 0 ? await startLagReceiver() : undefined;
  try {
    const spec: FloorSpec = {
      dynamodbEndpoint: stack.info.dynamodbEndpoint,
      postsTable: stack.tables.posts,
      user,
      posts,
      webhooks: receiver ? { receiverUrl: receiver.url, endpoints } : null,
    };
    const { ids, webhooks, ...figures } = sender ? await sender.run(spec) : await floorRun(spec);
    if (!receiver || !webhooks) return figures;
    const deadline = Date.now() + 60_000;
    while (ids.some((id) => !receiver.firstArrival.has(id)) && Date.now() < deadline) await sleep(100);
    const lags = ids.map((id) => {
      const arrived = receiver.firstArrival.get(id);
      const changed = webhooks.changedAt[id];
      return arrived === undefined || changed === undefined ? Number.POSITIVE_INFINITY : arrived - changed;
    });
    return { ...figures, webhooks: { endpoints, lanesPerEndpoint: webhooks.lanesPerEndpoint, delivered: ids.filter((id) => receiver.firstArrival.has(id)).length, lagMs: summarize(lags) } };
  } finally {
    await receiver?.stop();
  }
}

/** One floor run, sent from this process. */
export async function floorRun(spec: FloorSpec): Promise<FloorSends> {
  const db = new DynamoDBClient({
    endpoint: spec.dynamodbEndpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    retryMode: 'standard',
    maxAttempts: 3,
    requestHandler: { httpAgent: { keepAlive: true, maxSockets: WORKER_SOCKETS } },
  });
  // As the worker's client: the SDK's logger middleware off (lib/store/dynamo-client.ts says why).
  db.middlewareStack.remove('loggerMiddleware');
  try {
    return await sendFloor(spec, db);
  } finally {
    db.destroy();
  }
}

async function sendFloor(spec: FloorSpec, db: DynamoDBClient): Promise<FloorSends> {
  const { user, posts } = spec;
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
  await writeDrafts(db, spec.postsTable, drafts);
  const ids = drafts.map((post) => post.id);

  const deliveries = spec.webhooks ? await startFloorDeliveries(spec.dynamodbEndpoint, spec.postsTable, new Set(ids), spec.webhooks) : undefined;
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
          await db.send(new PutItemCommand({ TableName: spec.postsTable, Item: marshall(postToItem(post), { removeUndefinedValues: true }) }));
          written.push(Date.now() - due);
        } catch (error) {
          failed += 1;
          if (failed === 1) log(`floor: a send failed: ${String(error)}`);
        }
      }),
      posts,
    );
    const figures: FloorSends = { posts, concurrency: posts, lagMs: summarize(answered), outcomeWrittenMs: summarize(written), failed, ids };
    if (deliveries) figures.webhooks = { endpoints: spec.webhooks!.endpoints, lanesPerEndpoint: ENDPOINT_IN_FLIGHT_LIMIT, changedAt: await deliveries.finish(Date.now() + 60_000) };
    return figures;
  } finally {
    await deliveries?.stop();
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
  /** Once every floor post's POST was answered (or at `deadline`): when each one's change was read from the stream. */
  finish(deadline: number): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/**
 * Reads the posts table's stream from now on and POSTs a signed body per floor post to one of
 * `endpoints` paths of the receiver (post i to path i mod endpoints), ENDPOINT_IN_FLIGHT_LIMIT at
 * once per endpoint.
 */
async function startFloorDeliveries(endpoint: string, postsTable: string, ids: ReadonlySet<string>, target: { receiverUrl: string; endpoints: number }): Promise<FloorDeliveries> {
  const { endpoints } = target;
  const streams = new DynamoDBStreamsClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, retryMode: 'standard', maxAttempts: 3 });
  const dynamo = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, retryMode: 'standard', maxAttempts: 3 });
  const streamArn = (await dynamo.send(new DescribeTableCommand({ TableName: postsTable }))).Table?.LatestStreamArn;
  dynamo.destroy();
  if (!streamArn) throw new Error('floor: the posts table has no stream');
  const iterators = new Map<string, string | undefined>();
  const described = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  for (const shard of described.StreamDescription?.Shards ?? []) {
    if (!shard.ShardId || shard.SequenceNumberRange?.EndingSequenceNumber) continue;
    const out = await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'LATEST' }));
    iterators.set(shard.ShardId, out.ShardIterator);
  }
  const { HttpWebhookSender } = await import('../lib/egress/webhook-sender.js');
  const sender = new HttpWebhookSender({ allowLoopback: true });
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const lanes: { queue: { id: string; postId: string; body: string }[]; waiting: (() => void)[] }[] = Array.from({ length: endpoints }, () => ({ queue: [], waiting: [] }));
  const updatedAt: Record<string, number> = {};
  const answered = new Set<string>();
  let stopped = false;
  let assigned = 0;

  const lane = async (index: number): Promise<void> => {
    const own = lanes[index]!;
    for (;;) {
      const next = own.queue.shift();
      if (next) {
        const at = new Date();
        await sender.send({ url: `${target.receiverUrl}/${index}`, headers: { 'content-type': 'application/json', ...signedHeaders(next.id, at, next.body, [secret]) }, body: next.body });
        answered.add(next.postId);
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
          if (!id || !ids.has(id) || image?.status?.S !== 'published' || updatedAt[id] !== undefined) continue;
          updatedAt[id] = Date.parse(image.updatedAt?.S ?? '');
          const body = JSON.stringify({ id: `evt_${id}`, type: 'post.published', createdAt: image.updatedAt?.S, data: { object: { id, status: 'published', publishedAt: image.publishedAt?.S } } });
          const own = lanes[assigned++ % endpoints]!;
          own.queue.push({ id: `evt_${id}`, postId: id, body });
          own.waiting.shift()?.();
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
    streams.destroy();
  };
  return {
    finish: async (deadline) => {
      while ([...ids].some((id) => !answered.has(id)) && Date.now() < deadline) await sleep(100);
      return { ...updatedAt };
    },
    stop,
  };
}
