/**
 * The arithmetic of the rate limits (decisions.md, Rate limits), kept pure so it is tested without
 * a database: fixed windows on the UTC minute and the UTC day, what the X-RateLimit-* headers say,
 * and how long a refused client waits. The counting itself is lib/store/dynamodb-rate-limiter.ts.
 */
import type { RateDecision } from '../ports.js';

export interface RateLimits {
  perMinute: number;
  perDay: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = { perMinute: 120, perDay: 10_000 };

export interface RateWindow {
  /** Names the window in a counter key: `2026-11-21T09:30` (minute) or `2026-11-21` (day). */
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

/** Decision for a request made with a valid API key: minute and day counters of that key. */
export function decideKeyRequest(input: {
  now: Date;
  limits: RateLimits;
  minute: CounterOutcome;
  day: CounterOutcome;
}): RateDecision {
  const { now, limits, minute, day } = input;
  const minuteWin = minuteWindow(now);
  const dayWin = dayWindow(now);
  if (!day.admitted) {
    // The daily budget is spent: that window is the one that matters, whatever the minute says.
    return refused('rate_limit_daily', limits.perDay, dayWin.resetAt, now);
  }
  if (!minute.admitted) return refused('rate_limit_burst', limits.perMinute, minuteWin.resetAt, now);
  const dayRemaining = Math.max(0, limits.perDay - day.count);
  if (dayRemaining === 0) {
    // This request took the last unit of the day: from here on the headers describe the day.
    return allowed(limits.perDay, 0, dayWin.resetAt, now);
  }
  return allowed(limits.perMinute, Math.max(0, limits.perMinute - minute.count), minuteWin.resetAt, now);
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
