/**
 * What bench/run.ts asks bench/load-worker.ts to do, and what it gets back. The load generator is
 * a separate process (autocannon), so the server under test never shares its event loop with it.
 */

/** One kind of request, repeated: each shape says how a request differs from the previous one. */
export type LoadRequests =
  /** POST /posts with a fresh Idempotency-Key and text each time; `body` is the rest of the JSON. */
  | { kind: 'create'; path: string; body: Record<string, unknown> }
  /** GET each path in turn, round and round. */
  | { kind: 'get'; paths: string[] }
  /** DELETE each path once, in order (the run's `amount` should not exceed the list). */
  | { kind: 'delete'; paths: string[] };

export interface LoadSpec {
  name: string;
  /** `http://127.0.0.1:<port>`; paths are absolute (`/api/v1/posts`). */
  origin: string;
  apiKey: string;
  connections: number;
  /** Either a duration or a number of requests. */
  durationSeconds?: number;
  amount?: number;
  requests: LoadRequests;
}

export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export interface LoadResult {
  name: string;
  connections: number;
  /** Responses received. */
  requests: number;
  /** Requests sent (a duration run ends with some still in flight; the server does their work all the same). */
  sent: number;
  durationMs: number;
  /** Responses per second over the run. */
  throughput: number;
  /** Milliseconds, of 2xx responses only, at sub-millisecond resolution. */
  latency: LatencySummary;
  statusCounts: Record<string, number>;
  /** Connection errors and timeouts. */
  errors: number;
  timeouts: number;
  /** One non-2xx body, to say what went wrong. */
  sampleError: string | null;
}

export type WorkerRequest = { type: 'run'; spec: LoadSpec } | { type: 'exit' };
export type WorkerReply = { type: 'ready' } | { type: 'result'; result: LoadResult } | { type: 'error'; message: string };
