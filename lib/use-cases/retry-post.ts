/**
 * POST /posts/{id}/retry (beyond-v1.md "The post lifecycle", scope `publish`): a failed post whose
 * `error.retryable` is true (the platform certainly holds no such post: lib/domain/publishing.ts
 * isRetryableFailure) goes out again under the same id, now or at `scheduledFor`.
 *
 * Allowance: a failed post keeps the unit it spent (DELETE of a failed post does not give it back,
 * lib/domain/post-deletion.ts), so a retry spends none and the post keeps its cycle. The one
 * exception is a post that could not be queued at its create (schedule_failed): that unit was
 * given back then, so its retry spends one again, in the same transaction, like a create.
 *
 * The write clears the worker's bookkeeping of the earlier attempts (lease, attempts, retry time,
 * sent marker), so the new attempt has its own retry window. Two concurrent retries: the write is
 * conditional on the post still being failed and retryable at its revision, so exactly one wins and
 * the other gets 409 post_not_retryable ("only a failed post is retried; this post is scheduled").
 */
import { allowanceCycle } from '../domain/allowance.js';
import { ApiError } from '../domain/errors.js';
import { notRetryableReason, parseSendBody, sendAgain } from '../domain/post-changes.js';
import { postView, type PostView } from '../domain/views/post-view.js';
import type { Post } from '../domain/model.js';
import type { PostForChange } from './ports/post-change-store.js';
import type { Caller } from '../domain/caller.js';
import { decideStoredTarget } from './create-targets.js';
import type { IdempotentOutcome } from './idempotent-request.js';
import { isPostId, postNotFound, visiblePost } from './post-lookup.js';
import { sendChange, type SendPostDeps } from './publish-draft.js';

export class RetryPost {
  constructor(private readonly deps: SendPostDeps) {}

  async execute(caller: Caller, postId: string, body: Record<string, unknown> | null, idempotencyKey: string | undefined): Promise<IdempotentOutcome> {
    if (!isPostId(postId)) throw postNotFound();
    const now = this.deps.clock.now();
    // A retry starts the worker's bookkeeping afresh: a new attempt with its own retry window.
    const request = { postId, action: 'retry', body, idempotencyKey, now, resetPublishState: true, refused: 'post_not_retryable' } as const;
    return sendChange(this.deps, caller, request, () => this.plan(caller, postId, body, now));
  }

  /** The post as a retry would leave it, and whether it spends a unit; nothing written (the assistant's retry_post without confirm). */
  async preview(caller: Caller, postId: string, body: Record<string, unknown> | null): Promise<{ post: PostView; allowanceUnits: number }> {
    if (!isPostId(postId)) throw postNotFound();
    const { after, spendsUnit } = await this.plan(caller, postId, body, this.deps.clock.now());
    return { post: postView(after), allowanceUnits: spendsUnit ? 1 : 0 };
  }

  private async plan(caller: Caller, postId: string, body: Record<string, unknown> | null, now: Date): Promise<{ read: PostForChange; after: Post; spendsUnit: boolean }> {
    const { scheduledFor } = parseSendBody(body, now);
    const read = await this.deps.changes.getPostForChange(postId);
    const post = visiblePost(read?.post ?? null, caller.userId);
    if (!read || !post) throw postNotFound();
    const reason = notRetryableReason(post);
    if (reason !== null) throw new ApiError('post_not_retryable', reason, { param: 'id' });
    await decideStoredTarget(this.deps, caller, post, { text: null, media: null, options: null });
    const at = this.deps.clock.now();
    // A unit given back when the post could not be queued (schedule_failed) is spent again.
    return { read, after: sendAgain(post, scheduledFor ?? at, post.allowanceCycle ?? allowanceCycle(at), at), spendsUnit: post.allowanceCycle === null };
  }
}
