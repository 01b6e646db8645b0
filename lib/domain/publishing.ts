/**
 * The rules of sending a post (decisions.md, Publishing), as pure functions the publish worker
 * and the sweeper share: when a message is early, how long to back off, when to give up, and the
 * one-sentence advice a failed post carries. No I/O here, so every rule has a fast unit test.
 */
import type { PublishablePlatform } from './model.js';

/** Transient failures are retried for this long after the first attempt, then the post fails. */
export const RETRY_WINDOW_MS = 15 * 60 * 1000;
/** SQS's longest DelaySeconds. */
export const MAX_QUEUE_DELAY_SECONDS = 900;
/**
 * A message this close to its due time is not put back: the worker claims the post and does
 * everything but the create request now (account, token, media uploads), then waits the rest, so at
 * the due second only the "sent" marker, the create and its outcome remain. A message put back is
 * delayed to arrive PREPARE_LEAD_SECONDS to PREPARE_WINDOW_MS before due, because SQS delays are
 * whole seconds and a poll adds latency. The lead is as short as that allows: Lambda bills the
 * worker's wait (docs/performance.md, "Posts due at the same second").
 */
export const PREPARE_WINDOW_MS = 2_000;
const PREPARE_LEAD_SECONDS = 1;
/**
 * The longest lead a burst is prepared with, and so how early a message due within 15 minutes
 * arrives first (the create's delay, the schedule's fire): early enough for the worker to count
 * the posts due at its second and put it back for the lead that count needs (prepareWindowMs).
 */
export const MAX_PREPARE_WINDOW_MS = 30_000;
/**
 * DynamoDB Local's time per post of a burst where the service runs slowest (docs/performance.md,
 * "Posts due at the same second"): its claim (an UpdateItem returning the item) and its "sent"
 * marker (an action in a transaction of up to 100). A burst is prepared this much per post ahead
 * of its second, on top of a fixed part.
 */
export const PREPARE_MS_PER_POST = 2.5;
const PREPARE_FIXED_MS = 1_500;
/**
 * The most posts one group message names (lib/dispatch/messages.ts): with the publish queue's
 * batches of 10 messages, an invocation holds at most 250 posts until their second.
 */
export const MAX_GROUP_POSTS = 25;
/** The most posts the due index is asked to count for one second: enough for MAX_PREPARE_WINDOW_MS. */
export const DUE_COUNT_CAP = Math.ceil((MAX_PREPARE_WINDOW_MS - PREPARE_FIXED_MS) / PREPARE_MS_PER_POST);

/**
 * How long before their second the posts of a second are prepared, from how many share it: 1.5 s
 * plus 2.5 ms a post, in whole seconds, at least 2 s (up to 200 posts), at most 30 s (500: 3 s;
 * 2,000: 7 s; 10,000: 27 s). The claims go first, the markers in the last part of it
 * (sentMarkerLeadMs), and neither must still be under way at the second.
 */
export function prepareWindowMs(dueCount: number): number {
  const lead = Math.ceil((PREPARE_FIXED_MS + Math.max(0, dueCount) * PREPARE_MS_PER_POST) / 1000) * 1000;
  return Math.min(MAX_PREPARE_WINDOW_MS, Math.max(PREPARE_WINDOW_MS, lead));
}
/**
 * How long before a prepared post's time its "sent" marker is written: the marker (the one
 * DynamoDB write a burst would otherwise wait for in its second) is done before the second starts,
 * and the create goes out at the second itself. From the marker on the post counts as being sent,
 * so a DELETE in this last half second soft-deletes it (softDeleted: true) rather than cancelling.
 */
export const SENT_MARKER_LEAD_MS = 500;
/** The longest a burst's markers are written ahead of their second (sentMarkerLeadMs). */
export const MAX_SENT_MARKER_LEAD_MS = 3_000;

/**
 * How long before their second the "sent" markers of posts prepared `prepareMs` ahead are
 * written: SENT_MARKER_LEAD_MS for the least lead, 0.4 s of each further second of lead on top
 * (500 posts, a 3 s lead: 0.9 s; 2,000 posts, 7 s: 2.5 s), at most MAX_SENT_MARKER_LEAD_MS. A
 * burst's markers are thousands of conditional writes in the same stretch, and a create waits for
 * its marker. The price: a DELETE in that last stretch
 * soft-deletes the post (it is being sent) instead of cancelling it.
 */
export function sentMarkerLeadMs(prepareMs: number): number {
  return Math.min(MAX_SENT_MARKER_LEAD_MS, SENT_MARKER_LEAD_MS + Math.max(0, prepareMs - PREPARE_WINDOW_MS) * 0.4);
}
/**
 * After a create whose outcome is unknown, wait this long from when it was sent before looking the
 * post up: by then the platform has finished with it (our create timeout is 20 s, plus a margin),
 * so "not there" means it was not created and sending again is safe. After a crash this bounds the
 * recovery of a post that was being sent (issue 10: within 30 s of a restart).
 */
export const AMBIGUOUS_RECHECK_MS = 25_000;
/**
 * How long a claim holds a post before another worker may take it over. Short, because a worker
 * that died is only replaced once its lease runs out (issue 10: recover within 30 s of a
 * restart); a live worker renews it while its send runs (lib/use-cases/publish-lease.ts).
 */
export const PUBLISH_LEASE_MS = 15_000;

const BACKOFF_BASE_MS = 5_000;
const BACKOFF_MAX_MS = 120_000;

export type Timing = { action: 'send' } | { action: 'prepare'; ms: number } | { action: 'requeue'; delaySeconds: number };

/**
 * What to do with a message for a post due at `dueAt` that arrives at `now`, when the post is
 * prepared `windowMs` ahead (PREPARE_WINDOW_MS, or prepareWindowMs of its second's count).
 */
export function timingFor(dueAt: Date, now: Date, windowMs: number = PREPARE_WINDOW_MS): Timing {
  const remaining = dueAt.getTime() - now.getTime();
  if (remaining <= 0) return { action: 'send' };
  if (remaining <= windowMs) return { action: 'prepare', ms: remaining };
  // Arrive within the window (never after it): SQS delays are whole seconds, so the message comes
  // back between windowMs - 1 s and windowMs ahead, and the worker prepares and waits inline.
  const delaySeconds = Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, Math.floor((remaining - windowMs) / 1000) + PREPARE_LEAD_SECONDS));
  return { action: 'requeue', delaySeconds };
}

/** The delay of a message for a post due at `dueAt` sent at `now`: 0 when it is (nearly) due. */
export function queueDelaySeconds(dueAt: Date, now: Date, windowMs: number = PREPARE_WINDOW_MS): number {
  const timing = timingFor(dueAt, now, windowMs);
  return timing.action === 'requeue' ? timing.delaySeconds : 0;
}

/** When a scheduled post is next due: its time, or the retry time a transient failure set, whichever is later. */
export function nextDueAt(scheduledFor: string, retryAt: string | null): Date {
  return new Date(Math.max(Date.parse(scheduledFor), retryAt === null ? Number.NEGATIVE_INFINITY : Date.parse(retryAt)));
}

/** Backoff before attempt `attempt + 1` (attempt counts from 1): 5 s, 10 s, 20 s, ... at most 2 minutes. */
export function backoffMs(attempt: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempt - 1));
}

export type RetryDecision = { retry: true; at: Date } | { retry: false };

/**
 * When to try again after a transient failure, or not at all once the 15-minute window from the
 * first attempt would be passed. A rate limit's reset time is honoured (a retry before it would only
 * be refused again).
 */
export function nextRetry(input: { attempt: number; firstAttemptAt: Date; now: Date; notBefore?: Date | null; minDelayMs?: number }): RetryDecision {
  const delay = Math.max(backoffMs(input.attempt), input.minDelayMs ?? 0);
  let at = input.now.getTime() + delay;
  if (input.notBefore) at = Math.max(at, input.notBefore.getTime() + 1000);
  if (at > input.firstAttemptAt.getTime() + RETRY_WINDOW_MS) return { retry: false };
  return { retry: true, at: new Date(at) };
}

export function platformName(platform: PublishablePlatform): string {
  return platform === 'x' ? 'X' : 'LinkedIn';
}

/** One sentence per way a post can fail: what the user should do. */
export const ADVICE = {
  refused: (platform: PublishablePlatform) =>
    `Change the post to meet ${platformName(platform)}'s rules (see the message) and create it again.`,
  textTooLong: (platform: PublishablePlatform) => `Shorten the text to fit ${platformName(platform)}'s limit and create the post again.`,
  duplicate: (platform: PublishablePlatform) =>
    `${platformName(platform)} refuses a post identical to one already on the account: change the text and create it again.`,
  reconnect: (platform: PublishablePlatform) =>
    `Reconnect the ${platformName(platform)} account, then create the post again.`,
  refreshFailed: (platform: PublishablePlatform) =>
    `The connection to ${platformName(platform)} could not be refreshed: reconnect the account, then create the post again.`,
  gaveUp: (platform: PublishablePlatform) =>
    `${platformName(platform)} kept failing for 15 minutes, so the post was not sent: try again later.`,
  rateLimited: (platform: PublishablePlatform, resetAt: Date | null) =>
    resetAt
      ? `The account reached ${platformName(platform)}'s posting limit until ${resetAt.toISOString()}: create the post again after that.`
      : `The account reached ${platformName(platform)}'s posting limit: create the post again later.`,
  checkAccount: (platform: PublishablePlatform) =>
    `Check the ${platformName(platform)} account before posting again: the post may already be live.`,
  /** The connection is gone while an earlier create may be live (not looked up): never "create it again". */
  reconnectAndCheck: (platform: PublishablePlatform) =>
    `Reconnect the ${platformName(platform)} account and check it before posting again: the post may already be live.`,
  accountGone: () => 'The account is no longer connected: reconnect it, then create the post again.',
  /** X long posts: the account is no longer Premium, and a text is never cut to fit. */
  lostPremium: (limit: number) =>
    `Shorten the text to ${limit} characters as X counts them and create the post again, or renew X Premium (then reconnect the account, or wait for the daily check) and create it again.`,
  mediaGone: () => 'An attached media file is no longer in the media library: upload it again and create the post again.',
  /**
   * For the operator: the platform retired the API version this deployment calls it with. When an
   * earlier attempt's outcome was unknown, the post may be live: check rather than create again.
   */
  versionRetired: (platform: PublishablePlatform, version: string, setting: string, mayBeLive = false) =>
    `${platformName(platform)} no longer serves API version ${version}, so no post to it can go out: the operator must move ${setting} to a current version and redeploy; then ${
      mayBeLive ? `check the ${platformName(platform)} account before posting again, as an earlier attempt may be live` : 'create the post again'
    }.`,
} as const;

/**
 * The kinds of failure that retrying cannot help, whatever else is known: the platform refused the
 * content (or an identical post is live), a media file is gone, the post was deleted.
 */
const CONTENT_FAILURES = new Set(['refused', 'duplicate', 'media_gone', 'deleted']);
/** The kinds that mean an earlier create may be live: the platform did not, or could not, say. */
const MAY_BE_LIVE_FAILURES = new Set(['ambiguous', 'ambiguous_gave_up', 'ambiguous_unknown']);

/**
 * A failed post's `error.retryable` (beyond-v1.md "The post lifecycle"): true only when the
 * platform certainly holds no such post (refused before anything was created: the connection, the
 * token; retries ran out on 429s or 5xx with no create in doubt), so a retry under the same id
 * cannot post it twice; false when a create may be live (`mayBeLive`: an answer never came) or
 * when retrying cannot help (the content was refused). `kind` is the worker's failure kind
 * (lib/use-cases/publish-post.ts: `refused`, `auth`, `unavailable_gave_up`, ...).
 */
export function isRetryableFailure(kind: string, mayBeLive: boolean): boolean {
  if (mayBeLive || CONTENT_FAILURES.has(kind) || MAY_BE_LIVE_FAILURES.has(kind)) return false;
  return true;
}

const TOO_LONG = /too long|exceeded the maximum|length/i;

/** The advice for a refusal: shortening when the platform said the text was too long. */
export function refusalAdvice(platform: PublishablePlatform, message: string): string {
  return TOO_LONG.test(message) ? ADVICE.textTooLong(platform) : ADVICE.refused(platform);
}

/** The message of a post that failed because retries ran out: what the platform last said. */
export function gaveUpMessage(platform: PublishablePlatform, lastSaid: string): string {
  return `${platformName(platform)} was unavailable: ${lastSaid}`;
}
