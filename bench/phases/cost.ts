/**
 * Phase `cost`: DynamoDB requests and consumed capacity, SQS and Scheduler calls per operation
 * (creates, get, list page, delete, one publish, an early Scheduler delivery, a sweeper run, an
 * authentication-cache miss), then the AWS bill per 1,000 published posts from the prices in
 * bench/prices.ts. The sweeper must be paused (bench/run.ts does it): it is metered on its own.
 *
 * Then webhooks (issue 18): the same publish with an endpoint subscribed to `post.published` on a
 * receiver here, minus the publish without one, is what the event costs (the router's event and
 * delivery writes, its SQS send, the delivery worker's reads and writes); a receiver that fails the
 * first attempt gives the cost of one retry; the AWS bill per 1,000 events follows.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { publishMessage } from '../../lib/dispatch/messages.js';
import type { CommandMeter } from '../../lib/store/sdk-metering.js';
import { mergeInto, meterCommands, meteringOn, resetMeter } from '../meter.js';
import { SWEEPER } from '../../functions/catalogue.js';
import { lambdaContext, loadHandler } from '../../local/lambda-runtime.js';
import { sqsClientFor } from '../../local/messaging.js';
import type { RunningStack } from '../../local/stack.js';
import { call, createPosts, inMinutes, log, sleep, type BenchContext, type BenchUser } from '../harness.js';
import { PRICES, PRICES_CHECKED_ON } from '../prices.js';
import { budget, BUDGETS, ms, table, type Budget, type PhaseOutcome } from '../report.js';
import { round } from '../stats.js';

/** Lambda memory sizes of infra/stacks/api-stack.ts, for the GB-second estimate. */
const MEMORY_MB = { api: 512, worker: 512, webhookRouter: 256, webhookDeliveryWorker: 256 };
/**
 * The receiver's answer dominates the delivery worker's billed time on AWS (a customer's server,
 * up to the 10 s timeout); locally it answers in a millisecond, so this is an assumption.
 */
const ASSUMED_RECEIVER_ANSWER_MS = 200;
/** The router's time per stream batch on AWS: one Query, a PutItem per event and per delivery, one SendMessageBatch. */
const ASSUMED_ROUTER_MS_PER_BATCH = 100;
/** The platform call dominates the worker's billed time on AWS and cannot be measured here. */
const ASSUMED_WORKER_MS_PER_PUBLISH = 500;
/**
 * The worker's wait for the due second, billed too: a message arrives 1 s (PREPARE_LEAD_SECONDS in
 * lib/domain/publishing.ts) plus the part of a second that SQS's whole-second delay rounds off (0.5 s
 * on average) early. Counted whole for every post, as if each came alone in its invocation (the worst
 * case; a batch of 10 posts due together shares one wait).
 */
const WORKER_WAIT_MS_PER_INVOCATION = 1_500;

/** `apiP50`: the api phase's p50 at concurrency 1 per operation (the create's Lambda duration); empty if it did not run. */
export async function costPhase({ stack, db, users }: BenchContext, apiP50: Record<string, number>): Promise<PhaseOutcome> {
  log('cost: metering each operation');
  const cost = await measureCost(stack, db, users.cost, apiP50);
  const budgets: Budget[] = [];
  for (const name of ['create, 1 target, due in 10 min', 'create, 25 targets, due in 10 min', 'create, 1 target, due in 2 days', 'create, 25 targets, due in 2 days']) {
    const operation = cost.operations.find((entry) => entry.operation.startsWith(name));
    if (operation) budgets.push(budget(`DynamoDB requests: ${name}`, operation.dynamodbRequests, BUDGETS.createDynamoRequests, 'requests'));
  }
  const publish = cost.operations.find((entry) => entry.operation.startsWith('publish one post'));
  // The worker's own writes: the posts it claims and records, the account's token. The event
  // record the webhook router writes for the change (webhooks table, for GET /events) is the
  // events' cost, in the bill per 1,000 published below, not the worker's.
  const eventRecordUnits = publish?.writeUnitsByTable[stack.tables.webhooks] ?? 0;
  if (publish) budgets.push(budget('DynamoDB write units per publish (worker)', publish.writeUnits - eventRecordUnits, BUDGETS.publishWriteUnitsPerPost, 'WRU'));
  for (const [scenarioName, scenario] of Object.entries(cost.perThousandPublished)) {
    // In cents, so the printed figure keeps its precision (round() keeps 2 decimals below 10).
    budgets.push(budget(`cost per 1,000 published: ${scenarioName}`, scenario.usd * 100, BUDGETS.costPerThousandPublishedUsd * 100, 'US cents'));
  }
  for (const [scenarioName, scenario] of Object.entries(cost.perThousandWebhookEvents)) {
    budgets.push(budget(`cost per 1,000 webhook events: ${scenarioName}`, scenario.usd * 100, BUDGETS.costPerThousandWebhookEventsUsd * 100, 'US cents'));
  }
  const out: string[] = [];
  out.push('Cost per operation (DynamoDB requests / read units / write units; SQS requests; Scheduler calls)');
  out.push(table([['operation', 'DDB req', 'RRU', 'WRU', 'SQS req', 'SQS msgs', 'Sched'], ...cost.operations.map((operation) => [operation.operation, ms(operation.dynamodbRequests), ms(operation.readUnits), ms(operation.writeUnits), ms(operation.sqsRequests), ms(operation.sqsMessages), ms(operation.schedulerCalls)])]));
  if (publish) out.push(`publish one post: write units by table ${JSON.stringify(Object.fromEntries(Object.entries(publish.writeUnitsByTable).map(([table, units]) => [table, round(units)])))} (the worker's: all but the router's event record on ${stack.tables.webhooks})`);
  out.push('', 'AWS cost per 1,000 published posts (us-east-1 on-demand, free tiers not subtracted)');
  for (const [scenarioName, scenario] of Object.entries(cost.perThousandPublished)) out.push(`  ${scenarioName}: $${scenario.usd.toFixed(4)}`);
  out.push('', 'AWS cost per 1,000 webhook events, one endpoint each (us-east-1 on-demand, free tiers not subtracted)');
  for (const [scenarioName, scenario] of Object.entries(cost.perThousandWebhookEvents)) {
    out.push(`  ${scenarioName}: $${scenario.usd.toFixed(4)}`);
    for (const [line, usd] of Object.entries(scenario.lines)) out.push(`    ${line}: $${usd.toFixed(5)}`);
  }
  out.push('');
  return {
    results: {
      cost,
      // The publish path's DynamoDB work per post, at the top level so runs compare at a glance.
      publishPerPost: publish ? { dynamodbRequests: publish.dynamodbRequests, readUnits: publish.readUnits, writeUnits: publish.writeUnits, byCommand: publish.byCommand } : null,
      prices: { checkedOn: PRICES_CHECKED_ON, region: 'us-east-1', ...PRICES },
    },
    budgets,
    report: out,
    notes: [
      'DynamoDB Local reports a TransactWriteItems\' capacity per table as if it held one item (a 25-post transaction reports the same units as a 1-post one); the bench scales each table\'s reported units by the number of actions on that table.',
      'A failed conditional write returns no ConsumedCapacity; it is counted as 1 write unit (the AWS minimum).',
    ],
  };
}

export interface OperationCost {
  operation: string;
  /** Per operation (averaged over the repetitions). */
  dynamodbRequests: number;
  readUnits: number;
  writeUnits: number;
  /** Units DynamoDB Local reported, before scaling transactions. */
  reportedUnits: number;
  failedConditionalWrites: number;
  sqsRequests: number;
  sqsMessages: number;
  schedulerCalls: number;
  byCommand: Record<string, number>;
  /** Write units by table (conditional writes that failed are in writeUnits only). */
  writeUnitsByTable: Record<string, number>;
}

const READ_COMMANDS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);

export function costOf(operation: string, commands: Record<string, CommandMeter>, repetitions: number): OperationCost {
  const cost: OperationCost = {
    operation,
    dynamodbRequests: 0,
    readUnits: 0,
    writeUnits: 0,
    reportedUnits: 0,
    failedConditionalWrites: 0,
    sqsRequests: 0,
    sqsMessages: 0,
    schedulerCalls: 0,
    byCommand: {},
    writeUnitsByTable: {},
  };
  for (const [key, meter] of Object.entries(commands)) {
    const [service, command = ''] = key.split(':');
    cost.byCommand[key] = meter.requests / repetitions;
    if (service === 'dynamodb') {
      cost.dynamodbRequests += meter.requests;
      cost.reportedUnits += meter.reportedCapacityUnits;
      const failedConditions = (meter.failures.ConditionalCheckFailedException ?? 0) + (meter.failures.TransactionCanceledException ?? 0);
      cost.failedConditionalWrites += READ_COMMANDS.has(command) ? 0 : failedConditions;
      // A failed conditional write still consumes (at least) one write unit on AWS; no units come back for it.
      if (READ_COMMANDS.has(command)) cost.readUnits += meter.capacityUnits;
      else {
        cost.writeUnits += meter.capacityUnits + failedConditions;
        for (const [table, units] of Object.entries(meter.unitsByTable)) cost.writeUnitsByTable[table] = (cost.writeUnitsByTable[table] ?? 0) + units / repetitions;
      }
    } else if (service === 'sqs') {
      cost.sqsRequests += meter.requests;
      cost.sqsMessages += meter.entries;
    } else if (service === 'scheduler') {
      cost.schedulerCalls += meter.requests;
    }
  }
  for (const field of ['dynamodbRequests', 'readUnits', 'writeUnits', 'reportedUnits', 'failedConditionalWrites', 'sqsRequests', 'sqsMessages', 'schedulerCalls'] as const) {
    cost[field] /= repetitions;
  }
  return cost;
}

export async function metered(operation: string, repetitions: number, action: (repetition: number) => Promise<void>): Promise<OperationCost> {
  if (!meteringOn()) throw new Error('SDK metering is off: SDK_METERING=1 did not reach the handlers');
  let commands: Record<string, CommandMeter> = {};
  for (let repetition = 0; repetition < repetitions; repetition++) {
    await resetMeter();
    await action(repetition);
    mergeInto(commands, await meterCommands());
  }
  await resetMeter();
  commands = Object.fromEntries(Object.entries(commands).sort(([a], [b]) => a.localeCompare(b)));
  return costOf(operation, commands, repetitions);
}

interface CostScenario {
  usd: number;
  lines: Record<string, number>;
  assumptions: string[];
}

interface CostFigures {
  operations: OperationCost[];
  perThousandPublished: Record<string, CostScenario>;
  perThousandWebhookEvents: Record<string, CostScenario>;
}

/** `with` minus `without`, per figure and per command, never below 0 (what `with` adds). */
function extraCost(operation: string, withIt: OperationCost, without: OperationCost): OperationCost {
  const less = (a: number, b: number): number => Math.max(0, a - b);
  const byCommand: Record<string, number> = {};
  for (const key of new Set([...Object.keys(withIt.byCommand), ...Object.keys(without.byCommand)])) {
    const extra = less(withIt.byCommand[key] ?? 0, without.byCommand[key] ?? 0);
    if (extra > 0) byCommand[key] = extra;
  }
  const writeUnitsByTable: Record<string, number> = {};
  for (const table of new Set([...Object.keys(withIt.writeUnitsByTable), ...Object.keys(without.writeUnitsByTable)])) {
    const extra = less(withIt.writeUnitsByTable[table] ?? 0, without.writeUnitsByTable[table] ?? 0);
    if (extra > 0) writeUnitsByTable[table] = extra;
  }
  return {
    operation,
    dynamodbRequests: less(withIt.dynamodbRequests, without.dynamodbRequests),
    readUnits: less(withIt.readUnits, without.readUnits),
    writeUnits: less(withIt.writeUnits, without.writeUnits),
    reportedUnits: less(withIt.reportedUnits, without.reportedUnits),
    failedConditionalWrites: less(withIt.failedConditionalWrites, without.failedConditionalWrites),
    sqsRequests: less(withIt.sqsRequests, without.sqsRequests),
    sqsMessages: less(withIt.sqsMessages, without.sqsMessages),
    schedulerCalls: less(withIt.schedulerCalls, without.schedulerCalls),
    byCommand,
    writeUnitsByTable,
  };
}

/** A receiver on 127.0.0.1 for the cost phase: 204 at once, or a 500 for the first arrival of each event while `failFirst` is set. */
async function startCostReceiver(): Promise<{ url: string; arrivals: Map<string, number>; failFirst: boolean; stop(): Promise<void> }> {
  const receiver = { url: '', arrivals: new Map<string, number>(), failFirst: false, stop: async (): Promise<void> => undefined };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let postId = '';
      try {
        postId = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { object?: { id?: unknown } } }).data?.object?.id ?? '');
      } catch {
        // Not an event: answered, not counted.
      }
      const seen = (receiver.arrivals.get(postId) ?? 0) + 1;
      receiver.arrivals.set(postId, seen);
      response.writeHead(receiver.failFirst && seen === 1 ? 500 : 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/**
 * Publishes `reps` posts of `user` (due in 2.5 s) and meters each from its create's answer until
 * the post is published, the receiver has had `arrivals` requests for it and a second has passed
 * (the worker's bookkeeping after the answer): the publish and everything its change sets off.
 */
async function meterPublishWithWebhook(
  stack: RunningStack,
  db: DynamoDBClient,
  user: BenchUser,
  receiver: { arrivals: Map<string, number> },
  reps: number,
  arrivals: number,
): Promise<Record<string, CommandMeter>> {
  const merged: Record<string, CommandMeter> = {};
  for (let rep = 0; rep < reps; rep++) {
    const [id = ''] = await createPosts(stack, user, { accounts: [user.accountIds[rep % 2] ?? ''], text: `Cost webhook ${randomUUID()}`, scheduledFor: new Date(Date.now() + 2_500).toISOString() });
    await resetMeter();
    // A retry comes 5 s (±20 %) after the first attempt.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const item = await db.send(new GetItemCommand({ TableName: stack.tables.posts, Key: { id: { S: id } }, ConsistentRead: true }));
      if (item.Item && unmarshall(item.Item).status !== 'scheduled' && (receiver.arrivals.get(id) ?? 0) >= arrivals) break;
      if (Date.now() > deadline) throw new Error(`the metered publish with a webhook did not happen (${receiver.arrivals.get(id) ?? 0} arrival(s))`);
      await sleep(100);
    }
    await sleep(1_000);
    mergeInto(merged, await meterCommands());
  }
  return merged;
}

async function measureCost(stack: RunningStack, db: DynamoDBClient, user: BenchUser, apiP50: Record<string, number>): Promise<CostFigures> {
  const account = user.accountIds[0] ?? '';
  // Authentication is cached per key for up to a minute (per Lambda instance): warm it, so each
  // figure is the operation itself. The cache miss is measured on its own below.
  await call(stack, user, 'GET', '/posts?limit=1');
  const operations: OperationCost[] = [];
  const reps = 3;
  const soon: string[] = [];
  operations.push(await metered('create, 1 target, due in 10 min (queue)', reps, async () => {
    soon.push(...(await createPosts(stack, user, { accounts: [account], text: `Cost ${randomUUID()}`, scheduledFor: inMinutes(10) })));
  }));
  operations.push(await metered('create, 25 targets, due in 10 min (queue)', reps, async () => {
    soon.push(...(await createPosts(stack, user, { accounts: user.accountIds, text: `Cost ${randomUUID()}`, scheduledFor: inMinutes(10) })));
  }));
  const later: string[] = [];
  operations.push(await metered('create, 1 target, due in 2 days (Scheduler)', reps, async () => {
    later.push(...(await createPosts(stack, user, { accounts: [account], text: `Cost ${randomUUID()}`, scheduledFor: inMinutes(2 * 24 * 60) })));
  }));
  operations.push(await metered('create, 25 targets, due in 2 days (Scheduler)', reps, async () => {
    later.push(...(await createPosts(stack, user, { accounts: user.accountIds, text: `Cost ${randomUUID()}`, scheduledFor: inMinutes(2 * 24 * 60) })));
  }));
  // queue: true beside scheduledFor (issue 33: at most 2 DynamoDB requests more per target). Each
  // account's queue holds slots two days ahead, so a queued post takes the Scheduler path as the
  // lines above do and the difference is the queue's own reads and slot item.
  const inTwoDays = new Date(Date.now() + 2 * 24 * 60 * 60 * 1000);
  const queue = {
    timeZone: 'UTC',
    slots: Array.from({ length: 10 }, (_, minute) => ({
      day: ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'][inTwoDays.getUTCDay()],
      time: `${String(inTwoDays.getUTCHours()).padStart(2, '0')}:${String(minute).padStart(2, '0')}`,
    })),
  };
  for (const accountId of user.accountIds) {
    const out = await call(stack, user, 'PUT', `/accounts/${accountId}/queue`, queue);
    if (out.status !== 200) throw new Error(`set queue: ${out.status}`);
  }
  operations.push(await metered('create, 1 target, queue: true (Scheduler)', reps, async () => {
    later.push(...(await createPosts(stack, user, { accounts: [account], text: `Cost ${randomUUID()}`, queue: true })));
  }));
  operations.push(await metered('create, 25 targets, queue: true (Scheduler)', reps, async () => {
    later.push(...(await createPosts(stack, user, { accounts: user.accountIds, text: `Cost ${randomUUID()}`, queue: true })));
  }));
  operations.push(await metered('get', reps, async (rep) => {
    const out = await call(stack, user, 'GET', `/posts/${soon[rep] ?? ''}`);
    if (out.status !== 200) throw new Error(`get: ${out.status}`);
  }));
  operations.push(await metered('list page (25)', reps, async () => {
    const out = await call(stack, user, 'GET', '/posts?limit=25');
    if (out.status !== 200) throw new Error(`list: ${out.status}`);
  }));
  operations.push(await metered('delete (cancel, due in 10 min)', reps, async (rep) => {
    const out = await call(stack, user, 'DELETE', `/posts/${soon[rep] ?? ''}`);
    if (out.status !== 200) throw new Error(`delete: ${out.status}`);
  }));
  operations.push(await metered('delete (cancel, Scheduler)', reps, async (rep) => {
    const out = await call(stack, user, 'DELETE', `/posts/${later[rep] ?? ''}`);
    if (out.status !== 200) throw new Error(`delete: ${out.status}`);
  }));
  // One publish: the worker's share only (the create is metered above). The post is created,
  // the counters reset, and read once the post is published and the worker has finished.
  let publishSeen = 0;
  const publishRuns: Record<string, CommandMeter>[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const [id] = await createPosts(stack, user, { accounts: [user.accountIds[rep % 2] ?? account], text: `Cost publish ${randomUUID()}`, scheduledFor: new Date(Date.now() + 2_500).toISOString() });
    await resetMeter();
    const deadline = Date.now() + 30_000;
    for (;;) {
      const item = await db.send(new GetItemCommand({ TableName: stack.tables.posts, Key: { id: { S: id ?? '' } }, ConsistentRead: true }));
      if (item.Item && unmarshall(item.Item).status !== 'scheduled') break;
      if (Date.now() > deadline) throw new Error('the metered publish did not happen');
      await sleep(100);
    }
    await sleep(500);
    publishSeen += 1;
    publishRuns.push(await meterCommands());
  }
  const merged: Record<string, CommandMeter> = {};
  for (const run of publishRuns) mergeInto(merged, run);
  operations.push(costOf('publish one post (worker, on time)', merged, publishSeen));
  // A Scheduler delivery arrives EARLY_FIRE_SECONDS ahead: the worker puts it back for the last
  // stretch. Same message as the Scheduler sends, put on the publish queue directly.
  const [early] = await createPosts(stack, user, { accounts: [account], text: `Cost early ${randomUUID()}`, scheduledFor: inMinutes(2 * 24 * 60) });
  const sqs = sqsClientFor(stack.info.sqsEndpoint);
  try {
    operations.push(await metered('publish message arriving early (Scheduler delivery)', 1, async () => {
      await sqs.send(new SendMessageCommand({ QueueUrl: stack.queues.publish.url, MessageBody: JSON.stringify(publishMessage(early ?? '', inMinutes(3))) }));
      await sleep(2_500);
    }));
  } finally {
    sqs.destroy();
  }
  await call(stack, user, 'DELETE', `/posts/${early ?? ''}`);
  // Webhooks, after every figure above (measured without an endpoint): the user subscribes now.
  const receiver = await startCostReceiver();
  try {
    const endpoint = await call<{ id?: string }>(stack, user, 'POST', '/webhook_endpoints', { url: receiver.url, enabledEvents: ['post.published', 'post.failed'] });
    if (endpoint.status !== 201) throw new Error(`webhook endpoint not created: ${endpoint.status}`);
    // The first delivery decrypts the secret (then cached for 5 minutes): warm that, as a busy endpoint is.
    await meterPublishWithWebhook(stack, db, user, receiver, 1, 1);
    operations.push(costOf('publish one post, endpoint subscribed (publish + event + delivery)', await meterPublishWithWebhook(stack, db, user, receiver, reps, 1), reps));
    receiver.failFirst = true;
    operations.push(costOf('publish one post, endpoint subscribed, first attempt refused (500, one retry)', await meterPublishWithWebhook(stack, db, user, receiver, 1, 2), 1));
    receiver.failFirst = false;
    await call(stack, user, 'DELETE', `/webhook_endpoints/${endpoint.body.id ?? ''}`);
  } finally {
    await receiver.stop();
  }
  // Sweeper: one run (every minute on AWS), a fixed cost whatever the volume.
  operations.push(await metered('sweeper run (every minute)', 1, async () => {
    const handler = await loadHandler(SWEEPER.entry);
    await handler({ 'detail-type': 'Scheduled Event', source: 'aws.events', time: new Date().toISOString(), detail: {} }, lambdaContext('Sweeper', 60_000));
  }));
  // Authentication cache miss: the key and its user are read once per minute per instance.
  const fresh = await (await import('../../test/support/provision.js')).createKey(user.userId);
  operations.push(await metered('authentication cache miss (once a minute per instance)', 1, async () => {
    const out = await call(stack, { ...user, apiKey: fresh.apiKey }, 'GET', '/posts?limit=1');
    if (out.status !== 200) throw new Error(`auth miss: ${out.status}`);
  }));

  const find = (name: string): OperationCost => {
    const found = operations.find((operation) => operation.operation.startsWith(name));
    if (!found) throw new Error(`no cost figure for ${name}`);
    return found;
  };
  const dynamoUsd = (cost: OperationCost): number =>
    cost.readUnits * PRICES.dynamodbReadRequestUnit.usd + cost.writeUnits * PRICES.dynamodbWriteRequestUnit.usd;
  const publish = find('publish one post');
  const earlyMessage = find('publish message arriving early');
  const scenario = (createName: string, targets: number, scheduled: boolean, createMs: number) => {
    const create = find(createName);
    const perPost = 1 / targets;
    // Messages each post goes through: the dispatcher's (queue path) or the Scheduler's, plus the
    // worker's requeue of an early Scheduler delivery. Each message costs Lambda's event source
    // mapping one receive and one delete at worst (no batching), and one worker invocation.
    const messages = scheduled ? 2 : 1;
    const lines: Record<string, number> = {
      'DynamoDB (create share + publish)': (dynamoUsd(create) * perPost + dynamoUsd(publish) + (scheduled ? dynamoUsd(earlyMessage) : 0)) * 1000,
      'SQS (sends + receive/delete per message)':
        ((create.sqsRequests * perPost + publish.sqsRequests + (scheduled ? 1 + earlyMessage.sqsRequests : 0)) + messages * 2) * PRICES.sqsRequest.usd * 1000,
      'EventBridge Scheduler invocations': (scheduled ? 1 : 0) * PRICES.schedulerInvocation.usd * 1000,
      'API Gateway HTTP API (create requests)': perPost * PRICES.httpApiRequest.usd * 1000,
      'Lambda requests': (perPost + messages) * PRICES.lambdaRequest.usd * 1000,
      'Lambda duration (arm64)':
        ((createMs / 1000) * (MEMORY_MB.api / 1024) * perPost +
          ((ASSUMED_WORKER_MS_PER_PUBLISH + WORKER_WAIT_MS_PER_INVOCATION) / 1000) * (MEMORY_MB.worker / 1024) +
          (scheduled ? (createMs / 1000) * (MEMORY_MB.worker / 1024) : 0)) *
        PRICES.lambdaArmGbSecond.usd *
        1000,
    };
    const usd = Object.values(lines).reduce((total, value) => total + value, 0);
    return {
      usd,
      lines,
      assumptions: [
        `each create carries ${targets} target(s); ${scheduled ? 'due more than 15 minutes ahead (EventBridge Scheduler, then the worker delays the early message)' : 'due within 15 minutes (SQS delay)'}`,
        'SQS receives and deletes by the Lambda event source mapping counted one each per message (no batching: the worst case); idle long polling of the queues is a fixed cost, not per post',
        `Lambda duration: create = measured p50 at concurrency 1 (${round(createMs)} ms) at ${MEMORY_MB.api} MB; worker = ${ASSUMED_WORKER_MS_PER_PUBLISH} ms per publish at ${MEMORY_MB.worker} MB (assumed: the platform's API round trip dominates and cannot be measured locally) plus its ${WORKER_WAIT_MS_PER_INVOCATION} ms wait for the due second (one post per invocation: the worst case), and an early Scheduler delivery (one SQS send) as long as a create`,
        'DynamoDB: consumed capacity as measured here (transactions scaled per action, see notes); storage, backups and the fixed per-minute sweeper are excluded',
        'free tiers not subtracted',
      ],
    };
  };
  const withWebhook = find('publish one post, endpoint subscribed (');
  const event = extraCost('webhook event, one endpoint, delivered at the first attempt', withWebhook, publish);
  const retry = extraCost('webhook retry (one more attempt)', find('publish one post, endpoint subscribed, first attempt refused'), withWebhook);
  operations.push(event, retry);
  // The router's endpoint Query runs for every stream batch with a post change, with or without an
  // endpoint, so the subtraction leaves it out: it is counted back here, once per event (the worst case).
  const routerQueryUnits = (withWebhook.byCommand['dynamodb:Query'] ?? 0) > 0 ? 0.5 : 0;
  const webhookScenario = (retriesPerEvent: number, decryptsPerEvent: number, decryptNote: string): CostScenario => {
    // Attempts per event, and so delivery messages, each received and deleted once by the event source mapping.
    const attempts = 1 + retriesPerEvent;
    const lines: Record<string, number> = {
      'DynamoDB Streams reads by Lambda': 0,
      'DynamoDB (event + delivery writes, endpoint Query, worker reads and writes)':
        (dynamoUsd(event) + routerQueryUnits * PRICES.dynamodbReadRequestUnit.usd + retriesPerEvent * dynamoUsd(retry)) * 1000,
      'SQS (sends + receive/delete per message)': (event.sqsRequests + retriesPerEvent * retry.sqsRequests + attempts * 2) * PRICES.sqsRequest.usd * 1000,
      'Lambda requests (router batch + one per attempt)': (1 + attempts) * PRICES.lambdaRequest.usd * 1000,
      'Lambda duration (arm64)':
        ((ASSUMED_ROUTER_MS_PER_BATCH / 1000) * (MEMORY_MB.webhookRouter / 1024) + attempts * (ASSUMED_RECEIVER_ANSWER_MS / 1000) * (MEMORY_MB.webhookDeliveryWorker / 1024)) *
        PRICES.lambdaArmGbSecond.usd *
        1000,
      'KMS Decrypt (signing secret)': decryptsPerEvent * PRICES.kmsRequest.usd * 1000,
    };
    return {
      usd: Object.values(lines).reduce((total, value) => total + value, 0),
      lines,
      assumptions: [
        'one endpoint subscribed to the event; an event for a user without one costs only the router\'s Query (already in the publish figure)',
        'DynamoDB Streams GetRecords by a Lambda event source mapping are not charged',
        `the router invoked once per event (one changed post per stream batch, the worst case; batches of up to 100 share one invocation and one Query), ${ASSUMED_ROUTER_MS_PER_BATCH} ms at ${MEMORY_MB.webhookRouter} MB (assumed), its endpoint Query counted as ${routerQueryUnits} RRU`,
        `the delivery worker ${ASSUMED_RECEIVER_ANSWER_MS} ms per attempt at ${MEMORY_MB.webhookDeliveryWorker} MB (assumed: the receiver's answer dominates and cannot be measured locally)`,
        `DynamoDB and SQS sends as measured here: the publish with an endpoint minus the publish without (${round(event.writeUnits)} WRU, ${round(event.readUnits)} RRU, ${round(event.sqsRequests)} SQS requests per event; a retry ${round(retry.writeUnits)} WRU, ${round(retry.readUnits)} RRU, ${round(retry.sqsRequests)} SQS requests)`,
        'SQS receives and deletes by the event source mapping counted one each per message (no batching: the worst case)',
        decryptNote,
        'free tiers not subtracted',
      ],
    };
  };
  return {
    operations,
    perThousandWebhookEvents: {
      'delivered at the first attempt, busy endpoint (secret cached)': webhookScenario(0, 0.001, 'KMS Decrypt: one per worker instance and endpoint every 5 minutes; at 1,000 events in 5 minutes, 1 per 1,000 events'),
      'delivered at the first attempt, sparse endpoint (a Decrypt per event)': webhookScenario(0, 1, 'KMS Decrypt: every event more than 5 minutes after the last (or on a new instance): one Decrypt each, the worst case'),
      'each event retried once, sparse endpoint': webhookScenario(1, 1, 'KMS Decrypt: one per event (the retry 5 s later finds the secret cached when it lands on the same instance)'),
    },
    perThousandPublished: {
      'scheduled >15 min ahead, 1 target per create': scenario('create, 1 target, due in 2 days', 1, true, apiP50['create-1'] ?? 0),
      'scheduled >15 min ahead, 25 targets per create': scenario('create, 25 targets, due in 2 days', 25, true, apiP50['create-25'] ?? 0),
      'due within 15 min, 1 target per create': scenario('create, 1 target, due in 10 min', 1, false, apiP50['create-1'] ?? 0),
    },
  };
}
