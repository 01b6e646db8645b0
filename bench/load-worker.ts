/**
 * The load generator: a child process of bench/run.ts (forked with tsx) that runs autocannon on
 * request, so the measured server never shares its event loop with the client hammering it.
 *
 * autocannon's own latency histogram keeps whole milliseconds; the API answers in a few, so this
 * worker records every response time itself (autocannon hands them over with sub-millisecond
 * resolution) and summarises those.
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import type { LoadRequests, LoadResult, LoadSpec, WorkerReply, WorkerRequest } from './load-protocol.js';
import { summarize } from './stats.js';

function send(reply: WorkerReply): void {
  process.send?.(reply);
}

type Request = autocannon.Request;

/** The one request autocannon repeats; setupRequest makes each one the next of its kind. */
function requestFor(spec: LoadSpec, onFailure: (status: number, body: string) => void): Request {
  const requests: LoadRequests = spec.requests;
  const headers = { authorization: `Bearer ${spec.apiKey}`, 'content-type': 'application/json' };
  const onResponse = (status: number, body: string): void => {
    if (status < 200 || status > 299) onFailure(status, body);
  };
  switch (requests.kind) {
    case 'create': {
      let sequence = 0;
      const runId = randomUUID().slice(0, 8);
      return {
        method: 'POST',
        path: requests.path,
        headers,
        onResponse,
        setupRequest: (request) => {
          sequence += 1;
          // A fresh key and text each time: every request is a new create, never a replay, and
          // no two posts of one account carry the same text (X refuses duplicates).
          return {
            ...request,
            headers: { ...headers, 'idempotency-key': `bench-${runId}-${sequence}` },
            body: JSON.stringify({ ...requests.body, text: `Bench post ${runId}-${sequence}: measured, not published.` }),
          };
        },
      };
    }
    case 'get':
    case 'delete': {
      let next = 0;
      const paths = requests.paths;
      const method = requests.kind === 'get' ? 'GET' : 'DELETE';
      return {
        method,
        path: paths[0] ?? '/',
        headers: { authorization: headers.authorization },
        onResponse,
        setupRequest: (request) => {
          const path = requests.kind === 'get' ? paths[next % paths.length] : paths[next];
          next += 1;
          return { ...request, method, path: path ?? '/missing' };
        },
      };
    }
  }
}

function run(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    const statusCounts: Record<string, number> = {};
    let sampleError: string | null = null;
    const request = requestFor(spec, (status, body) => {
      sampleError ??= `${status} ${body.slice(0, 300)}`;
    });
    const started = performance.now();
    const instance = autocannon(
      {
        url: spec.origin,
        connections: spec.connections,
        pipelining: 1,
        ...(spec.amount !== undefined ? { amount: spec.amount } : { duration: spec.durationSeconds ?? 5 }),
        timeout: 30,
        requests: [request],
      },
      (error, result) => {
        if (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        const durationMs = performance.now() - started;
        const responses = Object.values(statusCounts).reduce((total, count) => total + count, 0);
        resolve({
          name: spec.name,
          connections: spec.connections,
          requests: responses,
          sent: result.requests.sent,
          durationMs,
          throughput: responses / (durationMs / 1000),
          latency: summarize(latencies),
          statusCounts,
          errors: result.errors,
          timeouts: result.timeouts,
          sampleError,
        });
      },
    );
    // autocannon emits (client, statusCode, bytes, responseTimeMs); its typings omit the client.
    instance.on('response', (...args: unknown[]) => {
      const status = args[1];
      const time = args[3];
      if (typeof status !== 'number' || typeof time !== 'number') return;
      statusCounts[status] = (statusCounts[status] ?? 0) + 1;
      if (status >= 200 && status <= 299) latencies.push(time);
    });
  });
}

process.on('message', (message: WorkerRequest) => {
  if (message.type === 'exit') {
    process.disconnect?.();
    return;
  }
  run(message.spec).then(
    (result) => send({ type: 'result', result }),
    (error: unknown) => send({ type: 'error', message: error instanceof Error ? error.message : String(error) }),
  );
});

send({ type: 'ready' });
