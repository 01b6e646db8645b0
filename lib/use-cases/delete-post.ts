/**
 * DELETE /posts/{id} (scope `write`): cancels a scheduled post, removes a draft or a failed post,
 * soft-deletes a published one (or one the worker is sending right now); with
 * `deleteFromPlatform=true` the deletion of the live post is queued. The plan per state is
 * lib/domain/post-deletion.ts; each write is conditioned on the state the plan was made from, and
 * if the post changed meanwhile (the worker claimed or published it) the plan is made again.
 */
import { planDeletion } from '../domain/post-deletion.js';
import { checkQueryParameters } from '../domain/query-parameters.js';
import { logger } from '../observability.js';
import type { Caller } from '../domain/caller.js';
import type { Clock } from './ports/clock.js';
import type { PlatformDeletionQueue, PostDispatcher } from './ports/dispatch.js';
import type { PostStore } from './ports/post-store.js';
import { isPostId, postNotFound, visiblePost } from './post-lookup.js';

/** Each retry means the worker moved the post on; it has few states, so this is never reached in practice. */
const MAX_ATTEMPTS = 5;

export interface PostDeleted {
  object: 'post_deleted';
  id: string;
  softDeleted: boolean;
  platformDeletionQueuedFor: string[];
}

export function parseDeletePostQuery(query: Record<string, string>): { deleteFromPlatform: boolean } {
  checkQueryParameters(query, ['deleteFromPlatform'], 'DELETE /posts/{id} accepts deleteFromPlatform.');
  // decisions.md: only the exact value `true` queues the deletion; any other value leaves the live post.
  return { deleteFromPlatform: query.deleteFromPlatform === 'true' };
}

export interface DeletePostDeps {
  posts: PostStore;
  /** Only cancels schedules, so the function is built without the settings that create them. */
  dispatcher: Pick<PostDispatcher, 'cancel'>;
  deletionQueue: PlatformDeletionQueue;
  clock: Clock;
}

export class DeletePost {
  constructor(private readonly deps: DeletePostDeps) {}

  async execute(caller: Caller, postId: string, options: { deleteFromPlatform: boolean }): Promise<PostDeleted> {
    if (!isPostId(postId)) throw postNotFound();
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const post = visiblePost(await this.deps.posts.getPost(postId), caller.userId);
      if (!post) throw postNotFound();
      const plan = planDeletion(post, options.deleteFromPlatform);
      const deleted: PostDeleted = {
        object: 'post_deleted',
        id: post.id,
        softDeleted: plan.softDeleted,
        platformDeletionQueuedFor: plan.platformDeletionQueuedFor,
      };

      if (plan.kind === 'remove') {
        if (!(await this.deps.posts.removePost(post, plan.refundCycle))) continue;
        if (plan.cancelSchedule) {
          // Best effort: even if the schedule survives, the message it sends finds no post and is dropped.
          await this.deps.dispatcher.cancel(post.id).catch((error: unknown) => {
            logger.warn('Could not delete the schedule of a cancelled post', { postId: post.id, error: error as Error });
          });
        }
        return deleted;
      }

      const softDeleted = await this.deps.posts.softDeletePost(post, {
        deleteFromPlatform: plan.recordDeleteFromPlatform,
        now: this.deps.clock.now(),
      });
      if (!softDeleted) continue;
      if (plan.queuePlatformDeletion) {
        try {
          await this.deps.deletionQueue.enqueue(post.id);
        } catch (error) {
          // The soft-delete left the deletion pending in byDue, so the sweeper would queue it in a
          // minute or so; but SQS refusing now may last, and an answer that fails whole (undone,
          // simply retried) is easier to trust than one that says "queued" when nothing is.
          await this.deps.posts.restoreSoftDeleted(post);
          throw error;
        }
      }
      return deleted;
    }
    throw new Error(`Post ${postId} kept changing while it was being deleted`);
  }
}
