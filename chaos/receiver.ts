/**
 * The webhook receiver of a crash test cycle: a node http server on 127.0.0.1 that this harness
 * runs (outside the killed stack's process group, so it outlives every kill), standing for a
 * customer's unreliable server. Seeded from the cycle's seed, it:
 *
 *   - fails the first arrival of an event (its `webhook-id`) with probability FIRST_ARRIVAL_FAILS,
 *     half of those with a 500 and half by dropping the connection without an answer; every later
 *     arrival of that event is accepted (204). So about 44 % of the requests it sees fail, and
 *     an event needs at most two attempts it sees: with the retry schedule (5 s, 30 s, 2 min,
 *     ±20 %), the second comes within ~6 s or, after a refused first attempt, ~42 s;
 *   - is down (not listening: connections are refused) for one short window of the cycle, shorter
 *     than the shortest first retry (5 s - 20 % = 4 s), so no two attempts of one event fall in it.
 *
 * Every request is kept with whether its Standard Webhooks signature verifies (the
 * `standardwebhooks` package, as a customer would check it) against the endpoint's secret.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Rng } from './burst.js';

/** Chance that the first arrival of an event is refused (500 or a dropped connection). */
export const FIRST_ARRIVAL_FAILS = 0.8;
/** The down window: at most this long, so two attempts of one event never both meet it. */
export const MAX_DOWN_MS = 3_500;

export interface ReceivedRequest {
  /** Date.now() when the body had arrived. */
  at: number;
  webhookId: string;
  type: string;
  postId: string | null;
  /** `data.object.status` of the event. */
  objectStatus: string | null;
  /** `data.object.format` (`thread` for an X thread), and a thread's further parts' platform ids. */
  format?: string | null;
  threadParts?: (string | null)[];
  verified: boolean;
  answer: 'accepted' | 'error_500' | 'dropped';
}

export class FlakyReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly failedOnce = new Set<string>();
  private server: Server | null = null;
  private verifier: Webhook | null = null;
  private port = 0;

  constructor(private readonly rng: Rng) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  /** The endpoint's secret (`whsec_…`), known once the endpoint is registered. */
  useSecret(secret: string): void {
    this.verifier = new Webhook(secret);
  }

  /** Listens (again) on its port: 0 the first time picks a free one, kept for the endpoint's URL. */
  async up(): Promise<void> {
    if (this.server) return;
    const server = createServer((request, response) => this.handle(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening: connections are refused until `up()`. Open requests are cut. */
  async down(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Our events are small; a bigger body is not one of them and is not kept.
      if (size <= 256 * 1024) chunks.push(chunk);
    });
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = (name: string): string => {
        const value = request.headers[name];
        return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
      };
      const webhookId = header('webhook-id');
      let verified = false;
      try {
        this.verifier?.verify(body, { 'webhook-id': webhookId, 'webhook-timestamp': header('webhook-timestamp'), 'webhook-signature': header('webhook-signature') });
        verified = this.verifier !== null;
      } catch {
        verified = false;
      }
      let type = '';
      let postId: string | null = null;
      let objectStatus: string | null = null;
      let format: string | null = null;
      let threadParts: (string | null)[] = [];
      try {
        const event = JSON.parse(body) as { type?: unknown; data?: { object?: { id?: unknown; status?: unknown; format?: unknown; threadParts?: unknown } } };
        type = typeof event.type === 'string' ? event.type : '';
        postId = typeof event.data?.object?.id === 'string' ? event.data.object.id : null;
        objectStatus = typeof event.data?.object?.status === 'string' ? event.data.object.status : null;
        format = typeof event.data?.object?.format === 'string' ? event.data.object.format : null;
        const parts = event.data?.object?.threadParts;
        if (Array.isArray(parts)) {
          threadParts = parts.map((part: unknown) => {
            const id = typeof part === 'object' && part !== null ? (part as { platformPostId?: unknown }).platformPostId : null;
            return typeof id === 'string' ? id : null;
          });
        }
      } catch {
        // Not JSON: kept with an empty type, so the check names it.
      }
      // Drawn for every request, so a cycle's answers depend only on its seed and arrival order.
      const draw = this.rng();
      let answer: ReceivedRequest['answer'] = 'accepted';
      if (!this.failedOnce.has(webhookId) && draw < FIRST_ARRIVAL_FAILS) {
        this.failedOnce.add(webhookId);
        answer = draw < FIRST_ARRIVAL_FAILS / 2 ? 'error_500' : 'dropped';
      } else {
        this.failedOnce.add(webhookId);
      }
      this.requests.push({ at: Date.now(), webhookId, type, postId, objectStatus, format, threadParts, verified, answer });
      if (answer === 'dropped') request.socket.destroy();
      else if (answer === 'error_500') response.writeHead(500, { 'content-type': 'text/plain' }).end('chaos: failing on purpose');
      else response.writeHead(204).end();
    });
  }
}
