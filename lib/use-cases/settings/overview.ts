/**
 * The Overview page's figures: the plan (allowance per month, subscription state), how much of
 * this cycle's allowance is used and when the cycle resets (decisions.md: calendar month, UTC),
 * and how many keys, accounts and posts the user has, and whether the media library holds a file
 * (the Overview's path to a first post). Each count is one Query with Select COUNT on an index the
 * service already has (no Scan); posts are counted up to POSTS_COUNT_CAP so a large history costs
 * a bounded read; media is one Query for one item.
 */
import { allowanceCycle } from '../../domain/allowance.js';
import type { Caller } from '../../domain/caller.js';
import type { Clock } from '../ports/clock.js';
import type { MediaLibraryStore } from '../ports/media-upload.js';
import type { AccountStore, ApiKeyStore, PostCounter } from './ports.js';

export const POSTS_COUNT_CAP = 1000;

export interface Overview {
  email: string;
  active: boolean;
  monthlyPostAllowance: number;
  allowanceUsed: number;
  /** ISO: the first instant of next month, UTC. */
  cycleResetsAt: string;
  activeKeys: number;
  accounts: number;
  workspaces: number;
  posts: { count: number; capped: boolean };
  /** At least one file in the media library. */
  hasMedia: boolean;
}

export function nextCycleStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

export class GetOverview {
  constructor(private readonly deps: { keys: ApiKeyStore; accounts: AccountStore; posts: PostCounter; media: Pick<MediaLibraryStore, 'list'>; clock: Clock }) {}

  async execute(caller: Caller): Promise<Overview> {
    const now = this.deps.clock.now();
    const [allowanceUsed, activeKeys, accounts, posts, media] = await Promise.all([
      this.deps.posts.allowanceUsed(caller.userId, allowanceCycle(now)),
      this.deps.keys.countActiveApiKeys(caller.userId),
      this.deps.accounts.countAccounts(caller.userId),
      this.deps.posts.countPosts(caller.userId, POSTS_COUNT_CAP),
      this.deps.media.list(caller.userId, 1),
    ]);
    return {
      email: caller.user.email,
      active: caller.user.active,
      monthlyPostAllowance: caller.user.monthlyPostAllowance,
      allowanceUsed,
      cycleResetsAt: nextCycleStart(now).toISOString(),
      activeKeys,
      accounts,
      workspaces: caller.user.workspaceIds.length,
      posts,
      hasMedia: media.length > 0,
    };
  }
}
