/**
 * POST /posts (api-v1.md "POST /posts — create posts", decisions.md "Create", "Plan allowance",
 * "Idempotency"). One independent post per target account; the request as a whole is refused only
 * for request-level errors, each target is accepted, rejected (nothing written) or failed (written
 * but not queued) on its own.
 *
 * Steps, in order (the first refusal wins):
 *   1. scope: `write` for a draft (`draft` exactly true), `publish` otherwise (403 insufficient_scope)
 *   2. Idempotency-Key: claim the key (409 in flight, 422 other body, replay of the stored 202).
 *      Claimed before validating, so a retry of a finished request replays its answer even when
 *      its body would no longer validate (a scheduledFor that has passed since).
 *   3. body rules (lib/domain/create-request.ts), then workspace, options vs the platforms of the
 *      resolved accounts, media_not_hosted
 *   4. per-target rules (lib/domain/target-rules.ts); with `queue: true`, each accepted target's
 *      earliest free slot of its account's queue (queue_empty / queue_full otherwise; queues.ts);
 *      with an explicit scheduledFor that is a slot of a target's queue, that slot
 *   5. one transaction: the accepted posts + allowance (first k that fit; the rest quota_exceeded)
 *      + the queue slots taken + the idempotency record completed with the 202
 *   6. dispatch the posts that go out; a post that cannot be queued becomes failed
 *      (schedule_failed) and its unit is given back
 * A request that ends in anything but a 202 releases its idempotency key (only a 202 is remembered).
 *
 * DynamoDB requests: claim 1 + accounts 1 (+ media 1 when media is attached, to the post or to a
 * thread part) + transaction 1,
 * whatever the number of targets; the counter is read only when the allowance condition fails.
 * `queue: true` adds 2 per target account (its queue and its taken slots), and a Query and a
 * transaction more each time another request took a chosen slot first. An explicit scheduledFor
 * on a whole minute in the future adds 1 (the targets' queues, one BatchGetItem), and a
 * transaction more when another post already holds the slot (the post is written without it).
 */
import { allowanceCycle } from '../domain/allowance.js';
import type { CreatePostsRequest } from '../domain/create-request.js';
import { formatFields } from '../domain/format-rules.js';
import { ApiError, type RejectionReason } from '../domain/errors.js';
import { bodyHash, parseIdempotencyKey } from '../domain/idempotency.js';
import type { MediaItem, Post, PostError, PublishablePlatform } from '../domain/model.js';
import { requireScope } from '../domain/scopes.js';
import type { TargetVerdict } from '../domain/target-rules.js';
import { newId } from '../domain/ids.js';
import { logger } from '../observability.js';
import type { Caller } from '../domain/caller.js';
import type { IdempotencyLock } from '../domain/idempotency-record.js';
import type { AccountReader } from './ports/accounts.js';
import type { Clock } from './ports/clock.js';
import type { PostDispatcher } from './ports/dispatch.js';
import type { IdempotencyStore } from './ports/idempotency-store.js';
import type { MediaReader } from './ports/media.js';
import type { PostStore } from './ports/post-store.js';
import type { QueueStore } from './ports/queues.js';
import { QueueSlotTakenError, type QueueSlotVerdict } from '../domain/queue.js';
import { QUEUE_REJECTION_MESSAGES, QueueChoices, accountsWithSlotAt } from './queues.js';
import type { WorkspaceReader } from './ports/workspaces.js';
import { decideTargets } from './create-targets.js';

export interface PostResult {
  object: 'post_result';
  id: string | null;
  accountId: string;
  platform: string | null;
  status: 'accepted' | 'rejected' | 'failed';
  reason: RejectionReason | null;
  message: string | null;
}

export interface PostBatch {
  object: 'post_batch';
  campaignId: string;
  posts: PostResult[];
}

export interface CreatePostsResponse {
  status: 202;
  body: PostBatch;
}

/** A fresh 202, or the remembered one replayed (with Idempotent-Replayed: true). */
export interface CreatePostsOutcome {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export const SCHEDULE_FAILED_ERROR: PostError = {
  message: 'The post was created but could not be queued for publishing.',
  advice: 'Retry the post (POST /posts/{id}/retry) or create it again; as it is, it will not go out.',
  // Nothing was queued, so nothing can have gone out (its allowance unit was given back).
  retryable: true,
};

export interface CreatePostsDeps {
  posts: PostStore;
  idempotency: IdempotencyStore;
  accounts: AccountReader;
  workspaces: WorkspaceReader;
  media: MediaReader;
  dispatcher: PostDispatcher;
  clock: Clock;
  /** MEDIA_BASE_URL: media URLs of the caller's library start with it. */
  mediaBaseUrl: string;
  /** The accounts' queues, for `queue: true`. */
  queues: QueueStore;
}

/**
 * Each lost race for a slot costs one transaction; a request loses at most once per concurrent
 * request that chose the same slot, so this bounds the work under any burst the rate limit allows.
 */
const MAX_QUEUE_ATTEMPTS = 32;

/** A target as decided: its verdict, and the post that will be written when accepted. */
interface Target {
  verdict: TargetVerdict;
  post: Post | null;
}

export class CreatePosts {
  constructor(private readonly deps: CreatePostsDeps) {}

  async execute(
    caller: Caller,
    body: unknown,
    idempotencyKeyHeader: string | undefined,
  ): Promise<CreatePostsOutcome> {
    const isDraft = typeof body === 'object' && body !== null && (body as { draft?: unknown }).draft === true;
    requireScope(caller, isDraft ? 'write' : 'publish');
    const key = parseIdempotencyKey(idempotencyKeyHeader);
    const now = this.deps.clock.now();

    let lock: IdempotencyLock | null = null;
    if (key !== null) {
      const claim = await this.deps.idempotency.claim(caller.userId, key, bodyHash(body), now);
      switch (claim.outcome) {
        case 'replay':
          return { ...claim.response, headers: { 'Idempotent-Replayed': 'true' } };
        case 'in_flight':
          throw new ApiError('idempotency_in_flight', 'A request with this Idempotency-Key is still running; retry once it has finished.', {
            param: 'Idempotency-Key',
          });
        case 'body_mismatch':
          throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request body; use a new key.', {
            param: 'Idempotency-Key',
          });
        case 'started':
          lock = claim.lock;
      }
    }

    // remembered: the posts transaction completed the record; released: a later transaction deleted it.
    const progress = { remembered: false, released: false };
    try {
      return await this.create(caller, body, now, lock, progress);
    } catch (error) {
      // A refused or failed request is not remembered: the key may be used again. Once the posts
      // transaction has completed the record, it stays (a retry must replay, not create twice).
      if (lock && !progress.remembered && !progress.released) {
        await this.deps.idempotency.release(lock).catch((releaseError: unknown) => {
          logger.warn('Could not release an idempotency record; it unlocks when its lock expires', {
            error: releaseError as Error,
          });
        });
      }
      throw error;
    }
  }

  private async create(
    caller: Caller,
    body: unknown,
    now: Date,
    lock: IdempotencyLock | null,
    progress: { remembered: boolean; released: boolean },
  ): Promise<CreatePostsResponse> {
    const { request, media, threadMedia, decisions } = await decideTargets(this.deps, caller, body, now);

    const campaignId = request.campaignId ?? newId('cmp');
    const createdAt = now.toISOString();
    const choices = request.queue
      ? await QueueChoices.read(
          this.deps.queues,
          decisions.flatMap(({ verdict }) => (verdict.accepted ? [verdict.accountId] : [])),
          now,
        )
      : null;

    // An explicit time that is a slot of a target's queue takes that slot (queues.ts).
    const slotAccounts =
      request.queue || request.draft || request.scheduledFor === null
        ? new Set<string>()
        : await accountsWithSlotAt(this.deps.queues, decisions.flatMap(({ verdict }) => (verdict.accepted ? [verdict.accountId] : [])), request.scheduledFor, now);

    let written: Post[] = [];
    let overAllowance: Post[] = [];
    let targets: Target[] = [];
    for (let attempt = 1; ; attempt++) {
      targets = decisions.map(({ verdict, text }) => {
        const queued = choices && verdict.accepted ? queueVerdict(verdict, choices.choose(verdict.accountId, now)) : null;
        const decided = queued?.verdict ?? verdict;
        return {
          verdict: decided,
          post: decided.accepted
            ? this.newPost(caller, request, decided, { campaignId, text, media, threadMedia, createdAt, queuedFor: queued?.scheduledFor ?? null })
            : null,
        };
      });

      const toWrite = targets.flatMap((target) => (target.post ? [target.post] : []));
      if (toWrite.length === 0) throw noTargetAccepted(targets.map((target) => resultOf(target, new Set(), new Set())));

      try {
        ({ written, overAllowance } = await this.deps.posts.createPosts({
          userId: caller.userId,
          posts: toWrite,
          allowanceLimit: caller.user.monthlyPostAllowance,
          idempotency: lock,
          slotsAsked: new Set(toWrite.filter((post) => slotAccounts.has(post.accountId)).map((post) => post.id)),
          response: (writtenIds) => {
            const batch = batchOf(campaignId, targets, writtenIds, new Set());
            return batch.posts.some((result) => result.status === 'accepted') ? { status: 202, body: batch } : null;
          },
        }));
        break;
      } catch (error) {
        // Another request took a slot we chose: choose again, skipping it (nothing was written).
        if (!(error instanceof QueueSlotTakenError) || !choices || attempt >= MAX_QUEUE_ATTEMPTS) throw error;
        await Promise.all(error.taken.map((slot) => choices.lost(slot.accountId, slot.scheduledFor, now)));
      }
    }
    const writtenIds = new Set(written.map((post) => post.id));
    if (written.length === 0) throw noTargetAccepted(batchOf(campaignId, targets, writtenIds, new Set()).posts);
    progress.remembered = lock !== null;
    if (overAllowance.length > 0) logger.info('Plan allowance used up', { userId: caller.userId, refused: overAllowance.length });

    const outgoing = written.filter((post) => post.status === 'scheduled');
    const { failed } =
      outgoing.length === 0
        ? { failed: [] as string[] }
        : await this.deps.dispatcher.dispatch(
            outgoing.map((post) => ({ postId: post.id, scheduledFor: post.scheduledFor })),
            this.deps.clock.now(),
          );
    if (failed.length === 0) return { status: 202, body: batchOf(campaignId, targets, writtenIds, new Set()) };

    const failedIds = new Set(failed);
    const batch = batchOf(campaignId, targets, writtenIds, failedIds);
    const anyAccepted = batch.posts.some((result) => result.status === 'accepted');
    await this.deps.posts.markScheduleFailed({
      userId: caller.userId,
      posts: outgoing.filter((post) => failedIds.has(post.id)),
      error: SCHEDULE_FAILED_ERROR,
      now: this.deps.clock.now(),
      idempotency: lock,
      // Still a 202 when something was accepted; otherwise the record is forgotten with the 400.
      response: anyAccepted ? { status: 202, body: batch } : null,
    });
    if (!anyAccepted) {
      // The record was deleted in that transaction already: the 400 is not remembered.
      progress.released = lock !== null;
      throw noTargetAccepted(batch.posts);
    }
    return { status: 202, body: batch };
  }

  private newPost(
    caller: Caller,
    request: CreatePostsRequest,
    verdict: Extract<TargetVerdict, { accepted: true }>,
    shared: {
      campaignId: string;
      text: string;
      media: MediaItem[];
      threadMedia: MediaItem[][] | null;
      createdAt: string;
      /** The queue slot this post takes (`queue: true`), ISO. */
      queuedFor: string | null;
    },
  ): Post {
    const platform: PublishablePlatform = verdict.platform;
    return {
      id: newId('post'),
      userId: caller.userId,
      workspaceId: verdict.account.workspaceId,
      accountId: verdict.accountId,
      platform,
      campaignId: shared.campaignId,
      status: request.draft ? 'draft' : 'scheduled',
      text: shared.text,
      mediaUrls: shared.media.map((item) => item.url),
      mediaIds: shared.media.map((item) => item.id),
      // options without thread and firstComment, which become threadParts and firstComment.
      ...formatFields(request.options, platform, shared.threadMedia),
      // No scheduledFor: due at once (a draft keeps its creation time).
      scheduledFor: shared.queuedFor ?? request.scheduledFor?.toISOString() ?? shared.createdAt,
      publishedAt: null,
      publishedUrl: null,
      platformPostId: null,
      error: null,
      createdAt: shared.createdAt,
      updatedAt: shared.createdAt,
      deletedAt: null,
      allowanceCycle: request.draft ? null : allowanceCycle(new Date(shared.createdAt)),
      deleteFromPlatformRequested: false,
      ...(shared.queuedFor === null ? {} : { queueSlot: true }),
    };
  }
}

/** An accepted target with `queue: true`: its slot, or rejected queue_empty / queue_full. */
function queueVerdict(
  verdict: Extract<TargetVerdict, { accepted: true }>,
  slot: QueueSlotVerdict,
): { verdict: TargetVerdict; scheduledFor: string | null } {
  if (slot.ok) return { verdict, scheduledFor: new Date(slot.slot.at).toISOString() };
  return {
    verdict: { accepted: false, accountId: verdict.accountId, platform: verdict.platform, reason: slot.reason, message: QUEUE_REJECTION_MESSAGES[slot.reason] },
    scheduledFor: null,
  };
}

/** A target past what is left of the plan's allowance (the create, and the preview that answers as it would). */
export const QUOTA_EXCEEDED_MESSAGE = "The plan's post allowance for this month is used up.";

function resultOf(target: Target, writtenIds: ReadonlySet<string>, failedIds: ReadonlySet<string>): PostResult {
  const { verdict, post } = target;
  const result = (id: string | null, status: PostResult['status'], reason: RejectionReason | null, message: string | null): PostResult => ({
    object: 'post_result',
    id,
    accountId: verdict.accountId,
    platform: verdict.platform,
    status,
    reason,
    message,
  });
  if (!verdict.accepted) return result(null, 'rejected', verdict.reason, verdict.message);
  if (!post || !writtenIds.has(post.id)) return result(null, 'rejected', 'quota_exceeded', QUOTA_EXCEEDED_MESSAGE);
  if (failedIds.has(post.id)) return result(post.id, 'failed', 'schedule_failed', 'The post was created but could not be queued; it will not go out.');
  return result(post.id, 'accepted', null, null);
}

function batchOf(campaignId: string, targets: Target[], writtenIds: ReadonlySet<string>, failedIds: ReadonlySet<string>): PostBatch {
  return { object: 'post_batch', campaignId, posts: targets.map((target) => resultOf(target, writtenIds, failedIds)) };
}

/**
 * No target accepted: 400 whose code is the first target's reason (no_targets_accepted when it has
 * none), with every post_result beside the error.
 */
export function noTargetAccepted(posts: PostResult[]): ApiError {
  const first = posts[0];
  const reason = first?.reason ?? null;
  const message =
    reason === null
      ? 'No target was accepted.'
      : `No target was accepted. First target (${first?.accountId ?? ''}): ${first?.message ?? reason}`;
  return new ApiError(reason ?? 'no_targets_accepted', message, { status: 400, param: 'accounts', extraBody: { posts } });
}
