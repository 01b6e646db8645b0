import type { RateBucket, RateDecision } from '../../domain/rate-windows.js';

/** Counts one request against a bucket, atomically, and says whether it may proceed. */
export interface RateLimiter {
  hit(bucket: RateBucket, now: Date): Promise<RateDecision>;
}
