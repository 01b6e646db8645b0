import { describe, expect, it } from 'vitest';
import {
  dayWindow,
  decideAddressRequest,
  decideKeyRequest,
  minuteWindow,
  nextKeyCountStep,
  rateLimitHeaderValues,
  sanitizeLimit,
  secondsUntil,
  unknownDecision,
} from '../../lib/domain/rate-windows.js';

const limits = { perMinute: 120, perDay: 10_000 };
const unix = (iso: string): number => Date.parse(iso) / 1000;

describe('windows', () => {
  it('puts a moment in its UTC minute and names it', () => {
    const window = minuteWindow(new Date('2026-11-21T09:30:59.999Z'));
    expect(window.id).toBe('2026-11-21T09:30');
    expect(window.resetAt).toBe(unix('2026-11-21T09:31:00Z'));
    expect(window.expiresAt).toBeGreaterThan(window.resetAt);
  });

  it('starts a new minute exactly on the boundary', () => {
    expect(minuteWindow(new Date('2026-11-21T09:31:00.000Z')).id).toBe('2026-11-21T09:31');
  });

  it('puts a moment in its UTC day, whatever the local zone', () => {
    const window = dayWindow(new Date('2026-12-31T23:59:59.500Z'));
    expect(window.id).toBe('2026-12-31');
    expect(window.resetAt).toBe(unix('2027-01-01T00:00:00Z'));
    expect(window.expiresAt).toBeGreaterThan(window.resetAt);
  });

  it('rounds the wait up to whole seconds and never says 0', () => {
    expect(secondsUntil(unix('2026-11-21T09:31:00Z'), new Date('2026-11-21T09:30:00.000Z'))).toBe(60);
    expect(secondsUntil(unix('2026-11-21T09:31:00Z'), new Date('2026-11-21T09:30:58.200Z'))).toBe(2);
    expect(secondsUntil(unix('2026-11-21T09:31:00Z'), new Date('2026-11-21T09:30:59.999Z'))).toBe(1);
    expect(secondsUntil(unix('2026-11-21T09:31:00Z'), new Date('2026-11-21T09:31:05Z'))).toBe(1);
  });
});

describe('decideKeyRequest', () => {
  const now = new Date('2026-11-21T09:30:15.000Z');
  const minuteReset = unix('2026-11-21T09:31:00Z');
  const dayReset = unix('2026-11-22T00:00:00Z');

  it('describes the minute window while both have room', () => {
    const decision = decideKeyRequest({ now, limits, count: { outcome: 'admitted', minuteCount: 1, dayCount: 1 } });
    expect(decision).toEqual({ allowed: true, code: null, limit: 120, remaining: 119, resetAt: minuteReset, retryAfterSeconds: 45 });
  });

  it('admits the 120th request of a minute with nothing remaining', () => {
    const decision = decideKeyRequest({ now, limits, count: { outcome: 'admitted', minuteCount: 120, dayCount: 500 } });
    expect(decision).toMatchObject({ allowed: true, remaining: 0, limit: 120, resetAt: minuteReset });
  });

  it('refuses a full minute with rate_limit_burst and the wait until the next minute', () => {
    const decision = decideKeyRequest({ now, limits, count: { outcome: 'minute_full' } });
    expect(decision).toEqual({
      allowed: false,
      code: 'rate_limit_burst',
      limit: 120,
      remaining: 0,
      resetAt: minuteReset,
      retryAfterSeconds: 45,
    });
  });

  it('switches the headers to the day once the last daily unit is used', () => {
    const decision = decideKeyRequest({ now, limits, count: { outcome: 'admitted', minuteCount: 3, dayCount: 10_000 } });
    expect(decision).toMatchObject({ allowed: true, code: null, limit: 10_000, remaining: 0, resetAt: dayReset });
  });

  it('refuses a spent day with rate_limit_daily and the wait until the next UTC day', () => {
    const decision = decideKeyRequest({ now, limits, count: { outcome: 'day_full' } });
    expect(decision).toEqual({
      allowed: false,
      code: 'rate_limit_daily',
      limit: 10_000,
      remaining: 0,
      resetAt: dayReset,
      retryAfterSeconds: dayReset - unix('2026-11-21T09:30:15Z'),
    });
  });

  it('never reports a negative remaining, even for a count beyond the limit', () => {
    const decision = decideKeyRequest({ now, limits, count: { outcome: 'admitted', minuteCount: 500, dayCount: 9 } });
    expect(decision.remaining).toBe(0);
  });
});

describe('nextKeyCountStep (after a conditional update of the day counter failed)', () => {
  const minuteId = '2026-11-21T09:30';
  const small = { perMinute: 3, perDay: 10 };

  it('starts the minute when there is no counter yet, or it counts an earlier minute', () => {
    expect(nextKeyCountStep(undefined, minuteId, small)).toBe('start_minute');
    expect(nextKeyCountStep({}, minuteId, small)).toBe('start_minute');
    expect(nextKeyCountStep({ minuteId: '2026-11-21T09:29', minuteCount: 3, dayCount: 5 }, minuteId, small)).toBe('start_minute');
    // Ordered as strings: an earlier hour with a later minute is still earlier.
    expect(nextKeyCountStep({ minuteId: '2026-11-21T08:59', minuteCount: 1, dayCount: 5 }, minuteId, small)).toBe('start_minute');
  });

  it('counts in the minute another request has started (also one a clock slightly ahead started)', () => {
    expect(nextKeyCountStep({ minuteId, minuteCount: 1, dayCount: 5 }, minuteId, small)).toBe('count_in_minute');
    expect(nextKeyCountStep({ minuteId: '2026-11-21T09:31', minuteCount: 2, dayCount: 5 }, minuteId, small)).toBe('count_in_minute');
  });

  it('refuses a full minute, but only the current (or a later) one', () => {
    expect(nextKeyCountStep({ minuteId, minuteCount: 3, dayCount: 5 }, minuteId, small)).toBe('minute_full');
    expect(nextKeyCountStep({ minuteId: '2026-11-21T09:31', minuteCount: 3, dayCount: 5 }, minuteId, small)).toBe('minute_full');
  });

  it('refuses a spent day before anything else, whatever the minute', () => {
    expect(nextKeyCountStep({ minuteId: '2026-11-21T09:10', minuteCount: 1, dayCount: 10 }, minuteId, small)).toBe('day_full');
    expect(nextKeyCountStep({ minuteId, minuteCount: 3, dayCount: 10 }, minuteId, small)).toBe('day_full');
    expect(nextKeyCountStep({ minuteId, minuteCount: 0, dayCount: 12 }, minuteId, small)).toBe('day_full');
  });
});

describe('decideAddressRequest', () => {
  const now = new Date('2026-11-21T09:30:40.000Z');

  it('counts down the minute of the address', () => {
    expect(decideAddressRequest({ now, perMinute: 120, minute: { admitted: true, count: 7 } })).toMatchObject({
      allowed: true,
      limit: 120,
      remaining: 113,
    });
  });

  it('refuses with rate_limit_burst once the minute is full', () => {
    expect(decideAddressRequest({ now, perMinute: 120, minute: { admitted: false } })).toMatchObject({
      allowed: false,
      code: 'rate_limit_burst',
      remaining: 0,
      retryAfterSeconds: 20,
    });
  });
});

describe('rateLimitHeaderValues', () => {
  const now = new Date('2026-11-21T09:30:40.000Z');

  it('gives the three headers and no Retry-After on an admitted request', () => {
    const headers = rateLimitHeaderValues(decideAddressRequest({ now, perMinute: 120, minute: { admitted: true, count: 1 } }));
    expect(headers).toEqual({
      'X-RateLimit-Limit': '120',
      'X-RateLimit-Remaining': '119',
      'X-RateLimit-Reset': String(unix('2026-11-21T09:31:00Z')),
    });
  });

  it('adds Retry-After on a refusal', () => {
    const headers = rateLimitHeaderValues(decideAddressRequest({ now, perMinute: 120, minute: { admitted: false } }));
    expect(headers['Retry-After']).toBe('20');
    expect(headers['X-RateLimit-Remaining']).toBe('0');
  });

  it('describes the current minute with nothing left when nothing could be counted', () => {
    const headers = rateLimitHeaderValues(unknownDecision(now, 120));
    expect(headers).toEqual({
      'X-RateLimit-Limit': '120',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(unix('2026-11-21T09:31:00Z')),
    });
  });
});

describe('sanitizeLimit', () => {
  it('keeps positive whole numbers and falls back for anything else', () => {
    expect(sanitizeLimit(5, 120)).toBe(5);
    for (const bad of [0, -3, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) expect(sanitizeLimit(bad, 120)).toBe(120);
  });
});
