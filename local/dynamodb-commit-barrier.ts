/**
 * DynamoDB Local answers a TransactWriteItems before the transaction is committed; this proxy in
 * front of it holds the answer back until it is.
 *
 * Why: DynamoDB Local keeps its data in SQLite and runs every statement on one queue thread.
 * A single-item write is one job (BEGIN, write, COMMIT) that the request waits for. A transaction
 * is not: `SQLiteDBAccess.commitTransaction` (DynamoDBLocal.jar, 2026-01-16) puts the COMMIT on
 * the queue and returns without waiting for it, and the answer goes out. Every later request sees
 * the transaction (its job runs after the COMMIT on the same queue), so nothing shows until the
 * JVM dies: killed with -9 in the few milliseconds between the answer and the COMMIT, it loses a
 * transaction it acknowledged, all of it (in the crash test, a cancelled post with its refund came
 * back after the restart and was published: docs/reliability.md, "Crash test").
 * test/local/dynamodb-durability.test.ts shows it, and that this barrier closes it.
 *
 * DynamoDB on AWS acknowledges a write only once it is durable, so the local stand-in must too:
 * after a successful TransactWriteItems (or PartiQL ExecuteTransaction, the only other request
 * that commits that way) the proxy sends a ListTables of one table, a request that waits for its
 * own job on the same queue, behind the COMMIT; only then does the answer go back. If the barrier
 * fails (the JVM died meanwhile) the connection is dropped unanswered: the caller sees an unknown
 * outcome, as it would from AWS, never a success that was not kept. Every other request passes
 * through untouched.
 *
 * Only a stack with a data directory needs this (in memory, a kill loses everything anyway), so
 * the tests' and the benchmark's in-memory DynamoDB Local are reached directly.
 */
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** Requests that DynamoDB Local commits on its queue without waiting (see above). */
const COMMITTED_LATER = new Set(['DynamoDB_20120810.TransactWriteItems', 'DynamoDB_20120810.ExecuteTransaction']);
/** Answers: after DynamoDB Local's queue has run everything before it. */
const BARRIER_TARGET = 'DynamoDB_20120810.ListTables';
const BARRIER_BODY = '{"Limit":1}';

/** Headers of one connection, not of the message (RFC 9110 7.6.1): never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

export interface CommitBarrier {
  endpoint: string;
  port: number;
  /** Stops accepting and drops open connections. Safe to call more than once. */
  close(): Promise<void>;
}

interface Upstream {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function readBody(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}

function forwardedHeaders(headers: IncomingHttpHeaders, body: Buffer): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === 'host' || name === 'content-length') continue;
    out[name] = value;
  }
  out['content-length'] = String(body.length);
  return out;
}

export async function startCommitBarrier(target: { host: string; port: number }): Promise<CommitBarrier> {
  const agent = new Agent({ keepAlive: true });

  const send = (method: string, path: string, headers: Record<string, string | string[]>, body: Buffer): Promise<Upstream> =>
    new Promise((resolve, reject) => {
      const outgoing = httpRequest({ host: target.host, port: target.port, method, path, headers, agent }, (incoming) => {
        readBody(incoming).then((buffer) => resolve({ status: incoming.statusCode ?? 502, headers: incoming.headers, body: buffer }), reject);
      });
      outgoing.once('error', reject);
      outgoing.end(body);
    });

  const sockets = new Set<Socket>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const body = await readBody(req);
      const headers = forwardedHeaders(req.headers, body);
      const answer = await send(req.method ?? 'POST', req.url ?? '/', headers, body);
      const operation = req.headers['x-amz-target'];
      if (answer.status === 200 && typeof operation === 'string' && COMMITTED_LATER.has(operation)) {
        // Same credentials as the request (DynamoDB Local reads the access key, checks no signature).
        const barrierBody = Buffer.from(BARRIER_BODY);
        const barrier = await send('POST', '/', { ...headers, 'x-amz-target': BARRIER_TARGET, 'content-length': String(barrierBody.length) }, barrierBody);
        if (barrier.status !== 200) throw new Error(`the commit barrier was refused: ${barrier.status}`);
      }
      const responseHeaders: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name) && name !== 'content-length') responseHeaders[name] = value;
      }
      res.writeHead(answer.status, { ...responseHeaders, 'content-length': String(answer.body.length) });
      res.end(answer.body);
    })().catch(() => {
      // Unknown outcome (DynamoDB Local unreachable or died before the barrier): no answer at all,
      // as a connection to DynamoDB lost mid-request, never an acknowledgement that may not hold.
      res.destroy();
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        agent.destroy();
      });
      return closing;
    },
  };
}
