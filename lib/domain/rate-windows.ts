/**
 * The arithmetic of the rate limits (decisions.md, Rate limits), kept pure so it is tested without
 * a database: fixed windows on the UTC minute and the UTC day, what the X-RateLimit-* headers say,
 * and how long a refused client waits. The counting itself is lib/store/dynamodb-rate-limiter.ts.
 */

export type RateBucket =
  | { kind: 'key'; keyId: string }
  | { kind: 'address'; address: string }
  /** Outbound fetches of Client ID Metadata Documents an address caused (METADATA_FETCHES_PER_MINUTE). */
  | { kind: 'fetch'; address: string };

/**
 * Metadata documents an address may make the authorization server fetch in a minute: an assistant
 * connecting needs one, and each fetch is an outbound request of ours (up to 5 s and 5 KiB) that
 * a caller could otherwise aim at any https host at our expense.
 */
export const METADATA_FETCHES_PER_MINUTE = 10;

export interface RateDecision {
  allowed: boolean;
  /** Set when not allowed. */
  code: 'rate_limit_burst' | 'rate_limit_daily' | null;
  /** The window the headers describe (the minute, or the day once the daily budget is spent). */
  limit: number;
  remaining: number;
  /** Unix seconds at which the described window resets. */
  resetAt: number;
  /** Seconds until a retry can succeed (only meaningful when not allowed). */
  retryAfterSeconds: number;
}

export interface RateLimits {
  perMinute: number;
  perDay: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = { perMinute: 120, perDay: 10_000 };

export interface RateWindow {
  /**
   * Names the window: `2026-11-21T09:30` (minute: an address counter's key, a key counter's
   * minuteId) or `2026-11-21` (day: a key counter's key).
   */
  id: string;
  /** Unix seconds at which the window ends and a fresh one starts. */
  resetAt: number;
  /** Unix seconds after which the counter may be deleted (DynamoDB TTL); later than resetAt. */
  expiresAt: number;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export function minuteWindow(now: Date): RateWindow {
  const start = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS;
  const resetAt = (start + MINUTE_MS) / 1000;
  // Kept a few minutes past its end: TTL deletion is lazy anyway, and the key is never reused.
  return { id: new Date(start).toISOString().slice(0, 16), resetAt, expiresAt: resetAt + 300 };
}

export function dayWindow(now: Date): RateWindow {
  const start = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  const resetAt = (start + DAY_MS) / 1000;
  return { id: new Date(start).toISOString().slice(0, 10), resetAt, expiresAt: resetAt + 3600 };
}

/** Whole seconds until `resetAt`, at least 1: a Retry-After of 0 would invite an immediate retry. */
export function secondsUntil(resetAt: number, now: Date): number {
  return Math.max(1, Math.ceil(resetAt - now.getTime() / 1000));
}

/**
 * What one conditional increment of a counter gave: admitted with the count after this request,
 * or refused because the window was already full (the counter was left unchanged).
 */
export type CounterOutcome = { admitted: true; count: number } | { admitted: false };

/**
 * What counting one request of a key gave. A key has one counter per UTC day that also holds the
 * count of its current minute; a refused request changed nothing.
 */
export type KeyCount =
  | { outcome: 'admitted'; minuteCount: number; dayCount: number }
  | { outcome: 'minute_full' }
  | { outcome: 'day_full' };

/** A key's day counter as stored: the day's count and the minute it is counting now. */
export interface KeyCounterState {
  /** ISO minute (`2026-11-21T09:30`, the minute window's id): compares correctly as a string. */
  minuteId?: string;
  minuteCount?: number;
  dayCount?: number;
}

/**
 * The two ways to count a request in a key's day counter (each one conditional update), and the
 * two refusals. `count_in_minute` adds one to the minute and the day while the counter already
 * counts this minute (or a later one: another Lambda whose clock is a few milliseconds ahead has
 * started it, and the request is counted there rather than resetting it); `start_minute` sets
 * the minute to this one with a count of 1 and adds one to the day, while the counter is missing
 * or counts an earlier minute.
 */
export type KeyCountStep = 'count_in_minute' | 'start_minute' | 'minute_full' | 'day_full';

/**
 * What to do after a conditional update failed, from the counter as it was when the condition
 * was evaluated (DynamoDB returns it with the failure). A spent day wins over a full minute, as
 * in decideKeyRequest. Since a counter's minute only ever moves forward, `start_minute` failing
 * leads to `count_in_minute` or a refusal, never back: counting settles in at most three updates.
 */
export function nextKeyCountStep(counter: KeyCounterState | undefined, minuteId: string, limits: RateLimits): KeyCountStep {
  if ((counter?.dayCount ?? 0) >= limits.perDay) return 'day_full';
  if (counter?.minuteId === undefined || counter.minuteId < minuteId) return 'start_minute';
  return (counter.minuteCount ?? 0) >= limits.perMinute ? 'minute_full' : 'count_in_minute';
}

/** Decision for a request made with a valid API key, from the count of its day counter. */
export function decideKeyRequest(input: { now: Date; limits: RateLimits; count: KeyCount }): RateDecision {
  const { now, limits, count } = input;
  const minuteWin = minuteWindow(now);
  const dayWin = dayWindow(now);
  if (count.outcome === 'day_full') {
    // The daily budget is spent: that window is the one that matters, whatever the minute says.
    return refused('rate_limit_daily', limits.perDay, dayWin.resetAt, now);
  }
  if (count.outcome === 'minute_full') return refused('rate_limit_burst', limits.perMinute, minuteWin.resetAt, now);
  const dayRemaining = Math.max(0, limits.perDay - count.dayCount);
  if (dayRemaining === 0) {
    // This request took the last unit of the day: from here on the headers describe the day.
    return allowed(limits.perDay, 0, dayWin.resetAt, now);
  }
  return allowed(limits.perMinute, Math.max(0, limits.perMinute - count.minuteCount), minuteWin.resetAt, now);
}

/** Decision for a request without a valid key, counted against the client address (minute only). */
export function decideAddressRequest(input: { now: Date; perMinute: number; minute: CounterOutcome }): RateDecision {
  const { now, perMinute, minute } = input;
  const win = minuteWindow(now);
  if (!minute.admitted) return refused('rate_limit_burst', perMinute, win.resetAt, now);
  return allowed(perMinute, Math.max(0, perMinute - minute.count), win.resetAt, now);
}

/**
 * Headers when no count could be made (the counters table failed, or the failure came before the
 * count): they describe the current minute with nothing left, which tells a client to back off
 * until the reset rather than retry in a tight loop against a failing service.
 */
export function unknownDecision(now: Date, perMinute: number): RateDecision {
  const win = minuteWindow(now);
  return { allowed: false, code: null, limit: perMinute, remaining: 0, resetAt: win.resetAt, retryAfterSeconds: secondsUntil(win.resetAt, now) };
}

export function rateLimitHeaderValues(decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(Math.max(0, decision.remaining)),
    'X-RateLimit-Reset': String(decision.resetAt),
  };
  if (decision.code !== null) headers['Retry-After'] = String(decision.retryAfterSeconds);
  return headers;
}

/** Reads a limit from configuration: a positive whole number, otherwise the default. */
export function sanitizeLimit(value: number, fallback: number): number {
  return Number.isSafeInteger(value) && value > 0 ? value : fallback;
}

function allowed(limit: number, remaining: number, resetAt: number, now: Date): RateDecision {
  return { allowed: true, code: null, limit, remaining, resetAt, retryAfterSeconds: secondsUntil(resetAt, now) };
}

function refused(code: 'rate_limit_burst' | 'rate_limit_daily', limit: number, resetAt: number, now: Date): RateDecision {
  return { allowed: false, code, limit, remaining: 0, resetAt, retryAfterSeconds: secondsUntil(resetAt, now) };
}
