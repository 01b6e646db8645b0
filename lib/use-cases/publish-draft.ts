/**
 * POST /posts/{id}/publish (beyond-v1.md "The post lifecycle", scope `publish`): a draft goes out,
 * now, at `scheduledFor` in the body, or with `queue: true` at its account's earliest free queue
 * slot (taken in the same write: queues.ts). It is checked by a create's target rules as it stands (the
 * connection may have failed since it was saved), and spends one allowance unit in the same
 * transaction that makes it scheduled (400 quota_exceeded when none is left), as a create does.
 * Then it is made due (the dispatcher); a post whose message could not be sent is put back by the
 * sweeper once it is late (its byDue entry is written with it), so the answer stays 200.
 *
 * Races: a DELETE of the draft and the publish are each conditional on the draft as read; one
 * wins. Publish after the delete: 404. Delete after the publish: it cancels a scheduled post and
 * gives the unit back (lib/domain/post-deletion.ts).
 */
import { allowanceCycle } from '../domain/allowance.js';
import { ApiError } from '../domain/errors.js';
import { notPublishableReason, parseSendBody, PUBLISH_BODY_FIELDS, sendAgain } from '../domain/post-changes.js';
import { QueueSlotTakenError } from '../domain/queue.js';
import { postView, type PostView } from '../domain/views/post-view.js';
import type { Post } from '../domain/model.js';
import { logger } from '../observability.js';
import type { Caller } from '../domain/caller.js';
import type { Clock } from './ports/clock.js';
import type { PostDispatcher } from './ports/dispatch.js';
import type { IdempotencyStore } from './ports/idempotency-store.js';
import type { PostChangeStore, PostForChange } from './ports/post-change-store.js';
import type { QueueStore } from './ports/queues.js';
import { decideStoredTarget, type StoredTargetReads } from './create-targets.js';
import { slotForPost } from './queues.js';
import { idempotentRequest, type IdempotentOutcome } from './idempotent-request.js';
import { keptChanging, MAX_CHANGE_ATTEMPTS } from './post-change-requests.js';
import { isPostId, postNotFound, visiblePost } from './post-lookup.js';

export interface SendPostDeps extends StoredTargetReads {
  changes: PostChangeStore;
  /** The accounts' queues, for a draft's publish with `queue: true` (retry takes no slot). */
  queues?: QueueStore;
  idempotency: IdempotencyStore;
  dispatcher: Pick<PostDispatcher, 'dispatch'>;
  clock: Clock;
}

export function quotaExceeded(): ApiError {
  return new ApiError('quota_exceeded', "The plan's post allowance for this month is used up.", { status: 400, param: 'id' });
}

/** Makes a post that just became scheduled due; a failure is left to the sweeper (see above). */
export async function dispatchChanged(dispatcher: Pick<PostDispatcher, 'dispatch'>, postId: string, scheduledFor: string, now: Date): Promise<void> {
  const { failed } = await dispatcher.dispatch([{ postId, scheduledFor }], now);
  if (failed.length > 0) logger.warn('A post could not be queued; the sweeper will put it back once it is due', { postId });
}

/**
 * What publish and retry share: the planned change written in one conditional write (with its
 * allowance unit when it spends one, and the idempotency record), answered 200 with the post, then
 * made due. A write that lost a race is planned again from the post as it is then (up to
 * MAX_CHANGE_ATTEMPTS), so the 409 it ends in says why the post cannot change now.
 */
export function sendChange(
  deps: SendPostDeps,
  caller: Caller,
  request: {
    postId: string;
    action: 'publish' | 'retry';
    body: Record<string, unknown> | null;
    idempotencyKey: string | undefined;
    now: Date;
    resetPublishState: boolean;
    refused: 'post_not_editable' | 'post_not_retryable';
  },
  plan: () => Promise<{ read: PostForChange; after: Post; spendsUnit: boolean }>,
): Promise<IdempotentOutcome> {
  const { postId, body, idempotencyKey, now } = request;
  return idempotentRequest(deps.idempotency, caller, { method: 'POST', path: `/posts/${postId}/${request.action}`, body, idempotencyKey, now }, async (lock, progress) => {
    for (let attempt = 1; attempt <= MAX_CHANGE_ATTEMPTS; attempt++) {
      const { read, after, spendsUnit } = await plan();
      const response = { status: 200, body: postView(after) };
      let result;
      try {
        result = await deps.changes.changePost({
          before: read,
          after,
          spend: spendsUnit ? { allowanceLimit: caller.user.monthlyPostAllowance } : null,
          resetPublishState: request.resetPublishState,
          idempotency: lock ? { lock, response } : null,
        });
      } catch (error) {
        // Another request took the chosen queue slot first: plan again from a fresh read.
        if (error instanceof QueueSlotTakenError) continue;
        throw error;
      }
      if (result.outcome === 'over_allowance') throw quotaExceeded();
      if (result.outcome !== 'applied') continue;
      progress.remembered = lock !== null;
      await dispatchChanged(deps.dispatcher, postId, after.scheduledFor, deps.clock.now());
      return response;
    }
    throw keptChanging(request.refused);
  });
}

export class PublishDraft {
  constructor(private readonly deps: SendPostDeps) {}

  async execute(caller: Caller, postId: string, body: Record<string, unknown> | null, idempotencyKey: string | undefined): Promise<IdempotentOutcome> {
    if (!isPostId(postId)) throw postNotFound();
    const now = this.deps.clock.now();
    const request = { postId, action: 'publish', body, idempotencyKey, now, resetPublishState: false, refused: 'post_not_editable' } as const;
    // A draft spends its unit now, always.
    return sendChange(this.deps, caller, request, async () => ({ ...(await this.plan(caller, postId, body, now)), spendsUnit: true }));
  }

  /** The post as publishing would leave it, every check made, nothing written or spent (the assistant's publish_draft without confirm). */
  async preview(caller: Caller, postId: string, body: Record<string, unknown> | null): Promise<PostView> {
    if (!isPostId(postId)) throw postNotFound();
    return postView((await this.plan(caller, postId, body, this.deps.clock.now())).after);
  }

  private async plan(caller: Caller, postId: string, body: Record<string, unknown> | null, now: Date): Promise<{ read: PostForChange; after: Post }> {
    const { scheduledFor, queue } = parseSendBody(body, now, PUBLISH_BODY_FIELDS);
    const read = await this.deps.changes.getPostForChange(postId);
    const post = visiblePost(read?.post ?? null, caller.userId);
    if (!read || !post) throw postNotFound();
    const reason = notPublishableReason(post);
    if (reason !== null) throw new ApiError('post_not_editable', reason, { param: 'id' });
    await decideStoredTarget(this.deps, caller, post, { text: null, media: null, options: null });
    const at = this.deps.clock.now();
    if (queue) {
      if (!this.deps.queues) throw new Error('Publishing with queue: true needs the queue store');
      const slot = new Date(await slotForPost(this.deps.queues, post, now));
      return { read, after: { ...sendAgain(post, slot, allowanceCycle(at), at), queueSlot: true } };
    }
    return { read, after: sendAgain(post, scheduledFor ?? at, allowanceCycle(at), at) };
  }
}
