import { describe, expect, it } from 'vitest';
import type { Account, MediaItem } from '../../../lib/domain/model.js';
import { evaluateTarget, type TargetInput } from '../../../lib/domain/target-rules.js';

const account = (changes: Partial<Account> = {}): Account => ({
  id: 'acct_1',
  userId: 'usr_1',
  workspaceId: 'ws_1',
  platform: 'x',
  name: 'Name',
  handle: 'handle',
  accountType: 'personal',
  active: true,
  tokenHealth: 'healthy',
  connectedAt: '2026-01-01T00:00:00.000Z',
  platformUserId: '42',
  ...changes,
});

const media = (contentType: string, durationSeconds: number | null = null): MediaItem => ({
  id: `med_${contentType}`,
  userId: 'usr_1',
  url: `https://media.test/usr_1/med/${contentType}`,
  contentType,
  sizeBytes: 10,
  durationSeconds,
  objectKey: 'k',
  createdAt: '2026-01-01T00:00:00.000Z',
});

function verdict(changes: Partial<TargetInput> = {}) {
  return evaluateTarget({ accountId: 'acct_1', account: account(), userId: 'usr_1', workspaceId: 'ws_1', text: 'hello', media: [], ...changes });
}

function reason(changes: Partial<TargetInput> = {}): string | null {
  const result = verdict(changes);
  return result.accepted ? null : result.reason;
}

describe('evaluateTarget', () => {
  it('accepts a healthy account with text', () => {
    expect(verdict()).toMatchObject({ accepted: true, platform: 'x', accountId: 'acct_1' });
    expect(reason({ account: account({ tokenHealth: 'expiring' }) })).toBeNull();
  });

  it.each([
    ['unknown id', { account: undefined }],
    ["another user's account", { account: account({ userId: 'usr_2' }) }],
    ["another workspace's account", { account: account({ workspaceId: 'ws_2' }) }],
    ['a disconnected account', { account: account({ active: false }) }],
    ['a caller without workspace', { workspaceId: null }],
  ])('account_unresolved for %s, with platform null and the id echoed', (_name, changes) => {
    const result = verdict(changes as Partial<TargetInput>);
    expect(result).toMatchObject({ accepted: false, reason: 'account_unresolved', platform: null, accountId: 'acct_1' });
  });

  it('platform_not_available names the platform', () => {
    expect(verdict({ account: account({ platform: 'instagram' }) })).toMatchObject({
      accepted: false,
      reason: 'platform_not_available',
      platform: 'instagram',
    });
  });

  it('maps token health', () => {
    expect(reason({ account: account({ tokenHealth: 'needs_reauth' }) })).toBe('token_invalid');
    expect(reason({ account: account({ tokenHealth: 'refresh_failed' }) })).toBe('token_refresh_failed');
  });

  it('text_empty unless media is attached (whitespace is no text)', () => {
    expect(reason({ text: '' })).toBe('text_empty');
    expect(reason({ text: ' \n\t' })).toBe('text_empty');
    expect(reason({ text: '', media: [media('image/png')] })).toBeNull();
  });

  it('counts X text the way twitter-text does (weighted, NFC)', () => {
    expect(reason({ text: 'a'.repeat(280) })).toBeNull();
    expect(reason({ text: 'a'.repeat(281) })).toBe('text_too_long');
    expect(reason({ text: '日'.repeat(140) })).toBeNull();
    expect(reason({ text: '日'.repeat(141) })).toBe('text_too_long');
    // A URL counts 23 whatever its length.
    expect(reason({ text: `${'a'.repeat(256)} https://example.com/${'p'.repeat(200)}` })).toBeNull();
    // e + combining accent is one character after NFC.
    expect(reason({ text: 'e\u0301'.repeat(280) })).toBeNull();
  });

  it('counts LinkedIn text in UTF-16 code units, limit 3000', () => {
    const linkedin = { account: account({ platform: 'linkedin' }) };
    expect(reason({ ...linkedin, text: 'a'.repeat(3000) })).toBeNull();
    expect(reason({ ...linkedin, text: 'a'.repeat(3001) })).toBe('text_too_long');
    // 1500 emoji outside the BMP are 3000 units: at the limit; one more is over.
    expect(reason({ ...linkedin, text: '😀'.repeat(1500) })).toBeNull();
    expect(reason({ ...linkedin, text: `${'😀'.repeat(1500)}a` })).toBe('text_too_long');
  });

  it('media rules per platform', () => {
    const linkedin = { account: account({ platform: 'linkedin' }) };
    expect(reason({ media: Array.from({ length: 4 }, () => media('image/jpeg')) })).toBeNull();
    expect(reason({ media: Array.from({ length: 5 }, () => media('image/jpeg')) })).toBe('unsupported_media');
    expect(reason({ ...linkedin, media: Array.from({ length: 20 }, () => media('image/png')) })).toBeNull();
    expect(reason({ ...linkedin, media: Array.from({ length: 21 }, () => media('image/png')) })).toBe('unsupported_media');
    expect(reason({ media: [media('image/webp')] })).toBeNull();
    expect(reason({ ...linkedin, media: [media('image/webp')] })).toBe('unsupported_media');
    expect(reason({ media: [media('image/heic')] })).toBe('unsupported_media');
    expect(reason({ media: [media('video/mp4', 10), media('image/png')] })).toBe('unsupported_media');
    expect(reason({ media: [media('video/mp4', 10), media('video/mp4', 10)] })).toBe('unsupported_media');
    expect(reason({ media: [media('video/quicktime', 10)] })).toBe('unsupported_media');
  });

  it('video_too_long at 140 s on X and 30 min on LinkedIn', () => {
    const linkedin = { account: account({ platform: 'linkedin' }) };
    expect(reason({ media: [media('video/mp4', 140)] })).toBeNull();
    expect(reason({ media: [media('video/mp4', 140.5)] })).toBe('video_too_long');
    expect(reason({ ...linkedin, media: [media('video/mp4', 1800)] })).toBeNull();
    expect(reason({ ...linkedin, media: [media('video/mp4', 1801)] })).toBe('video_too_long');
  });

  it('checks connection before text and text before media', () => {
    expect(reason({ account: account({ tokenHealth: 'needs_reauth' }), text: '' })).toBe('token_invalid');
    expect(reason({ text: 'a'.repeat(300), media: [media('image/heic')] })).toBe('text_too_long');
  });
});
