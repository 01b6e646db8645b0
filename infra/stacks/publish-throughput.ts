/**
 * How many posts the publish worker sends at once on AWS: the publish queue's event source
 * mapping (batch size and maximum concurrency), a deploy-time setting with the arithmetic behind
 * its default in docs/performance.md, "Posts due at the same second":
 *
 *   npx cdk deploy --all -c publishWorkerMaxConcurrency=100 -c publishWorkerBatchSize=10
 *
 * A batch of 10 messages holds up to 250 posts (group messages of 25 posts due at the same second,
 * lib/use-cases/publish-batch.ts), so the default 100 × 10 holds 25,000 posts at once; 10,000 due at
 * one second need 40 invocations, which the mapping reaches from its first 5 within the burst's
 * 21 s lead. The publish worker's reserved concurrency (api-stack.ts) must be at least
 * maxConcurrency, or Lambda throttles the mapping's invocations.
 */
import type { Construct } from 'constructs';
import { consumingOf } from '../../functions/catalogue.js';
import type { ConsumerOptions } from '../constructs/bindings.js';

export const PUBLISH_MAX_CONCURRENCY_CONTEXT = 'publishWorkerMaxConcurrency';
export const PUBLISH_BATCH_SIZE_CONTEXT = 'publishWorkerBatchSize';

/** The catalogue's default, which the local stack's pollers use too. */
export const PUBLISH_CONSUMING_DEFAULT: ConsumerOptions = consumingOf('publish');

/** Lambda's bounds: SQS maximum concurrency 2-1000; a batch above 10 needs a batching window, which would delay every post. */
const LIMITS = { maxConcurrency: [2, 1000], batchSize: [1, 10] } as const;

function setting(scope: Construct, key: string, fallback: number, [min, max]: readonly [number, number]): number {
  const raw: unknown = scope.node.tryGetContext(key);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`context ${key} must be a whole number from ${min} to ${max}, got ${String(raw)}`);
  return value;
}

/** The publish queue's consumer settings: cdk context, else PUBLISH_CONSUMING_DEFAULT. */
export function publishConsuming(scope: Construct): ConsumerOptions {
  return {
    batchSize: setting(scope, PUBLISH_BATCH_SIZE_CONTEXT, PUBLISH_CONSUMING_DEFAULT.batchSize, LIMITS.batchSize),
    maxConcurrency: setting(scope, PUBLISH_MAX_CONCURRENCY_CONTEXT, PUBLISH_CONSUMING_DEFAULT.maxConcurrency, LIMITS.maxConcurrency),
  };
}

export const POSTS_WARM_WRITE_UNITS_CONTEXT = 'postsTableWarmWriteUnits';

/**
 * The posts table's and its indexes' warm throughput, in write units a second
 * (docs/performance.md, "10,000 posts due at one second, on AWS"): what they serve at once, without
 * DynamoDB first scaling up. A new on-demand table serves 4,000 at first, and 10,000 posts due at
 * one second write about 10,000 a second for their "sent" markers (two units each, in
 * transactions, within the 2 s before their second) and as many in the second their outcomes come
 * in (the table and each index). 0 leaves DynamoDB's default (no pre-warming, no charge for it).
 */
export const POSTS_WARM_WRITE_UNITS_DEFAULT = 20_000;

/** The table-level on-demand write quota DynamoDB allows by default (adjustable): no warm value above it. */
const TABLE_WRITE_QUOTA = 40_000;

/** The posts table's warm write units: cdk context, else POSTS_WARM_WRITE_UNITS_DEFAULT; undefined for none. */
export function postsWarmWriteUnits(scope: Construct): number | undefined {
  const units = setting(scope, POSTS_WARM_WRITE_UNITS_CONTEXT, POSTS_WARM_WRITE_UNITS_DEFAULT, [0, TABLE_WRITE_QUOTA]);
  return units === 0 ? undefined : units;
}
