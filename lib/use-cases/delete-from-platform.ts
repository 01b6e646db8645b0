/**
 * Delete the live post of a soft-deleted published post (DELETE with deleteFromPlatform=true; the
 * platform-deletion worker's use case). Idempotent: a second message for the same post (the
 * sweeper's, DELETE's, the publish worker's), or a post the platform already removed, ends quietly.
 * A post still being sent is left to the publish worker, which queues this deletion itself once
 * the live post's id is known.
 *
 * Until this settles the deletion (done, or refused for good), the post keeps its deletion's entry
 * in the byDue index (lib/store/post-item.ts), and the sweeper queues it again whenever its
 * message was lost; a transient failure is simply thrown (SQS, then the sweeper, try again).
 */
import type { Post, PublishablePlatform } from '../domain/model.js';
import { PlatformAuthError, PlatformRefusedError } from '../domain/platform-errors.js';
import type { AccountReader } from './ports/accounts.js';
import type { Clock } from './ports/clock.js';
import type { PlatformPublisher } from './ports/platform-publisher.js';
import type { PublishStateStore } from './ports/publish-state-store.js';
import { CredentialsMissingError, TokenRefreshFailedError, type AccessTokens } from './access-tokens.js';

export interface DeleteFromPlatformDeps {
  state: PublishStateStore;
  accounts: AccountReader;
  tokens: AccessTokens;
  setTokenHealth: (accountId: string, health: 'needs_reauth') => Promise<void>;
  publishers: Record<PublishablePlatform, PlatformPublisher>;
  clock: Clock;
  log: { warn(message: string, details: Record<string, unknown>): void };
}

export type DeleteFromPlatformOutcome =
  | { outcome: 'deleted' }
  | { outcome: 'skipped'; reason: string }
  | { outcome: 'not_deleted'; reason: string };

export class DeleteFromPlatform {
  constructor(private readonly deps: DeleteFromPlatformDeps) {}

  /** Throws only for transient failures (the message is then delivered again). */
  async execute(postId: string): Promise<DeleteFromPlatformOutcome> {
    const found = await this.deps.state.getPostForPublishing(postId);
    if (!found) return { outcome: 'skipped', reason: 'post removed' };
    const { post, state } = found;
    if (!post.deleteFromPlatformRequested) return { outcome: 'skipped', reason: 'deletion from the platform was not asked' };
    if (state.platformDeletedAt !== null) return { outcome: 'skipped', reason: 'already deleted from the platform' };
    if (post.status === 'scheduled') return { outcome: 'skipped', reason: 'still being sent: the publish worker queues the deletion when it is live' };
    if (post.status !== 'published' || post.platformPostId === null) return { outcome: 'skipped', reason: 'nothing live to delete' };

    const account = await this.deps.accounts.getAccount(post.accountId);
    if (!account) return this.notDeleted(postId, 'the account is gone');
    const publisher = this.deps.publishers[post.platform];
    let accessToken: string;
    try {
      accessToken = await this.deps.tokens.accessToken(account, publisher);
    } catch (error) {
      if (error instanceof CredentialsMissingError || error instanceof TokenRefreshFailedError) return this.notDeleted(postId, error.message);
      throw error;
    }
    const platformAccount = { id: account.id, platformUserId: account.platformUserId, handle: account.handle, accountType: account.accountType };
    try {
      // Everything of the post that is live: a thread's further parts last first, then the post
      // itself; on X the first comment is a reply of its own, left standing by its post's deletion
      // (a LinkedIn comment goes with its post). A delete of what is already gone succeeds, so a
      // message delivered again after a partial run deletes the rest.
      for (const platformPostId of liveIds(post)) await publisher.deletePost({ account: platformAccount, accessToken, platformPostId });
    } catch (error) {
      if (error instanceof PlatformAuthError) {
        await this.deps.setTokenHealth(account.id, 'needs_reauth');
        return this.notDeleted(postId, error.message);
      }
      // Refused (not the author's, ...): asking again would get the same answer.
      if (error instanceof PlatformRefusedError) return this.notDeleted(postId, error.message);
      throw error;
    }
    await this.deps.state.markPlatformDeleted(postId, this.deps.clock.now());
    return { outcome: 'deleted' };
  }

  private async notDeleted(postId: string, reason: string): Promise<DeleteFromPlatformOutcome> {
    // Nobody can be told through the API (the post is deleted): the log and the item are the record.
    this.deps.log.warn('The live post could not be deleted from the platform', { postId, reason });
    await this.deps.state.abandonPlatformDeletion(postId, { now: this.deps.clock.now(), reason });
    return { outcome: 'not_deleted', reason };
  }
}

/** The platform ids to delete for a live post, in the order they are deleted. */
function liveIds(post: Post): string[] {
  const parts = post.threadParts.map((part) => part.platformPostId).filter((id): id is string => id !== null);
  const comment = post.platform === 'x' ? (post.firstComment?.platformCommentId ?? null) : null;
  return [...(comment === null ? [] : [comment]), ...parts.reverse(), ...(post.platformPostId === null ? [] : [post.platformPostId])];
}
