/**
 * A webhook receiver for tests: a node:http server on 127.0.0.1 that records every request
 * (headers, body) and answers what the test says (`answer`, changeable at any time; a `hold`
 * answer keeps the request open until `release`; `delayMs` answers after a pause). `closed` counts
 * requests whose connection ended before an answer was sent (the sender gave up); `maxOpen` is the
 * most requests it ever had open at once.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ReceivedDelivery {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: { id: string; type: string; createdAt: string; data: { object: Record<string, unknown> } };
}

export type Answer = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'hold';

export interface WebhookReceiver {
  url: string;
  origin: string;
  received: ReceivedDelivery[];
  /** Requests whose connection closed before they were answered. */
  closedUnanswered: number;
  /** Requests open now (received, not yet answered or closed), and the most there ever were. */
  open: number;
  maxOpen: number;
  answer: (request: ReceivedDelivery, index: number) => Answer;
  release(): void;
  waitFor(predicate: (received: ReceivedDelivery[]) => boolean, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  stop(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const held: ServerResponse[] = [];
  const receiver: WebhookReceiver = {
    url: '',
    origin: '',
    received: [],
    closedUnanswered: 0,
    open: 0,
    maxOpen: 0,
    answer: () => ({ status: 204 }),
    release: () => {
      for (const response of held.splice(0)) if (!response.writableEnded && !response.destroyed) response.writeHead(200).end();
    },
    waitFor: async (predicate, timeoutMs = 25_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(receiver.received)) {
        if (Date.now() > deadline) throw new Error(`receiver: condition not met; got ${receiver.received.map((r) => r.json?.type).join(', ')}`);
        await sleep(50);
      }
      return receiver.received;
    },
    stop: async () => {
      receiver.release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    receiver.open += 1;
    receiver.maxOpen = Math.max(receiver.maxOpen, receiver.open);
    response.on('close', () => {
      receiver.open -= 1;
    });
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[name] = value;
      let json: ReceivedDelivery['json'];
      try {
        json = JSON.parse(body) as ReceivedDelivery['json'];
      } catch {
        json = { id: '', type: '', createdAt: '', data: { object: {} } };
      }
      const delivery: ReceivedDelivery = { path: request.url ?? '/', headers, body, json };
      receiver.received.push(delivery);
      const answer = receiver.answer(delivery, receiver.received.length - 1);
      if (answer === 'hold') {
        held.push(response);
        response.on('close', () => {
          if (!response.writableEnded) receiver.closedUnanswered += 1;
        });
        return;
      }
      const send = (): void => {
        if (!response.destroyed) response.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  receiver.origin = `http://127.0.0.1:${port}`;
  receiver.url = `${receiver.origin}/hooks`;
  return receiver;
}
