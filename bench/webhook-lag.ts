/**
 * Webhook lag (issue 18): from a post's state change (its `updatedAt` as the publish worker wrote
 * it, published or failed) to the moment a receiver on 127.0.0.1 has the event, for the burst and
 * spread loads. The receiver answers 204 at once and keeps the first arrival of each post's event
 * (retries and replays are counted, not measured); deliveries per second over the run.
 */
import type { CpuUse } from './cpu.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Post } from '../lib/domain/model.js';
import type { RunningStack } from '../local/stack.js';
import { call, log, sleep, type BenchUser } from './harness.js';
import type { LatencySummary } from './load-protocol.js';
import { round, summarize } from './stats.js';

export interface LagReceiver {
  url: string;
  /** Post id -> first arrival (ms since epoch) of its post.published / post.failed. */
  firstArrival: Map<string, number>;
  deliveries: number;
  stop(): Promise<void>;
}

export interface WebhookLagFigures {
  expected: number;
  delivered: number;
  /** Every request the receiver got (duplicates included). */
  deliveries: number;
  lagMs: LatencySummary;
  deliveriesPerSecond: number;
  /** The webhook path's requests per event delivered, from the due second on (bench/phases/burst.ts). */
  requests?: WebhookPathRequests;
  /** CPU from the due second until the last event arrived: whether the emulator or the functions host is the limit. */
  cpu?: CpuUse;
}

export interface WebhookPathRequests {
  /** DynamoDB requests on the webhooks table. */
  dynamodbPerEvent: number;
  sqsPerEvent: number;
  dynamodbByCommand: Record<string, number>;
}

export async function startLagReceiver(): Promise<LagReceiver> {
  const receiver: LagReceiver = { url: '', firstArrival: new Map(), deliveries: 0, stop: async () => undefined };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const arrived = Date.now();
      receiver.deliveries += 1;
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type?: string; data?: { object?: { id?: string } } };
        const id = event.data?.object?.id;
        if ((event.type === 'post.published' || event.type === 'post.failed') && id && !receiver.firstArrival.has(id)) receiver.firstArrival.set(id, arrived);
      } catch {
        // Not an event: counted, not measured.
      }
      response.writeHead(204).end();
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

/** Registers the receiver as the user's endpoint for post outcomes (the local stack accepts http://127.0.0.1). */
export async function subscribe(stack: RunningStack, user: BenchUser, receiver: LagReceiver): Promise<void> {
  await subscribeAt(stack, user, receiver.url);
}

/** The same at a URL of the receiver's (a path of its own per customer: the receiver keeps every arrival whatever the path). */
export async function subscribeAt(stack: RunningStack, user: BenchUser, url: string): Promise<void> {
  const out = await call<unknown>(stack, user, 'POST', '/webhook_endpoints', { url, enabledEvents: ['post.published', 'post.failed'] });
  if (out.status !== 201) throw new Error(`webhook endpoint not created: ${out.status} ${JSON.stringify(out.body).slice(0, 300)}`);
}

/** Waits (until `deadline`) for an event of every settled post, then the figures. */
export async function webhookLag(receiver: LagReceiver, posts: readonly Post[], deadline: number): Promise<WebhookLagFigures> {
  const settled = posts.filter((post) => post.status === 'published' || post.status === 'failed');
  while (settled.some((post) => !receiver.firstArrival.has(post.id)) && Date.now() < deadline) await sleep(100);
  const lags: number[] = [];
  const arrivals: number[] = [];
  for (const post of settled) {
    const arrived = receiver.firstArrival.get(post.id);
    if (arrived === undefined) continue;
    lags.push(arrived - Date.parse(post.updatedAt));
    arrivals.push(arrived);
  }
  const missing = settled.length - lags.length;
  if (missing > 0) log(`webhooks: ${missing} settled post(s) had no event by the deadline`);
  const span = arrivals.length > 1 ? (Math.max(...arrivals) - Math.min(...arrivals)) / 1000 : Number.NaN;
  return {
    expected: settled.length,
    delivered: lags.length,
    deliveries: receiver.deliveries,
    // A missing event counts as infinitely late, so it can never pass the budget unnoticed.
    lagMs: summarize([...lags, ...Array<number>(missing).fill(Number.POSITIVE_INFINITY)]),
    deliveriesPerSecond: Number.isFinite(span) && span > 0 ? round(arrivals.length / span) : Number.NaN,
  };
}

export function webhookLagReport(figures: WebhookLagFigures): string[] {
  return [
    `webhooks: ${figures.delivered}/${figures.expected} post events delivered (${figures.deliveries} requests), ` +
      `lag p50 ${round(figures.lagMs.p50)} ms, p99 ${round(figures.lagMs.p99)} ms, max ${round(figures.lagMs.max)} ms, ${figures.deliveriesPerSecond} deliveries/s`,
    ...(figures.requests
      ? [
          `webhook path per event: ${figures.requests.dynamodbPerEvent} DynamoDB requests on the webhooks table (` +
            Object.entries(figures.requests.dynamodbByCommand).map(([command, count]) => `${command.slice('dynamodb:'.length)} ${count}`).join(', ') +
            `), ${figures.requests.sqsPerEvent} SQS requests`,
        ]
      : []),
    ...(figures.cpu
      ? [
          `while delivering (due second to last event, ${round(figures.cpu.wallSeconds)} s): node process ${round(figures.cpu.nodeCores)} cores busy` +
            `${figures.cpu.functionsCores === null ? '' : `, functions host ${round(figures.cpu.functionsCores)}`}, DynamoDB Local ${figures.cpu.jvmCores === null ? '?' : round(figures.cpu.jvmCores)}`,
        ]
      : []),
  ];
}
