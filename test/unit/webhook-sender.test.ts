/**
 * The outbound webhook request (lib/egress/webhook-sender.ts) against servers on 127.0.0.1: the
 * address guard runs in the socket's own lookup (a name resolving to a private address is refused
 * before any connection, also when only one of its addresses is private), the answer is read only
 * up to 4 KiB, a hanging receiver ends at the timeout, and redirects are not followed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpWebhookSender } from '../../lib/egress/webhook-sender.js';
import type { Resolve } from '../../lib/egress/public-address.js';

let server: Server;
let origin: string;
let requests = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    requests += 1;
    request.resume();
    if (request.url === '/huge') {
      // Far more than the sender reads, and never ended: the sender must stop on its own.
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('x'.repeat(64 * 1024));
      return;
    }
    if (request.url === '/hang') return;
    if (request.url === '/redirect') {
      response.writeHead(307, { location: '/elsewhere' }).end();
      return;
    }
    response.writeHead(request.url === '/elsewhere' ? 200 : 204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const request = (url: string) => ({ url, headers: { 'content-type': 'application/json' }, body: '{}' });

describe('HttpWebhookSender', () => {
  it('refuses a name that resolves to a private or loopback address, before connecting', async () => {
    const before = requests;
    for (const addresses of [[{ address: '10.0.0.7', family: 4 }], [{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }]]) {
      const resolve: Resolve = (_host, callback) => callback(null, addresses);
      const sender = new HttpWebhookSender({ allowLoopback: false, resolve });
      const answer = await sender.send(request(`https://hooks.example.test:${new URL(origin).port}/x`));
      expect(answer).toMatchObject({ statusCode: null, error: expect.stringMatching(/not public/) });
    }
    const literal = await new HttpWebhookSender({ allowLoopback: false }).send(request('https://169.254.169.254/latest'));
    expect(literal.error).toMatch(/not a public address/);
    // Loopback over http only where allowed (the local stack), never over https by name.
    expect((await new HttpWebhookSender({ allowLoopback: false }).send(request(`${origin}/ok`))).error).toMatch(/https/);
    expect(requests).toBe(before);
  });

  it('reads at most a small answer and does not wait for the rest', async () => {
    const sender = new HttpWebhookSender({ allowLoopback: true, timeoutMs: 60_000 });
    const answer = await sender.send(request(`${origin}/huge`));
    expect(answer).toMatchObject({ statusCode: 200, error: null });
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    const sender = new HttpWebhookSender({ allowLoopback: true, timeoutMs: 300 });
    expect(await sender.send(request(`${origin}/hang`))).toMatchObject({ statusCode: null, error: expect.stringMatching(/no answer/) });
  });

  it('does not follow a redirect', async () => {
    const before = requests;
    const sender = new HttpWebhookSender({ allowLoopback: true });
    expect(await sender.send(request(`${origin}/redirect`))).toMatchObject({ statusCode: 307 });
    expect(requests).toBe(before + 1);
  });
});
