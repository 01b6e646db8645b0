import { describe, expect, it } from 'vitest';
import { ADVICE, backoffMs, isRetryableFailure, nextRetry, refusalAdvice, RETRY_WINDOW_MS, timingFor } from '../../lib/domain/publishing.js';

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
