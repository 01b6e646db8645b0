/**
 * PATCH /posts/{id} (beyond-v1.md "The post lifecycle"): changes a draft, or a scheduled post no
 * publish attempt has begun on: `text`, `media`, `scheduledFor`, `options`, checked by a create's
 * rules (lib/domain/post-changes.ts for the body, create-targets.ts decideStoredTarget for the
 * target). Scope `write` (the route's), and `publish` too when the post will go out.
 *
 * Steps: the body; the post (404 post_not_found); whether it can change (409 post_not_editable,
 * saying why); the target rules (400 with the target's reason); ONE conditional write
 * (lib/store/post-change-writes.ts) that succeeds only while the post is as read and unclaimed. A
 * write that lost a race (the worker claimed the post meanwhile) is re-read, and the 409 says what
 * happened. `queue: true` moves a scheduled post to its account's earliest free queue slot
 * (queues.ts), taken in that same write; a new time of its own gives its slot back. A scheduled post whose time moved is made due at the new time (the dispatcher's
 * reschedule); a message of the old time is harmless, because the worker claims a post only by
 * its own scheduledFor (lib/store/dynamodb-publish-state.ts) and puts an early message back.
 */
import { ApiError } from '../domain/errors.js';
import { applyUpdate, notEditableReason, parseUpdatePostBody } from '../domain/post-changes.js';
import { requireScope } from '../domain/scopes.js';
import { postView, type PostView } from '../domain/views/post-view.js';
import type { Post } from '../domain/model.js';
import { logger } from '../observability.js';
import type { Caller } from '../domain/caller.js';
import type { Clock } from './ports/clock.js';
import type { PostDispatcher } from './ports/dispatch.js';
import type { IdempotencyStore } from './ports/idempotency-store.js';
import type { PostChangeStore, PostForChange } from './ports/post-change-store.js';
import type { QueueStore } from './ports/queues.js';
import { QueueSlotTakenError } from '../domain/queue.js';
import { decideStoredTarget, type TargetReads } from './create-targets.js';
import { slotForPost } from './queues.js';
import { idempotentRequest, type IdempotentOutcome } from './idempotent-request.js';
import { keptChanging, MAX_CHANGE_ATTEMPTS } from './post-change-requests.js';
import { isPostId, postNotFound, visiblePost } from './post-lookup.js';

export interface UpdatePostDeps extends TargetReads {
  changes: PostChangeStore;
  /** The accounts' queues, for `queue: true`. */
  queues: QueueStore;
  idempotency: IdempotencyStore;
  dispatcher: Pick<PostDispatcher, 'reschedule'>;
  clock: Clock;
}

export class UpdatePost {
  constructor(private readonly deps: UpdatePostDeps) {}

  async execute(caller: Caller, postId: string, body: Record<string, unknown>, idempotencyKey: string | undefined): Promise<IdempotentOutcome> {
    if (!isPostId(postId)) throw postNotFound();
    const now = this.deps.clock.now();
    return idempotentRequest(this.deps.idempotency, caller, { method: 'PATCH', path: `/posts/${postId}`, body, idempotencyKey, now }, async (lock, progress) => {
      for (let attempt = 1; attempt <= MAX_CHANGE_ATTEMPTS; attempt++) {
        const { read, after } = await this.plan(caller, postId, body, now);
        const response = { status: 200, body: postView(after) };
        let result;
        try {
          result = await this.deps.changes.changePost({
            before: read,
            after,
            spend: null,
            resetPublishState: false,
            idempotency: lock ? { lock, response } : null,
          });
        } catch (error) {
          // Another request took the chosen queue slot first: plan again from a fresh read.
          if (error instanceof QueueSlotTakenError) continue;
          throw error;
        }
        if (result.outcome !== 'applied') continue;
        progress.remembered = lock !== null;
        if (after.status === 'scheduled' && after.scheduledFor !== read.post.scheduledFor) {
          const moved = await this.deps.dispatcher.reschedule({ postId, scheduledFor: after.scheduledFor }, this.deps.clock.now());
          // The change stands: the sweeper puts back a post whose time came with no message on its way.
          if (!moved) logger.warn('A post whose time moved could not be rescheduled; the sweeper will put it back', { postId });
        }
        return response;
      }
      throw keptChanging('post_not_editable');
    });
  }

  /** The post as the change would leave it, every check made, nothing written (the assistant's update_post without confirm). */
  async preview(caller: Caller, postId: string, body: Record<string, unknown>): Promise<PostView> {
    if (!isPostId(postId)) throw postNotFound();
    return postView((await this.plan(caller, postId, body, this.deps.clock.now())).after);
  }

  /** Every step but the write: the body, the post (404), whether it can change (409), the target rules (400). */
  private async plan(caller: Caller, postId: string, body: Record<string, unknown>, now: Date): Promise<{ read: PostForChange; after: Post }> {
    const request = parseUpdatePostBody(body, now);
    const read = await this.deps.changes.getPostForChange(postId);
    const post = visiblePost(read?.post ?? null, caller.userId);
    if (!read || !post) throw postNotFound();
    if (post.status === 'scheduled') requireScope(caller, 'publish');
    const reason = notEditableReason(post, read.progress);
    if (reason !== null) throw new ApiError('post_not_editable', reason, { param: 'id' });
    if (request.queue && post.status !== 'scheduled') {
      throw new ApiError('invalid_queue', 'A draft takes no queue slot; publish it with queue: true.', { param: 'queue' });
    }
    const resolved = await decideStoredTarget(this.deps, caller, post, request);
    const after = applyUpdate(post, request, resolved, this.deps.clock.now());
    if (!request.queue) return { read, after };
    return { read, after: { ...after, scheduledFor: await slotForPost(this.deps.queues, post, now), queueSlot: true } };
  }
}
