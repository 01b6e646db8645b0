/**
 * The bench's view of the stack's S3 traffic: a pass-through proxy in front of the S3 emulator
 * that counts requests by kind and the bytes each GET answered. The media phase reads it to show
 * that completing a 200 MB video reads a few ranges, not the file (issue 29), and prices the
 * requests S3 bills. It changes nothing on the way: method, path, headers (the Host a request was
 * signed for included) and bodies pass as they are.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** S3's request kinds as its price list groups them. */
export interface S3Traffic {
  /** PUT, POST, LIST and COPY: the dearer tier. */
  puts: number;
  copies: number;
  gets: number;
  heads: number;
  deletes: number;
  /** Bytes of GET answers' bodies: what a reader took out of the bucket. */
  bytesRead: number;
  /** Each GET's Range header (or "whole object"), in order. */
  ranges: string[];
}

export interface S3Meter {
  endpoint: string;
  traffic(): S3Traffic;
  reset(): void;
  stop(): Promise<void>;
}

const empty = (): S3Traffic => ({ puts: 0, copies: 0, gets: 0, heads: 0, deletes: 0, bytesRead: 0, ranges: [] });

export async function startS3Meter(target: string): Promise<S3Meter> {
  const upstream = new URL(target);
  let counted = empty();
  const count = (incoming: IncomingMessage): void => {
    const method = incoming.method ?? 'GET';
    if (method === 'GET') {
      counted.gets += 1;
      counted.ranges.push(String(incoming.headers.range ?? 'whole object'));
    } else if (method === 'HEAD') counted.heads += 1;
    else if (method === 'DELETE') counted.deletes += 1;
    else if (incoming.headers['x-amz-copy-source'] !== undefined) counted.copies += 1;
    else counted.puts += 1;
  };
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    count(incoming);
    const forwarded = request(
      { hostname: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        if (incoming.method === 'GET') answer.on('data', (chunk: Buffer) => (counted.bytesRead += chunk.byteLength));
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(forwarded);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    traffic: () => ({ ...counted, ranges: [...counted.ranges] }),
    reset: () => {
      counted = empty();
    },
    stop: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
