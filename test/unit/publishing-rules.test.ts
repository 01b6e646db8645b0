import { describe, expect, it } from 'vitest';
import {
  ADVICE,
  backoffMs,
  DUE_COUNT_CAP,
  isRetryableFailure,
  MAX_PREPARE_WINDOW_MS,
  nextRetry,
  prepareWindowMs,
  refusalAdvice,
  RETRY_WINDOW_MS,
  SENT_MARKER_LEAD_MS,
  sentMarkerLeadMs,
  timingFor,
} from '../../lib/domain/publishing.js';

const at = (iso: string) => new Date(iso);

describe('timingFor: early messages', () => {
  const due = at('2026-11-21T09:30:00.000Z');
  it('due or past: send now', () => {
    expect(timingFor(due, at('2026-11-21T09:30:00.000Z'))).toEqual({ action: 'send' });
    expect(timingFor(due, at('2026-11-21T09:30:05.000Z'))).toEqual({ action: 'send' });
  });
  it('within two seconds: prepare now and wait the rest in the worker', () => {
    expect(timingFor(due, at('2026-11-21T09:29:58.500Z'))).toEqual({ action: 'prepare', ms: 1500 });
    expect(timingFor(due, at('2026-11-21T09:29:58.000Z'))).toEqual({ action: 'prepare', ms: 2000 });
  });
  it('further: put back to arrive one to two seconds early (time to prepare), never late', () => {
    expect(timingFor(due, at('2026-11-21T09:29:50.300Z'))).toEqual({ action: 'requeue', delaySeconds: 8 });
    expect(timingFor(due, at('2026-11-21T09:29:57.900Z'))).toEqual({ action: 'requeue', delaySeconds: 1 });
    expect(timingFor(due, at('2026-11-21T09:27:00.000Z'))).toEqual({ action: 'requeue', delaySeconds: 179 });
  });
  it('never more than SQS allows (900 s)', () => {
    expect(timingFor(due, at('2026-11-21T09:00:00.000Z'))).toEqual({ action: 'requeue', delaySeconds: 900 });
  });
});

describe('prepareWindowMs: the lead grows with the posts due at the same second (issue 23)', () => {
  it('1.5 s plus 2.5 ms a post, in whole seconds, at least 2 s', () => {
    expect([0, 1, 200, 201, 500, 1_000, 1_001, 2_000, 10_000].map(prepareWindowMs)).toEqual([2_000, 2_000, 2_000, 3_000, 3_000, 4_000, 5_000, 7_000, 27_000]);
  });
  it('never decreases as the count grows, and stops at MAX_PREPARE_WINDOW_MS', () => {
    let last = 0;
    for (let count = 0; count <= DUE_COUNT_CAP + 2_000; count += 97) {
      const lead = prepareWindowMs(count);
      expect(lead).toBeGreaterThanOrEqual(last);
      last = lead;
    }
    expect(prepareWindowMs(DUE_COUNT_CAP)).toBe(MAX_PREPARE_WINDOW_MS);
    expect(prepareWindowMs(1_000_000)).toBe(MAX_PREPARE_WINDOW_MS);
  });
});

describe('sentMarkerLeadMs: a burst writes its markers earlier', () => {
  it('half a second at the least lead, 0.4 s of each further second of lead on top, at most 3 s', () => {
    expect(sentMarkerLeadMs(2_000)).toBe(SENT_MARKER_LEAD_MS);
    expect([3_000, 4_000, 5_000, 7_000, 27_000, 30_000].map(sentMarkerLeadMs)).toEqual([900, 1_300, 1_700, 2_500, 3_000, 3_000]);
  });
});

describe('timingFor with a longer lead', () => {
  const due = at('2026-11-21T09:30:00.000Z');
  it('prepares within the lead, and puts back to arrive within it (between lead - 1 s and lead ahead), never after', () => {
    expect(timingFor(due, at('2026-11-21T09:29:55.000Z'), 5_000)).toEqual({ action: 'prepare', ms: 5_000 });
    expect(timingFor(due, at('2026-11-21T09:29:43.000Z'), 5_000)).toEqual({ action: 'requeue', delaySeconds: 13 });
    expect(timingFor(due, at('2026-11-21T09:29:43.400Z'), 5_000)).toEqual({ action: 'requeue', delaySeconds: 12 });
    for (let ms = 5_001; ms < 60_000; ms += 137) {
      const now = new Date(due.getTime() - ms);
      const timing = timingFor(due, now, 5_000);
      if (timing.action !== 'requeue') throw new Error(`expected requeue at ${ms}`);
      const leftOnArrival = ms - timing.delaySeconds * 1000;
      expect(leftOnArrival).toBeGreaterThan(4_000);
      expect(leftOnArrival).toBeLessThanOrEqual(5_000);
    }
  });
});

describe('nextRetry: backoff within the 15-minute window', () => {
  const first = at('2026-11-21T09:30:00.000Z');
  it('backs off 5 s, 10 s, 20 s ... up to 2 minutes', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 10].map(backoffMs)).toEqual([5000, 10000, 20000, 40000, 80000, 120000, 120000, 120000]);
  });
  it('retries while the next attempt is inside the window', () => {
    expect(nextRetry({ attempt: 1, firstAttemptAt: first, now: first })).toEqual({ retry: true, at: at('2026-11-21T09:30:05.000Z') });
  });
  it('gives up once the next attempt would be past 15 minutes from the first', () => {
    const now = new Date(first.getTime() + RETRY_WINDOW_MS - 60_000);
    expect(nextRetry({ attempt: 8, firstAttemptAt: first, now })).toEqual({ retry: false });
  });
  it('honours a rate limit reset', () => {
    const reset = at('2026-11-21T09:35:00.000Z');
    expect(nextRetry({ attempt: 1, firstAttemptAt: first, now: first, notBefore: reset })).toEqual({ retry: true, at: at('2026-11-21T09:35:01.000Z') });
    expect(nextRetry({ attempt: 1, firstAttemptAt: first, now: first, notBefore: at('2026-11-21T10:00:00.000Z') })).toEqual({ retry: false });
  });
  it('waits at least the minimum delay (after a lost answer)', () => {
    expect(nextRetry({ attempt: 1, firstAttemptAt: first, now: first, minDelayMs: 30_000 })).toEqual({ retry: true, at: at('2026-11-21T09:30:30.000Z') });
  });
});

describe('advice: one sentence each', () => {
  it('a refusal about length says to shorten', () => {
    expect(refusalAdvice('linkedin', 'ShareCommentary text length (3001 characters) exceeded the maximum allowed (3000 characters)')).toBe(ADVICE.textTooLong('linkedin'));
    expect(refusalAdvice('x', 'Your Tweet text is too long.')).toBe(ADVICE.textTooLong('x'));
    expect(refusalAdvice('x', 'You are not permitted to perform this action.')).toBe(ADVICE.refused('x'));
  });
  it('every advice is one sentence ending in a full stop', () => {
    const texts = [
      ADVICE.refused('x'),
      ADVICE.textTooLong('linkedin'),
      ADVICE.duplicate('x'),
      ADVICE.reconnect('linkedin'),
      ADVICE.refreshFailed('x'),
      ADVICE.gaveUp('x'),
      ADVICE.rateLimited('x', null),
      ADVICE.rateLimited('x', at('2026-11-21T09:35:00.000Z')),
      ADVICE.checkAccount('linkedin'),
      ADVICE.reconnectAndCheck('x'),
      ADVICE.accountGone(),
      ADVICE.mediaGone(),
      ADVICE.versionRetired('linkedin', '202510', 'LINKEDIN_API_VERSION in lib/platforms/linkedin-version.ts'),
      ADVICE.versionRetired('linkedin', '202510', 'LINKEDIN_API_VERSION in lib/platforms/linkedin-version.ts', true),
    ];
    for (const text of texts) {
      expect(text).toMatch(/^[A-Z][^]*\.$/);
      expect(text.replace(/\d+\.\d+Z/, '').split(/\.\s/)).toHaveLength(1);
    }
  });
});

describe('isRetryableFailure: error.retryable of a failed post', () => {
  it('true only when the platform certainly holds no such post and a retry can help', () => {
    for (const kind of ['auth', 'refresh_failed', 'account_gone', 'rate_limited_gave_up', 'unavailable_gave_up', 'internal_gave_up']) {
      expect(isRetryableFailure(kind, false), kind).toBe(true);
    }
  });
  it('false when a create may be live (an answer never came), whatever the kind', () => {
    for (const kind of ['auth', 'rate_limited_gave_up', 'unavailable_gave_up', 'internal_gave_up']) expect(isRetryableFailure(kind, true), kind).toBe(false);
    for (const kind of ['ambiguous_gave_up', 'ambiguous_unknown', 'ambiguous']) expect(isRetryableFailure(kind, false), kind).toBe(false);
  });
  it('false when retrying cannot help: content refused, an identical post live, media gone, deleted', () => {
    for (const kind of ['refused', 'duplicate', 'media_gone', 'deleted']) expect(isRetryableFailure(kind, false), kind).toBe(false);
  });
});
