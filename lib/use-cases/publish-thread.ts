/**
 * The thread side of the publish worker (issue 22, "A thread that survives a crash"). PublishPost
 * sends each part as it sends a post (the same "sent" marker right before the create, the same
 * lookup after a lost answer); this module says which part is next and records each one as it goes
 * live, before the next is sent:
 *
 *  - parts go out in order, part k + 1 answering part k (`replyTo`);
 *  - each part's id is recorded (a conditional write that also clears the sent marker) before the
 *    next part is sent, so a crash resumes after the last recorded part;
 *  - the sent marker always stands for the first part without an id: a part sent without an answer
 *    is looked up (findRecentPost with `replyTo`) by the next attempt, never blindly resent;
 *  - the post is `published` only once every part is live; a part failing for good fails the post
 *    with the live parts named (thread-progress.ts withLiveParts), and a retry (sendAgain keeps
 *    the live ids) continues from the first missing part;
 *  - a thread deleted between parts stops there, and what is live is recorded as published (so
 *    deleteFromPlatform takes down what it knows of).
 */
import type { Post } from '../domain/model.js';
import { nextPart, type NextPart } from '../domain/thread-progress.js';
import type { Clock } from './ports/clock.js';
import type { PlatformPublishResult } from './ports/platform-publisher.js';
import type { PublishStateStore } from './ports/publish-state-store.js';
import type { PublishOutcome, PublishOutcomes } from './publish-outcomes.js';

export class PublishThread {
  constructor(
    private readonly deps: { state: PublishStateStore; clock: Clock },
    private readonly outcomes: PublishOutcomes,
  ) {}

  /** The part to send next (for a post of one part, the post itself until it is live); null when all are live. */
  next(post: Post): NextPart | null {
    return nextPart(post);
  }

  /**
   * The next part is live: its id recorded before anything else is sent. Retried a few times (the
   * part is live: without the record, a later attempt would have to look it up). Null when the
   * post is not scheduled any more (recorded by another worker, or removed).
   */
  async recordPart(post: Post, result: PlatformPublishResult): Promise<Post | null> {
    const part = nextPart(post);
    if (part === null) return post;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.deps.state.recordThreadPart(post.id, part.index, result, this.deps.clock.now());
      } catch (error) {
        if (attempt >= 3) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  }

  /** Every part live (or a deleted thread's live ones): the post is published as part 1. */
  published(post: Post): Promise<PublishOutcome> {
    if (post.platformPostId === null || post.publishedUrl === null) throw new Error(`Thread ${post.id} has no live first part to record`);
    return this.outcomes.published(post, { platformPostId: post.platformPostId, publishedUrl: post.publishedUrl });
  }
}
