/**
 * The publish outcome of a post (published or failed), written on its item by the publish worker
 * through DynamoDbPublishState, the only user. It touches the posts table only, so the worker
 * needs no access to the counters or idempotency tables.
 *
 * The common case (a post still scheduled and not deleted) goes through the caller's grouped
 * writer when it has one (lib/store/coalesced-updates.ts): a burst's outcomes come back from the
 * platforms within a few hundred milliseconds of each other, and one UpdateItem each was the
 * longest wait between a post going live and its webhook (the outcomes of 500 posts answered by
 * T+0.3 s were written from T+0.7 to T+2.7 s on DynamoDB Local, behind each other). A transaction
 * returns no item, so the post returned is the one read at the claim with the outcome applied: the
 * condition proved it still scheduled and not deleted, and nothing else of what a post shows
 * changes once it is claimed (a PATCH is refused with 409 from the claim on); only the claim's own
 * bookkeeping (inFlightSince) is as the worker read it, which nothing after the outcome reads. A
 * grouped write is transactional and costs twice the write units of an UpdateItem, paid only by
 * outcomes that came together (docs/performance.md).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Post, PostError } from '../domain/model.js';
import type { ConditionalUpdate } from './coalesced-updates.js';
import { duePartitionKey, dueShard, dueSortKey, errorToItem, itemToPost, metricsDueKeys, platformDeletionDueKeys, statusPartitionKey } from './post-item.js';
import { firstMetricsDueAt } from '../domain/post-metrics.js';

/** The deletion's due entry as expression values; it becomes pending when the post is published (deletedAt is earlier). */
function platformDeletionDueKeyValues(postId: string, publishedAt: string): Record<string, string> {
  const due = platformDeletionDueKeys(postId, publishedAt);
  return { ':duePk': due.duePk, ':dueSk': due.dueSk };
}

export type PostOutcome =
  | { status: 'published'; publishedAt: string; publishedUrl: string; platformPostId: string }
  | { status: 'failed'; error: PostError };

/**
 * The post went out, or did not (its error shown as the post's error). A post deleted while it
 * was being sent stays deleted (no index the API reads comes back); the post returned says so
 * (deletedAt, deleteFromPlatformRequested), so the worker can queue the deletion of the live
 * post, and its byDue entry keeps that deletion findable until it is done. Null when the post is
 * not scheduled any more (already recorded, or removed).
 */
export async function recordPostOutcome(
  client: DynamoDBDocumentClient,
  postsTable: string,
  post: Post,
  outcome: PostOutcome,
  now: Date,
  options: { claimToken?: string; grouped?: (update: ConditionalUpdate) => Promise<boolean> } = {},
): Promise<Post | null> {
  // With a claim token: only while that claim still holds the post (a worker whose lease was taken over writes nothing).
  const claimCheck = options.claimToken === undefined ? '' : ' AND claimToken = :claimToken';
  const { status, ...rest } = outcome;
  // A post that goes live gets its first metrics collection in this same write (byMetricsDue), so
  // no crash can leave a published post that is never collected.
  const fields: Record<string, unknown> =
    'error' in rest ? { error: errorToItem(rest.error) } : { ...rest, ...metricsDueKeys(post.id, firstMetricsDueAt(rest.publishedAt)) };
  const set = Object.keys(fields).map((name) => `#f_${name} = :f_${name}`);
  const names: Record<string, string> = { '#status': 'status', ...Object.fromEntries(Object.keys(fields).map((name) => [`#f_${name}`, name])) };
  const values: Record<string, unknown> = {
    ':status': status,
    ':scheduled': 'scheduled',
    ':now': now.toISOString(),
    ...Object.fromEntries(Object.entries(fields).map(([name, value]) => [`:f_${name}`, value])),
    ...(options.claimToken === undefined ? {} : { ':claimToken': options.claimToken }),
  };
  const attempts = [
    // A live post: its status index moves with it, and it leaves the due index, unless its first
    // comment is still to post: then the entry stays, at the time it went live, so the sweeper
    // brings the comment back if the worker stops before it is settled (first-comment.ts).
    outcome.status === 'published' && post.firstComment?.status === 'pending'
      ? {
          UpdateExpression: `SET #status = :status, updatedAt = :now, statusPk = :statusPk, duePk = :duePk, dueSk = :dueSk, ${set.join(', ')}`,
          ConditionExpression: `#status = :scheduled AND attribute_not_exists(deletedAt)${claimCheck}`,
          ExpressionAttributeValues: {
            ...values,
            ':statusPk': statusPartitionKey(post.userId, status),
            ':duePk': duePartitionKey(dueShard(post.id)),
            ':dueSk': dueSortKey({ scheduledFor: outcome.publishedAt, id: post.id }),
          },
        }
      : {
          UpdateExpression: `SET #status = :status, updatedAt = :now, statusPk = :statusPk, ${set.join(', ')} REMOVE duePk, dueSk`,
          ConditionExpression: `#status = :scheduled AND attribute_not_exists(deletedAt)${claimCheck}`,
          ExpressionAttributeValues: { ...values, ':statusPk': statusPartitionKey(post.userId, status) },
        },
    // Deleted with deleteFromPlatform while it was being sent, and it went out: the live copy must
    // come down, so its due entry becomes the deletion's (post-item.ts) in this same write. The
    // worker queues the deletion next; if it dies first, the sweeper finds this entry.
    ...(outcome.status === 'published'
      ? [
          {
            UpdateExpression: `SET #status = :status, updatedAt = :now, duePk = :duePk, dueSk = :dueSk, ${set.join(', ')}`,
            ConditionExpression: `#status = :scheduled AND attribute_exists(deletedAt) AND deleteFromPlatformRequested = :true${claimCheck}`,
            ExpressionAttributeValues: { ...values, ':true': true, ...platformDeletionDueKeyValues(post.id, outcome.publishedAt) },
          },
        ]
      : []),
    // Deleted while it was being sent, nothing to take down (failed, or no deleteFromPlatform):
    // record what happened, keep it out of every index (softDeletePost kept the due keys of a post
    // deleted with deleteFromPlatform until it was settled).
    {
      UpdateExpression: `SET #status = :status, updatedAt = :now, ${set.join(', ')} REMOVE duePk, dueSk`,
      ConditionExpression: `#status = :scheduled AND attribute_exists(deletedAt)${claimCheck}`,
      ExpressionAttributeValues: values,
    },
  ];
  const [common, ...others] = attempts;
  if (options.grouped && common) {
    // True when written: the post is as read with the outcome applied (see the header); false: it
    // was deleted meanwhile (or the claim lost), and the other cases are tried one by one below.
    const written = await options.grouped({ TableName: postsTable, Key: { id: post.id }, ExpressionAttributeNames: names, ...common });
    if (written) return appliedOutcome(post, outcome, now);
  }
  for (const attempt of options.grouped ? others : attempts) {
    try {
      const out = await client.send(
        new UpdateCommand({
          TableName: postsTable,
          Key: { id: post.id },
          ExpressionAttributeNames: names,
          ReturnValues: 'ALL_NEW',
          ...attempt,
        }),
      );
      return out.Attributes ? itemToPost(out.Attributes) : null;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
  return null;
}

/** The post as the common case's write leaves it: scheduled and not deleted before, the outcome applied. */
function appliedOutcome(post: Post, outcome: PostOutcome, now: Date): Post {
  const updatedAt = now.toISOString();
  return outcome.status === 'published'
    ? { ...post, status: 'published', updatedAt, publishedAt: outcome.publishedAt, publishedUrl: outcome.publishedUrl, platformPostId: outcome.platformPostId }
    : { ...post, status: 'failed', updatedAt, error: outcome.error };
}
