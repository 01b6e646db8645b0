/**
 * The publish worker's and the sweeper's writes to the posts table. The post itself is read and
 * written through the one item mapping (post-item.ts) and the outcome writes (post-outcome.ts); what
 * this file adds is the worker's bookkeeping on the same item, which itemToPost never returns:
 *
 *   claimToken, claimUntil   who is sending the post now, and until when (a lease: a worker that
 *                            stopped mid-send is replaced once it runs out)
 *   publishAttempts          attempts so far; firstAttemptAt starts the 15-minute retry window
 *   publishFailures          attempts that ended in a transient failure (the backoff grows with these)
 *   retryAt                  next attempt after a transient failure
 *   platformCreateSentAt     the create request of an attempt went to the platform and its
 *                            outcome is not recorded yet: a later attempt must not resend blindly,
 *                            but look the post up first
 *   platformCreateMediaIds   the platform media ids that create carried (the lookup's match for a
 *                            post without text)
 *   sweptAt                  the sweeper last put a message back for the post (publish, or
 *                            platform deletion once published)
 *   platformDeletedAt        deleteFromPlatform done
 *   platformDeletionAbandonedAt, platformDeletionAbandonedFor
 *                            deleteFromPlatform refused for good (account gone, ...), and why
 *   commentClaimToken, commentClaimUntil, commentAttempts, commentFirstAttemptAt, commentRetryAt,
 *   commentSentAt            the same for a published post's first comment (first-comment.ts):
 *                            its lease, attempts, next try, and its own "sent" marker
 *
 * A thread (lib/domain/thread-progress.ts) reuses the post's own "sent" marker for each part: the
 * marker always stands for the first part without an id, and recordThreadPart clears it in the
 * write that records that part's id, so a part is never looked up or resent by mistake for another.
 *
 * (inFlightSince, the Post's own field, is set by the "sent" marker and cleared only by a release
 * that knows nothing went out: while it is set, DELETE soft-deletes rather than cancels.)
 *
 * Every write is conditional on the state it expects (status, deletedAt, claim token), so a delete,
 * a duplicate message and the sweeper can race the worker without undoing each other. Leases are
 * short and renewed while a send runs (PublishPost's heartbeat), so a worker that died is replaced
 * within seconds; a worker that outlived its lease can neither send nor write an outcome other
 * than a published one (whose platform id is a fact worth keeping, whoever learnt it).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { transactWithRetry } from './transactions.js';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';
import { requireEnv } from '../config.js';
import type { Post, PostError } from '../domain/model.js';
import type { ClaimResult, CommentClaim, PostForPublishing, PublishState } from '../domain/publish-state.js';
import { nextDueAt } from '../domain/publishing.js';
import type { DueCounter } from '../use-cases/ports/dispatch.js';
import type { PublishStateStore } from '../use-cases/ports/publish-state-store.js';
import { allowanceCounterUpdate } from './allowance-counter.js';
import { batchGetAll } from './batch-get.js';
import { CoalescedUpdates, type ConditionalUpdate } from './coalesced-updates.js';
import { documentClient } from './dynamo-client.js';
import { readItem } from './item-schema.js';
import { duePartitionKey, dueShard, dueSortKey, errorToItem, IN_FLIGHT_ATTRIBUTE, itemToPost, POST_INDEXES, type PostItem } from './post-item.js';
import { recordPostOutcome } from './post-outcome.js';
import { COUNTERS_TABLE, DUE_SHARDS, POSTS_TABLE } from './tables.js';

/** The worker's bookkeeping attributes; each absent until first written (a value of another type reads as absent). */
const bookkeepingString = v.fallback(v.nullable(v.string()), null);
const PUBLISH_STATE_ITEM = v.object({
  claimToken: bookkeepingString,
  claimUntil: bookkeepingString,
  publishAttempts: v.fallback(v.number(), 0),
  publishFailures: v.fallback(v.number(), 0),
  firstAttemptAt: bookkeepingString,
  retryAt: bookkeepingString,
  platformCreateSentAt: bookkeepingString,
  platformCreateMediaIds: v.fallback(v.array(v.string()), []),
  sweptAt: bookkeepingString,
  platformDeletedAt: bookkeepingString,
  commentClaimUntil: bookkeepingString,
  commentRetryAt: bookkeepingString,
});

const COMMENT_STATE_ITEM = v.object({
  commentAttempts: v.fallback(v.number(), 0),
  commentFirstAttemptAt: bookkeepingString,
  commentSentAt: bookkeepingString,
});

function publishStateOf(item: PostItem): PublishState {
  const { publishAttempts, publishFailures, ...state } = readItem(PUBLISH_STATE_ITEM, item, `Post item ${String(item.id)}`);
  return { ...state, attempts: publishAttempts, failures: publishFailures };
}

/** BatchGetItem's most keys per request, and how often unprocessed keys are retried (with backoff). */

async function conditional<T>(write: () => Promise<T>): Promise<T | null> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return null;
    throw error;
  }
}

export interface DynamoDbPublishStateOptions {
  postsTable?: string;
  /** Where a unit is given back (recordNeverSent); read from COUNTERS_TABLE at that first use by default, so the sweeper needs no such variable. */
  countersTable?: string;
  client?: DynamoDBDocumentClient;
}

/** A refund's transaction retried on TransactionConflict (another request held the counter); each retry means one of them went through. */
const REFUND_ATTEMPTS = 8;

export class DynamoDbPublishState implements PublishStateStore, DueCounter {
  private readonly table: string;
  private readonly client: DynamoDBDocumentClient;
  /**
   * The "sent" markers written together when they come together: the only DynamoDB request a
   * burst of posts due at one second waits for before its creates go out, so no marker waits
   * behind another write (lib/store/coalesced-updates.ts).
   */
  private readonly sentMarkers: CoalescedUpdates;
  /** The outcomes written together when they come together (lib/store/post-outcome.ts). */
  private readonly outcomes: CoalescedUpdates;
  private readonly countersTableOption: string | undefined;

  constructor(options: DynamoDbPublishStateOptions = {}) {
    this.table = options.postsTable ?? requireEnv(POSTS_TABLE.envVar);
    this.countersTableOption = options.countersTable;
    this.client = options.client ?? documentClient;
    this.sentMarkers = new CoalescedUpdates(this.client, { maxFlushesInFlight: Number.POSITIVE_INFINITY });
    this.outcomes = new CoalescedUpdates(this.client);
  }

  /** One conditional UpdateItem on a post: true when written, false when its condition failed. */
  private async updateIf(postId: string, update: Omit<NonNullable<ConstructorParameters<typeof UpdateCommand>[0]>, 'TableName' | 'Key'>): Promise<boolean> {
    const out = await conditional(() => this.client.send(new UpdateCommand({ TableName: this.table, Key: { id: postId }, ...update })));
    return out !== null;
  }

  async getPostForPublishing(postId: string): Promise<PostForPublishing | null> {
    const out = await this.client.send(new GetCommand({ TableName: this.table, Key: { id: postId }, ConsistentRead: true }));
    return out.Item ? { post: itemToPost(out.Item), state: publishStateOf(out.Item) } : null;
  }

  /**
   * The claim is the worker's first request for a post: the condition is the whole check (due by
   * `dueBy`, scheduled, not deleted, not held), and ALL_OLD gives back the post to send (the claim
   * changes only bookkeeping, so the post is the same) with the time it is due. When the condition
   * fails, DynamoDB returns the item as it was (ReturnValuesOnConditionCheckFailure), so a
   * duplicate delivery or a cancelled post costs this one request too. An update whose condition
   * fails never creates the item, so a post already removed stays removed.
   *
   * The claim does not make the post "in flight": until the "sent" marker (markCreateSending), a
   * delete still cancels it and gives its unit back, and the marker's condition then stops the send.
   */
  async claim(postId: string, input: { token: string; now: Date; leaseUntil: Date; dueBy?: Date }): Promise<ClaimResult> {
    const now = input.now.toISOString();
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id: postId },
          UpdateExpression: 'SET claimToken = :token, claimUntil = :until, firstAttemptAt = if_not_exists(firstAttemptAt, :now) ADD publishAttempts :one REMOVE retryAt',
          // ISO times written by toISOString compare as strings in time order. A deleted post is
          // claimed only to settle an earlier create that may be live: found, it comes down when
          // deleteFromPlatform asked; not there, its unit is given back (recordNeverSent).
          ConditionExpression:
            '#status = :scheduled AND scheduledFor <= :dueBy ' +
            // A thread deleted with parts live (platformPostId) is claimed too: to record what is live.
            'AND (attribute_not_exists(deletedAt) OR attribute_exists(platformCreateSentAt) OR attribute_exists(platformPostId)) ' +
            'AND (attribute_not_exists(retryAt) OR retryAt <= :dueBy) AND (attribute_not_exists(claimUntil) OR claimUntil < :now)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':token': input.token,
            ':until': input.leaseUntil.toISOString(),
            ':now': now,
            ':dueBy': (input.dueBy ?? input.now).toISOString(),
            ':one': 1,
            ':scheduled': 'scheduled',
          },
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const item = out.Attributes;
      if (!item) throw new Error(`The claim of post ${postId} returned no item`);
      const before = publishStateOf(item);
      const post = itemToPost(item);
      return {
        claimed: true,
        post,
        claim: {
          token: input.token,
          attempt: before.attempts + 1,
          firstAttemptAt: before.firstAttemptAt ?? now,
          failures: before.failures,
          sendAt: nextDueAt(post.scheduledFor, before.retryAt).toISOString(),
          // platformCreateSentAt survives only an attempt whose outcome was never recorded.
          uncertain: before.platformCreateSentAt !== null,
          platformCreateSentAt: before.platformCreateSentAt,
          sentMediaIds: before.platformCreateMediaIds,
        },
      };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // The document client does not unmarshall an error's item.
      const item = error.Item ? unmarshall(error.Item) : null;
      return { claimed: false, current: item ? { post: itemToPost(item), state: publishStateOf(item) } : null };
    }
  }

  /**
   * The "sent" marker, right before the create request: from now the create may be live, so the
   * post is in flight (a delete soft-deletes it) and a later attempt must look it up before
   * sending again. Conditional on the claim and its lease still held, and the post not deleted.
   * Markers asked together are written together (lib/store/coalesced-updates.ts).
   */
  markCreateSending(postId: string, token: string, now: Date, mediaIds: readonly string[] = []): Promise<boolean> {
    return this.sentMarkers.write(this.sentMarker(postId, token, now, mediaIds));
  }

  private sentMarker(postId: string, token: string, now: Date, mediaIds: readonly string[]): ConditionalUpdate {
    return {
      TableName: this.table,
      Key: { id: postId },
      UpdateExpression:
        `SET platformCreateSentAt = :now, ${IN_FLIGHT_ATTRIBUTE} = if_not_exists(${IN_FLIGHT_ATTRIBUTE}, :now)` +
        (mediaIds.length > 0 ? ', platformCreateMediaIds = :media' : ' REMOVE platformCreateMediaIds'),
      // The lease too: a worker that outlived it (a stalled process) must not send, another may hold the post.
      ConditionExpression: '#status = :scheduled AND attribute_not_exists(deletedAt) AND claimToken = :token AND claimUntil >= :now',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':now': now.toISOString(),
        ':token': token,
        ':scheduled': 'scheduled',
        ...(mediaIds.length > 0 ? { ':media': [...mediaIds] } : {}),
      },
    };
  }

  async renewLease(postId: string, token: string, until: Date): Promise<boolean> {
    return this.updateIf(postId, {
      UpdateExpression: 'SET claimUntil = :until',
      ConditionExpression: '#status = :scheduled AND claimToken = :token',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':until': until.toISOString(), ':token': token, ':scheduled': 'scheduled' },
    });
  }

  async releaseForRetry(postId: string, token: string, input: { retryAt: Date; uncertain: boolean; failed: boolean; partsLive?: boolean }): Promise<boolean> {
    if (input.partsLive === true && !input.uncertain) {
      // A thread with parts live stays in flight (a delete soft-deletes it: they are live), and is
      // released even when deleted meanwhile: its next claim records what is live.
      return this.updateIf(postId, {
        UpdateExpression:
          'SET retryAt = :retryAt, dueSk = :dueSk REMOVE claimToken, claimUntil, platformCreateSentAt, platformCreateMediaIds' + (input.failed ? ' ADD publishFailures :one' : ''),
        ConditionExpression: '#status = :scheduled AND claimToken = :token',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':retryAt': input.retryAt.toISOString(),
          ':dueSk': dueSortKey({ scheduledFor: input.retryAt.toISOString(), id: postId }),
          ':token': token,
          ':scheduled': 'scheduled',
          ...(input.failed ? { ':one': 1 } : {}),
        },
      });
    }
    return this.updateIf(postId, {
      // Certain that nothing went out: the post is no longer in flight (IN_FLIGHT_ATTRIBUTE),
      // so a delete while it waits for its retry cancels it and gives its unit back. Not a post
      // deleted while it was sent: with nothing that may be live, no claim or sweep would ever
      // take it up again, so it is left to the caller to record (false).
      // Its byDue entry moves to the retry time, where the sweeper looks for it if the retry's
      // message is lost: left at its first due time, a post waiting to be tried again would hold
      // one of the oldest places every sweep reads (see lib/use-cases/sweep.ts). (A post deleted
      // while it was sent, without deleteFromPlatform, has no duePk: a dueSk alone indexes nothing.)
      UpdateExpression:
        `SET retryAt = :retryAt, dueSk = :dueSk REMOVE claimToken, claimUntil${input.uncertain ? '' : `, platformCreateSentAt, platformCreateMediaIds, ${IN_FLIGHT_ATTRIBUTE}`}` +
        (input.failed ? ' ADD publishFailures :one' : ''),
      ConditionExpression: `#status = :scheduled AND claimToken = :token${input.uncertain ? '' : ' AND attribute_not_exists(deletedAt)'}`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':retryAt': input.retryAt.toISOString(),
        ':dueSk': dueSortKey({ scheduledFor: input.retryAt.toISOString(), id: postId }),
        ':token': token,
        ':scheduled': 'scheduled',
        ...(input.failed ? { ':one': 1 } : {}),
      },
    });
  }

  async recordThreadPart(postId: string, index: number, result: { platformPostId: string; publishedUrl: string }, now: Date): Promise<Post | null> {
    // Part 1 is the post's own platformPostId/publishedUrl; part i + 1 is threadParts[i].
    const path = index === 0 ? { id: '#pid', url: '#url' } : { id: `#parts[${index - 1}].#pid`, url: `#parts[${index - 1}].#url` };
    const out = await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id: postId },
          UpdateExpression: `SET ${path.id} = :id, ${path.url} = :url, updatedAt = :now REMOVE platformCreateSentAt, platformCreateMediaIds`,
          ConditionExpression: `#status = :scheduled AND (attribute_not_exists(${path.id}) OR ${path.id} = :id)`,
          ExpressionAttributeNames: { '#status': 'status', '#pid': 'platformPostId', '#url': 'publishedUrl', ...(index === 0 ? {} : { '#parts': 'threadParts' }) },
          ExpressionAttributeValues: { ':id': result.platformPostId, ':url': result.publishedUrl, ':now': now.toISOString(), ':scheduled': 'scheduled' },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return out?.Attributes ? itemToPost(out.Attributes) : null;
  }

  async claimComment(postId: string, input: { token: string; now: Date; leaseUntil: Date }): Promise<CommentClaim | null> {
    const now = input.now.toISOString();
    const out = await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id: postId },
          UpdateExpression: 'SET commentClaimToken = :token, commentClaimUntil = :until, commentFirstAttemptAt = if_not_exists(commentFirstAttemptAt, :now) ADD commentAttempts :one',
          ConditionExpression:
            '#status = :published AND firstComment.#status = :pending AND attribute_not_exists(deletedAt) ' +
            'AND (attribute_not_exists(commentClaimUntil) OR commentClaimUntil < :now) AND (attribute_not_exists(commentRetryAt) OR commentRetryAt <= :now)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':token': input.token, ':until': input.leaseUntil.toISOString(), ':now': now, ':one': 1, ':published': 'published', ':pending': 'pending' },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    const item = out?.Attributes;
    if (!item) return null;
    const state = readItem(COMMENT_STATE_ITEM, item, `Post item ${postId}`);
    return { post: itemToPost(item), token: input.token, attempt: state.commentAttempts, firstAttemptAt: state.commentFirstAttemptAt ?? now, sentAt: state.commentSentAt };
  }

  markCommentSending(postId: string, token: string, now: Date): Promise<boolean> {
    return this.updateIf(postId, {
      UpdateExpression: 'SET commentSentAt = :now',
      ConditionExpression: '#status = :published AND firstComment.#status = :pending AND attribute_not_exists(deletedAt) AND commentClaimToken = :token AND commentClaimUntil >= :now',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':now': now.toISOString(), ':token': token, ':published': 'published', ':pending': 'pending' },
    });
  }

  async recordComment(
    postId: string,
    outcome: { status: 'published'; platformCommentId: string } | { status: 'failed'; error: PostError },
    now: Date,
    token?: string,
  ): Promise<Post | null> {
    const set = outcome.status === 'published' ? 'firstComment.platformCommentId = :outcome' : 'firstComment.#error = :outcome';
    const base = {
      ConditionExpression: `#status = :published AND firstComment.#status = :pending${token === undefined ? '' : ' AND commentClaimToken = :token'}`,
      ExpressionAttributeNames: { '#status': 'status', ...(outcome.status === 'failed' ? { '#error': 'error' } : {}) },
      ExpressionAttributeValues: {
        ':published': 'published',
        ':pending': 'pending',
        ':commentStatus': outcome.status,
        ':now': now.toISOString(),
        ':outcome': outcome.status === 'published' ? outcome.platformCommentId : errorToItem(outcome.error),
        ...(token === undefined ? {} : { ':token': token }),
      },
      ReturnValues: 'ALL_NEW' as const,
    };
    const update = `SET firstComment.#status = :commentStatus, ${set}, updatedAt = :now REMOVE commentClaimToken, commentClaimUntil, commentSentAt, commentRetryAt`;
    // Settled: its due entry goes too, unless the post was deleted meanwhile (then the entry, if
    // any, is its platform deletion's: post-item.ts).
    for (const attempt of [
      { UpdateExpression: `${update}, duePk, dueSk`, ConditionExpression: `${base.ConditionExpression} AND attribute_not_exists(deletedAt)` },
      { UpdateExpression: update, ConditionExpression: `${base.ConditionExpression} AND attribute_exists(deletedAt)` },
    ]) {
      const out = await conditional(() => this.client.send(new UpdateCommand({ TableName: this.table, Key: { id: postId }, ...base, ...attempt })));
      if (out?.Attributes) return itemToPost(out.Attributes);
    }
    return null;
  }

  async releaseComment(postId: string, token: string, input: { retryAt: Date; uncertain: boolean }): Promise<boolean> {
    return this.updateIf(postId, {
      // Its due entry moves to the retry time: where the sweeper finds it if the retry's message is lost.
      UpdateExpression: `SET commentRetryAt = :retryAt, duePk = :duePk, dueSk = :dueSk REMOVE commentClaimToken, commentClaimUntil${input.uncertain ? '' : ', commentSentAt'}`,
      ConditionExpression: '#status = :published AND firstComment.#status = :pending AND attribute_not_exists(deletedAt) AND commentClaimToken = :token',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':retryAt': input.retryAt.toISOString(),
        ':duePk': duePartitionKey(dueShard(postId)),
        ':dueSk': dueSortKey({ scheduledFor: input.retryAt.toISOString(), id: postId }),
        ':token': token,
        ':published': 'published',
        ':pending': 'pending',
      },
    });
  }

  /**
   * Conditioned on the post still being scheduled, not on the claim: a platform id in hand is the
   * truth about the post, and a worker that took over can only be settling this very create.
   */
  recordPublished(post: Post, outcome: { publishedAt: string; publishedUrl: string; platformPostId: string }, now: Date): Promise<Post | null> {
    return recordPostOutcome(this.client, this.table, post, { status: 'published', ...outcome }, now, { grouped: (update) => this.outcomes.write(update) });
  }

  /** With `token` (the worker always passes it), only while that claim still holds the post. */
  recordFailed(post: Post, error: PostError, now: Date, token?: string): Promise<Post | null> {
    return recordPostOutcome(this.client, this.table, post, { status: 'failed', error }, now, {
      grouped: (update) => this.outcomes.write(update),
      ...(token === undefined ? {} : { claimToken: token }),
    });
  }

  /**
   * A post deleted while it was being sent whose create certainly did not go out (refused, or not
   * found by the lookup of an unknown outcome): recorded failed with `error`, out of every index,
   * and its allowance unit given back, in one transaction. Like a cancellation, it never reached
   * anyone (decisions.md "Plan allowance"). Exactly once: the condition (still scheduled, deleted,
   * held by `token`) holds for one write only, and the same write drops allowanceCycle.
   */
  async recordNeverSent(post: Post, error: PostError, now: Date, token: string): Promise<boolean> {
    const cycle = post.allowanceCycle;
    const update = {
      TableName: this.table,
      Key: { id: post.id },
      UpdateExpression: 'SET #status = :failed, updatedAt = :now, #error = :error REMOVE duePk, dueSk, allowanceCycle',
      ConditionExpression: `#status = :scheduled AND attribute_exists(deletedAt) AND claimToken = :token${cycle === null ? '' : ' AND allowanceCycle = :cycle'}`,
      ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
      ExpressionAttributeValues: {
        ':failed': 'failed',
        ':scheduled': 'scheduled',
        ':now': now.toISOString(),
        ':error': { message: error.message, advice: error.advice },
        ':token': token,
        ...(cycle === null ? {} : { ':cycle': cycle }),
      },
    };
    // A draft spent nothing; nor did a post whose unit was given back already.
    if (cycle === null) return this.updateIf(post.id, update);
    const countersTable = this.countersTableOption ?? requireEnv(COUNTERS_TABLE.envVar);
    return transactWithRetry(this.client, [{ Update: update }, { Update: allowanceCounterUpdate(countersTable, post.userId, cycle, -1) }], {
      attempts: REFUND_ATTEMPTS,
      written: true,
      cancelled: (codes) => (codes[0] === 'ConditionalCheckFailed' ? false : undefined),
    });
  }

  /**
   * How many posts are due in the whole second of `second` (DueCounter): one Query per byDue
   * shard, in parallel, returning a count only (Select COUNT reads the index's keys, ~100 bytes a
   * post), each stopping at `cap`. Posts deleted or sent have left the index, so it counts what is
   * still to go out; a post retried into that second counts too (its entry moved there).
   */
  async countDue(second: Date, cap: number): Promise<number> {
    const start = Math.floor(second.getTime() / 1000) * 1000;
    // dueSk is `<scheduledFor>#<id>`: every entry of the second sorts from its bare ISO time to
    // before the next second's bare ISO time (BETWEEN is inclusive; no entry equals either).
    const from = new Date(start).toISOString();
    const to = new Date(start + 1000).toISOString();
    const counts = await Promise.all(
      Array.from({ length: DUE_SHARDS }, async (_, shard) => {
        let count = 0;
        let startKey: Record<string, unknown> | undefined;
        do {
          const out = await this.client.send(
            new QueryCommand({
              TableName: this.table,
              IndexName: POST_INDEXES.byDue,
              KeyConditionExpression: 'duePk = :pk AND dueSk BETWEEN :from AND :to',
              ExpressionAttributeValues: { ':pk': duePartitionKey(shard), ':from': from, ':to': to },
              Select: 'COUNT',
              Limit: cap - count,
              ExclusiveStartKey: startKey,
            }),
          );
          count += out.Count ?? 0;
          startKey = out.LastEvaluatedKey;
        } while (startKey && count < cap);
        return count;
      }),
    );
    return Math.min(cap, counts.reduce((total, count) => total + count, 0));
  }

  async listDue(shard: number, input: { dueFrom: string | null; dueTo: string; limit: number }): Promise<PostForPublishing[]> {
    const found: PostForPublishing[] = [];
    let startKey: Record<string, unknown> | undefined;
    // dueSk is `<scheduledFor>#<id>`: comparing with the bare ISO time orders it before every id of that instant.
    const condition = input.dueFrom === null ? 'duePk = :pk AND dueSk < :to' : 'duePk = :pk AND dueSk BETWEEN :from AND :to';
    do {
      const out = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: POST_INDEXES.byDue,
          KeyConditionExpression: condition,
          ExpressionAttributeValues: {
            ':pk': duePartitionKey(shard),
            ':to': input.dueTo,
            ...(input.dueFrom === null ? {} : { ':from': input.dueFrom }),
          },
          Limit: input.limit - found.length,
          ExclusiveStartKey: startKey,
        }),
      );
      // byDue copies keys only (tables.ts): the posts themselves are read from the table.
      found.push(...(await this.readPosts((out.Items ?? []).map((item) => String(item.id)))));
      startKey = out.LastEvaluatedKey;
    } while (startKey && found.length < input.limit);
    return found;
  }

  /**
   * The sweeper's candidates, strongly consistent (so a claim made a moment ago is seen), in
   * BatchGetItem chunks of 100; a post deleted since the index was read is simply absent.
   */
  private async readPosts(ids: string[]): Promise<PostForPublishing[]> {
    const items = await batchGetAll(this.client, this.table, ids.map((id) => ({ id })), { consistentRead: true });
    return items.map((item) => ({ post: itemToPost(item), state: publishStateOf(item) }));
  }

  async markSwept(postId: string, input: { now: Date; sweptBefore: Date }): Promise<boolean> {
    return this.updateIf(postId, {
      UpdateExpression: 'SET sweptAt = :now',
      // A claim that ran out after the last sweep is a worker that died since: put back at once.
      ConditionExpression:
        '(#status = :scheduled AND (attribute_not_exists(deletedAt) OR attribute_exists(platformCreateSentAt) OR attribute_exists(platformPostId)) ' +
        'AND (attribute_not_exists(sweptAt) OR sweptAt < :before OR sweptAt < claimUntil) ' +
        'AND (attribute_not_exists(claimUntil) OR claimUntil < :now)) ' +
        // A published post whose first comment is still to post (first-comment.ts).
        'OR (#status = :published AND firstComment.#status = :pending AND attribute_not_exists(deletedAt) ' +
        'AND (attribute_not_exists(sweptAt) OR sweptAt < :before OR sweptAt < commentClaimUntil) ' +
        'AND (attribute_not_exists(commentClaimUntil) OR commentClaimUntil < :now))',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':now': input.now.toISOString(),
        ':before': input.sweptBefore.toISOString(),
        ':scheduled': 'scheduled',
        ':published': 'published',
        ':pending': 'pending',
      },
    });
  }

  /**
   * The sweeper's stamp on a post whose platform deletion is pending (its byDue entry is the
   * deletion's, post-item.ts), only while the deletion is still to do. The entry moves to the time
   * of the next resend (`resendAt`), so a deletion that keeps failing waits there instead of
   * holding a place among the oldest entries every sweep reads. A routine run stamps it only while
   * its entry is still before `lateBefore` (of two sweepers, the first moves it and the other's
   * write fails); a look-ahead run (after a restart), whatever the entry says.
   */
  async markDeletionSwept(postId: string, input: { now: Date; lateBefore: Date | null; resendAt: Date }): Promise<boolean> {
    const due = input.lateBefore === null ? '(attribute_not_exists(sweptAt) OR sweptAt < :now)' : 'dueSk < :late';
    return this.updateIf(postId, {
      UpdateExpression: 'SET sweptAt = :now, dueSk = :resendSk',
      ConditionExpression:
        '#status = :published AND attribute_exists(deletedAt) AND deleteFromPlatformRequested = :true ' +
        `AND attribute_exists(duePk) AND attribute_not_exists(platformDeletedAt) AND ${due}`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':now': input.now.toISOString(),
        ':resendSk': dueSortKey({ scheduledFor: input.resendAt.toISOString(), id: postId }),
        ':published': 'published',
        ':true': true,
        ...(input.lateBefore === null ? {} : { ':late': input.lateBefore.toISOString() }),
      },
    });
  }

  /** Done: recorded, and the post leaves the due index (its deletion's entry) in the same write. */
  async markPlatformDeleted(postId: string, now: Date): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { id: postId },
        UpdateExpression: 'SET platformDeletedAt = if_not_exists(platformDeletedAt, :now) REMOVE duePk, dueSk',
        ConditionExpression: 'attribute_exists(id)',
        ExpressionAttributeValues: { ':now': now.toISOString() },
      }),
    );
  }

  /**
   * The platform said no for good (account gone, authorization revoked, refused): asking again
   * would get the same answer, so the deletion's due entry goes; the reason stays on the item.
   */
  async abandonPlatformDeletion(postId: string, input: { now: Date; reason: string }): Promise<void> {
    await this.updateIf(postId, {
      UpdateExpression: 'SET platformDeletionAbandonedAt = :now, platformDeletionAbandonedFor = :reason REMOVE duePk, dueSk',
      // Never on a post still being sent: its due entry is the publish worker's.
      ConditionExpression: '#status = :published AND attribute_not_exists(platformDeletedAt)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':now': input.now.toISOString(), ':reason': input.reason.slice(0, 500), ':published': 'published' },
    });
  }
}
