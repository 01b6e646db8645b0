/** Reading how published posts did on their platform: lib/platforms implements it (x-client.ts, linkedin-client.ts). */
import type { PublishablePlatform } from '../../domain/model.js';
import type { PostFigures } from '../../domain/post-metrics.js';
import type { PlatformAccount } from './platform-publisher.js';

export interface PlatformMetricsRequest {
  account: PlatformAccount;
  accessToken: string;
  /** Live posts of this account (at most maxPostsPerRequest). */
  platformPostIds: readonly string[];
}

export interface PlatformMetricsReader {
  readonly platform: PublishablePlatform;
  /** Posts one call may cover: what one platform request takes (X: 100 ids a lookup). */
  readonly maxPostsPerRequest: number;
  /**
   * The figures of each post asked for: null for a post the platform no longer shows (deleted
   * there); a figure it does not give this account is null. Throws the classes of
   * lib/domain/platform-errors.ts: PlatformRateLimitedError (postpone), PlatformAuthError, ...
   */
  fetchMetrics(request: PlatformMetricsRequest): Promise<Map<string, PostFigures | null>>;
}
