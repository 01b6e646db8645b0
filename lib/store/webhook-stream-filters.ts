/**
 * Which stream records can become webhook events (lib/domain/webhooks.ts postEvents,
 * accountEvents), as Lambda event filter patterns: the event source mappings on AWS
 * (infra/stacks/api-stack.ts) and the local stream poller (local/stream-router.ts) both take them
 * from here, so the router sees the same records in both places. Without them the router would be
 * handed every write to a post (create, claim, lease renewals, ...): in a 500-post burst several
 * thousand records, each read through its schema, for 500 that can be events.
 *
 * Only the pattern forms used here: a list of accepted string values, or `{ exists: true }`.
 */
/**
 * Batches of one stream shard the webhook router handles at once: the mappings' ParallelizationFactor
 * on AWS (1-10; infra/stacks/api-stack.ts ROUTER_PARALLELIZATION) and the local poller's, from here too.
 */
export const WEBHOOK_ROUTER_PARALLELIZATION = 4;

export type StreamFilterPattern = { [key: string]: StreamFilterPattern | readonly (string | { exists: boolean })[] };

export const WEBHOOK_STREAM_FILTERS: Record<'posts' | 'directory', readonly StreamFilterPattern[]> = {
  posts: [
    // A post whose new image is published or failed (the router compares with the old image).
    { dynamodb: { NewImage: { status: { S: ['published', 'failed'] } } } },
    // A post deleted on its platform.
    { dynamodb: { NewImage: { platformDeletedAt: { S: [{ exists: true }] } } } },
  ],
  // Account items, whatever changed (connected, disconnected, token health).
  // Media items whose new image is settled (the router compares with the old image).
  directory: [
    { dynamodb: { Keys: { sk: { S: ['ACCOUNT'] } } } },
    { dynamodb: { Keys: { sk: { S: ['MEDIA'] } }, NewImage: { status: { S: ['ready', 'failed'] } } } },
  ],
};

/** Whether a record (as Lambda delivers it) matches a pattern, as Lambda's event filtering decides. */
export function matchesStreamFilter(record: unknown, pattern: StreamFilterPattern): boolean {
  const value = (from: unknown, key: string): unknown => (typeof from === 'object' && from !== null ? (from as Record<string, unknown>)[key] : undefined);
  return Object.entries(pattern).every(([key, rule]) => {
    const field = value(record, key);
    if (!Array.isArray(rule)) return matchesStreamFilter(field, rule as StreamFilterPattern);
    return (rule as readonly (string | { exists: boolean })[]).some((accepted) =>
      typeof accepted === 'string' ? field === accepted : (field !== undefined) === accepted.exists,
    );
  });
}
