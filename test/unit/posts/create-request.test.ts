import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/domain/errors.js';
import { checkOptionPlatforms, parseCreatePostsBody, parseZonedDateTime } from '../../../lib/domain/create-request.js';

const NOW = new Date('2026-11-21T09:30:00.000Z');

function refusal(body: unknown, now: Date = NOW): { code: string; param: string | null; message: string } {
  try {
    parseCreatePostsBody(body, now);
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, param: error.param, message: error.message };
    throw error;
  }
  throw new Error('expected the body to be refused');
}

const ok = { accounts: ['acct_1'] };

describe('parseCreatePostsBody: each code and param', () => {
  it.each([
    ['array body', [], 'invalid_body', null],
    ['null body', null, 'invalid_body', null],
    ['string body', 'x', 'invalid_body', null],
    ['unknown field (typo of scheduledFor)', { ...ok, scheduleFor: '2026-12-01T10:00:00Z' }, 'invalid_body', 'scheduleFor'],
    ['workspaceId not a string', { ...ok, workspaceId: 5 }, 'invalid_body', 'workspaceId'],
    ['campaignId not a string', { ...ok, campaignId: 7 }, 'invalid_body', 'campaignId'],
    ['campaignId null', { ...ok, campaignId: null }, 'invalid_body', 'campaignId'],
    ['campaignId empty', { ...ok, campaignId: '' }, 'invalid_body', 'campaignId'],
    ['accounts missing', {}, 'accounts_required', 'accounts'],
    ['accounts empty', { accounts: [] }, 'accounts_required', 'accounts'],
    ['accounts a string', { accounts: 'acct_1' }, 'accounts_required', 'accounts'],
    ['accounts null', { accounts: null }, 'accounts_required', 'accounts'],
    ['accounts entry a number', { accounts: ['acct_1', 2] }, 'accounts_required', 'accounts'],
    ['accounts entry empty', { accounts: [''] }, 'accounts_required', 'accounts'],
    ['accounts duplicated', { accounts: ['acct_1', 'acct_1'] }, 'accounts_required', 'accounts'],
    ['26 accounts', { accounts: Array.from({ length: 26 }, (_, i) => `acct_${i}`) }, 'too_many_accounts', 'accounts'],
    ['text null', { ...ok, text: null }, 'invalid_text', 'text'],
    ['text a number', { ...ok, text: 3 }, 'invalid_text', 'text'],
    ['texts null', { ...ok, texts: null }, 'invalid_texts', 'texts'],
    ['texts an array', { ...ok, texts: ['a'] }, 'invalid_texts', 'texts'],
    ['texts entry not a string', { ...ok, texts: { acct_1: 1 } }, 'invalid_texts', 'texts.acct_1'],
    ['texts key not in accounts', { ...ok, texts: { acct_9: 'hi' } }, 'invalid_texts', 'texts.acct_9'],
    ['media null', { ...ok, media: null }, 'invalid_media', 'media'],
    ['media a string', { ...ok, media: 'https://x' }, 'invalid_media', 'media'],
    ['media entry not a string', { ...ok, media: [1] }, 'invalid_media', 'media'],
    ['media over 20', { ...ok, media: Array.from({ length: 21 }, (_, i) => `u${i}`) }, 'invalid_media', 'media'],
    ['scheduledFor not a string', { ...ok, scheduledFor: 1700000000 }, 'invalid_scheduled_for', 'scheduledFor'],
    ['scheduledFor null', { ...ok, scheduledFor: null }, 'invalid_scheduled_for', 'scheduledFor'],
    ['scheduledFor Feb 30', { ...ok, scheduledFor: '2027-02-30T10:00:00Z' }, 'invalid_scheduled_for', 'scheduledFor'],
    ['scheduledFor date only', { ...ok, scheduledFor: '2026-12-01' }, 'invalid_scheduled_for', 'scheduledFor'],
    ['scheduledFor no zone', { ...ok, scheduledFor: '2026-12-01T10:00:00' }, 'invalid_scheduled_for', 'scheduledFor'],
    ['scheduledFor hour 24', { ...ok, scheduledFor: '2026-12-01T24:00:00Z' }, 'invalid_scheduled_for', 'scheduledFor'],
    ['scheduledFor past', { ...ok, scheduledFor: '2026-11-21T09:29:59Z' }, 'scheduled_for_in_past', 'scheduledFor'],
    ['scheduledFor past by offset', { ...ok, scheduledFor: '2026-11-21T10:29:00+01:00' }, 'scheduled_for_in_past', 'scheduledFor'],
    ['scheduledFor 30 days + 1 ms', { ...ok, scheduledFor: '2026-12-21T09:30:00.001Z' }, 'scheduled_for_too_far', 'scheduledFor'],
    ['options null', { ...ok, options: null }, 'invalid_option', 'options'],
    ['options unknown platform', { ...ok, options: { facebook: {} } }, 'invalid_option', 'options.facebook'],
    ['options platform not an object', { ...ok, options: { x: true } }, 'invalid_option', 'options.x'],
    ['options unknown setting', { ...ok, options: { x: { community: '1' } } }, 'invalid_option', 'options.x.community'],
    ['options mistyped setting', { ...ok, options: { x: { communityId: 5 } } }, 'invalid_option', 'options.x.communityId'],
    ['options mistyped boolean', { ...ok, options: { x: { shareWithFollowers: 'yes' } } }, 'invalid_option', 'options.x.shareWithFollowers'],
    ['linkedin takes no settings', { ...ok, options: { linkedin: { visibility: 'PUBLIC' } } }, 'invalid_option', 'options.linkedin.visibility'],
  ])('%s', (_name, body, code, param) => {
    const failure = refusal(body);
    expect(failure.code).toBe(code);
    expect(failure.param).toBe(param);
    expect(failure.message.length).toBeGreaterThan(0);
  });

  it('says what was wrong with accounts', () => {
    expect(refusal({ accounts: 'acct_1' }).message).toContain('got a string');
    expect(refusal({ accounts: ['acct_1', 2] }).message).toContain('accounts[1]');
    expect(refusal({ accounts: [] }).message).toContain('empty');
    expect(refusal({}).message).toContain('required');
  });

  it('names the latest accepted time (UTC, ms) when too far', () => {
    expect(refusal({ ...ok, scheduledFor: '2027-01-30T00:00:00Z' }).message).toContain('2026-12-21T09:30:00.000Z');
  });

  it('checks in the documented order: the first failing field wins', () => {
    // invalid_body beats everything; accounts beat text; text beats texts; ... options come last.
    expect(refusal({ accounts: [], text: 1, bogus: 1 }).code).toBe('invalid_body');
    expect(refusal({ accounts: [], text: 1 }).code).toBe('accounts_required');
    expect(refusal({ ...ok, text: 1, texts: null }).code).toBe('invalid_text');
    expect(refusal({ ...ok, texts: null, media: null }).code).toBe('invalid_texts');
    expect(refusal({ ...ok, media: null, scheduledFor: 'x' }).code).toBe('invalid_media');
    expect(refusal({ ...ok, scheduledFor: '2020-01-01T00:00:00Z', options: null }).code).toBe('scheduled_for_in_past');
    expect(refusal({ accounts: Array.from({ length: 26 }, () => 'same') }).code).toBe('too_many_accounts');
  });
});

describe('parseCreatePostsBody: accepted bodies', () => {
  it('keeps the fields and defaults', () => {
    const request = parseCreatePostsBody({ accounts: ['a', 'b'], text: 'hi', texts: { b: 'yo' } }, NOW);
    expect(request).toMatchObject({ accounts: ['a', 'b'], text: 'hi', media: [], scheduledFor: null, draft: false, options: {} });
    expect(request.texts.get('b')).toBe('yo');
    expect(request.workspaceId).toBeNull();
    expect(request.campaignId).toBeNull();
  });

  it('treats only draft === true as a draft', () => {
    expect(parseCreatePostsBody({ ...ok, draft: true }, NOW).draft).toBe(true);
    for (const draft of ['true', 1, null, false, {}]) expect(parseCreatePostsBody({ ...ok, draft }, NOW).draft).toBe(false);
  });

  it('accepts offsets, fractions and the exact horizon', () => {
    expect(parseCreatePostsBody({ ...ok, scheduledFor: '2026-11-21T11:30:00.5+02:00' }, NOW).scheduledFor?.toISOString()).toBe(
      '2026-11-21T09:30:00.500Z',
    );
    expect(parseCreatePostsBody({ ...ok, scheduledFor: '2026-12-21T09:30:00.000Z' }, NOW).scheduledFor?.toISOString()).toBe(
      '2026-12-21T09:30:00.000Z',
    );
    expect(parseCreatePostsBody({ ...ok, scheduledFor: '2026-11-21T09:30Z' }, NOW).scheduledFor?.toISOString()).toBe(NOW.toISOString());
  });

  it('accepts every documented option', () => {
    const request = parseCreatePostsBody({ ...ok, options: { x: { communityId: '123', shareWithFollowers: true }, linkedin: {} } }, NOW);
    expect(request.options).toEqual({ x: { communityId: '123', shareWithFollowers: true }, linkedin: {} });
  });

  it('keeps a texts key named __proto__ as data', () => {
    const body = JSON.parse('{"accounts":["__proto__"],"texts":{"__proto__":"hello"}}') as unknown;
    expect(parseCreatePostsBody(body, NOW).texts.get('__proto__')).toBe('hello');
  });
});

describe('parseZonedDateTime', () => {
  it.each([
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['2026-12-01T10:00:00-05:30', Date.UTC(2026, 11, 1, 15, 30)],
    ['2026-12-01T10:00:00.123456Z', Date.UTC(2026, 11, 1, 10, 0, 0, 123)],
  ])('%s', (value, expected) => {
    expect(parseZonedDateTime(value)).toBe(expected);
  });

  it.each(['2025-02-29T00:00:00Z', '2026-13-01T00:00:00Z', '2026-12-01T10:60:00Z', '2026-12-01T10:00:00+24:00', '2026-12-01 10:00:00Z', ''])(
    'refuses %s',
    (value) => {
      expect(parseZonedDateTime(value)).toBeNull();
    },
  );
});

describe('checkOptionPlatforms', () => {
  it('refuses options for a platform that no resolved account is on', () => {
    expect(() => checkOptionPlatforms({ x: {} }, new Set(['linkedin']))).toThrow(
      expect.objectContaining({ code: 'invalid_option', param: 'options.x' }),
    );
    expect(() => checkOptionPlatforms({ x: {} }, new Set(['x']))).not.toThrow();
  });
});
