/**
 * The native formats' pure rules (lib/domain/format-rules.ts through evaluateTarget) and what a
 * post stores of them (formatFields, storedOptions): the boundaries without a stack, and the bound
 * on work for hostile sizes.
 */
import { describe, expect, it } from 'vitest';
import { checkOptions, type PlatformOptions } from '../../../lib/domain/create-request.js';
import { formatFields, MAX_THREAD_PARTS, storedOptions } from '../../../lib/domain/format-rules.js';
import type { Account, MediaItem, Post } from '../../../lib/domain/model.js';
import { evaluateTarget, type TargetInput } from '../../../lib/domain/target-rules.js';

const account = (platform: 'x' | 'linkedin'): Account => ({
  id: 'acct_1',
  userId: 'usr_1',
  workspaceId: 'ws_1',
  platform,
  name: 'Name',
  handle: 'handle',
  accountType: 'personal',
  active: true,
  tokenHealth: 'healthy',
  connectedAt: '2026-01-01T00:00:00.000Z',
  platformUserId: '42',
});

const item = (contentType: string, id = contentType): MediaItem => ({
  id: `med_${id}`,
  userId: 'usr_1',
  url: `https://media.test/usr_1/${id}`,
  contentType,
  sizeBytes: 10,
  durationSeconds: null,
  objectKey: 'k',
  createdAt: '2026-01-01T00:00:00.000Z',
});

function reason(platform: 'x' | 'linkedin', options: unknown, changes: Partial<TargetInput> = {}): string | null {
  const validated = checkOptions(options);
  const thread = validated.x?.thread;
  const result = evaluateTarget({
    accountId: 'acct_1',
    account: account(platform),
    userId: 'usr_1',
    workspaceId: 'ws_1',
    text: 'hello',
    media: [],
    options: validated,
    threadMedia: thread === undefined || thread.length > MAX_THREAD_PARTS ? null : thread.map(() => []),
    ...changes,
  });
  return result.accepted ? null : result.reason;
}

describe('X', () => {
  it('thread: 1-24 parts, each needs text or media, 280 weighted characters', () => {
    expect(reason('x', { x: { thread: [] } })).toBe('invalid_thread');
    expect(reason('x', { x: { thread: Array.from({ length: 24 }, () => ({ text: 'a' })) } })).toBeNull();
    expect(reason('x', { x: { thread: Array.from({ length: 25 }, () => ({ text: 'a' })) } })).toBe('invalid_thread');
    expect(reason('x', { x: { thread: [{ text: 'a'.repeat(280) }] } })).toBeNull();
    expect(reason('x', { x: { thread: [{ text: 'a'.repeat(281) }] } })).toBe('invalid_thread');
    expect(reason('x', { x: { thread: [{}] } })).toBe('invalid_thread');
    expect(reason('x', { x: { thread: [{}] } }, { threadMedia: [[item('image/png')]] })).toBeNull();
    expect(reason('x', { x: { thread: [{ text: 'a' }] } }, { threadMedia: [[item('application/pdf')]] })).toBe('unsupported_media');
  });

  it('a huge thread is rejected by its count, its parts past the 25th not even looked at', () => {
    const parts: unknown[] = Array.from({ length: 85_000 }, () => ({}));
    parts[50_000] = { text: 42 };
    expect(reason('x', { x: { thread: parts } })).toBe('invalid_thread');
    // Within the first 25 parts, a wrong type is still the request's invalid_option.
    parts[24] = { text: 42 };
    expect(() => checkOptions({ x: { thread: parts } })).toThrow(expect.objectContaining({ code: 'invalid_option', param: 'options.x.thread[24].text' }));
  });

  it('poll: 2-4 choices of 1-25 characters, 5-10,080 whole minutes, no media', () => {
    const poll = (choices: string[], durationMinutes: number) => ({ x: { poll: { choices, durationMinutes } } });
    expect(reason('x', poll(['a', 'b'], 5))).toBeNull();
    expect(reason('x', poll(['a', 'b', 'c', 'd'.repeat(25)], 10_080))).toBeNull();
    expect(reason('x', poll(['a'], 60))).toBe('invalid_poll');
    expect(reason('x', poll(['a', 'b', 'c', 'd', 'e'], 60))).toBe('invalid_poll');
    expect(reason('x', poll(['a', '😀'.repeat(26)], 60))).toBe('invalid_poll');
    expect(reason('x', poll(['a', '😀'.repeat(25)], 60))).toBeNull();
    expect(reason('x', poll(['a', 'b'], 4))).toBe('invalid_poll');
    expect(reason('x', poll(['a', 'b'], 10_081))).toBe('invalid_poll');
    expect(reason('x', poll(['a', 'b'], 60), { media: [item('image/png')] })).toBe('invalid_poll');
  });

  it('firstComment: not empty, 280 weighted, not with a thread', () => {
    expect(reason('x', { x: { firstComment: '日'.repeat(140) } })).toBeNull();
    expect(reason('x', { x: { firstComment: '日'.repeat(141) } })).toBe('invalid_first_comment');
    expect(reason('x', { x: { firstComment: '\n' } })).toBe('invalid_first_comment');
    expect(reason('x', { x: { firstComment: 'a', thread: [{ text: 'b' }] } })).toBe('invalid_first_comment');
  });

  it('a PDF is unsupported_media', () => {
    expect(reason('x', {}, { media: [item('application/pdf')] })).toBe('unsupported_media');
  });
});

describe('LinkedIn', () => {
  it('document: one PDF, nothing else, a title of 1-400 characters', () => {
    const pdf = item('application/pdf');
    expect(reason('linkedin', { linkedin: { documentTitle: 'Deck' } }, { media: [pdf] })).toBeNull();
    expect(reason('linkedin', {}, { media: [pdf] })).toBe('invalid_document');
    expect(reason('linkedin', { linkedin: { documentTitle: 'Deck' } })).toBe('invalid_document');
    expect(reason('linkedin', { linkedin: { documentTitle: 'Deck' } }, { media: [pdf, item('application/pdf', 'two')] })).toBe('invalid_document');
    expect(reason('linkedin', { linkedin: { documentTitle: 'Deck' } }, { media: [pdf, item('image/png')] })).toBe('invalid_document');
    expect(reason('linkedin', { linkedin: { documentTitle: 't'.repeat(401) } }, { media: [pdf] })).toBe('invalid_document');
    // An unsupported file beside it is the media rule's, which comes first.
    expect(reason('linkedin', { linkedin: { documentTitle: 'Deck' } }, { media: [pdf, item('image/webp')] })).toBe('unsupported_media');
  });

  it('poll: question 1-140, 2-4 choices of 1-30, a named duration, no media', () => {
    const poll = (changes: Record<string, unknown>) => ({ linkedin: { poll: { question: 'Q', choices: ['a', 'b'], duration: 'ONE_DAY', ...changes } } });
    expect(reason('linkedin', poll({ question: 'q'.repeat(140), choices: ['a', 'b'.repeat(30)] }))).toBeNull();
    expect(reason('linkedin', poll({ question: 'q'.repeat(141) }))).toBe('invalid_poll');
    expect(reason('linkedin', poll({ choices: ['a', 'b'.repeat(31)] }))).toBe('invalid_poll');
    expect(reason('linkedin', poll({ duration: 'one_day' }))).toBe('invalid_poll');
    expect(reason('linkedin', poll({}), { media: [item('image/png')] })).toBe('invalid_poll');
  });

  it('firstComment: 1-1,250 characters', () => {
    expect(reason('linkedin', { linkedin: { firstComment: 'a'.repeat(1250) } })).toBeNull();
    expect(reason('linkedin', { linkedin: { firstComment: 'a'.repeat(1251) } })).toBe('invalid_first_comment');
  });
});

describe('what a post stores', () => {
  const png = item('image/png');
  it('thread and firstComment leave options for threadParts and firstComment; the format follows', () => {
    const options: PlatformOptions = { x: { thread: [{ text: 'b', media: [png.url] }], communityId: 'c1' } };
    expect(formatFields(options, 'x', [[png]])).toEqual({
      options: { communityId: 'c1' },
      format: 'thread',
      threadParts: [{ text: 'b', mediaUrls: [png.url], mediaIds: [png.id], platformPostId: null, publishedUrl: null }],
      firstComment: null,
    });
    expect(formatFields({ x: { poll: { choices: ['a', 'b'], durationMinutes: 5 }, firstComment: 'c' } }, 'x', null)).toMatchObject({
      options: { poll: { choices: ['a', 'b'], durationMinutes: 5 } },
      format: 'poll',
      firstComment: { text: 'c', status: 'pending', platformCommentId: null, error: null },
    });
    expect(formatFields({ linkedin: { documentTitle: 'Deck' } }, 'linkedin', null).format).toBe('document');
    expect(formatFields({ x: { firstComment: 'c' } }, 'linkedin', null)).toEqual({ options: {}, format: 'text', threadParts: [], firstComment: null });
  });

  it('storedOptions gives back what the request said', () => {
    const fields = formatFields({ x: { thread: [{ text: 'b', media: [png.url] }], shareWithFollowers: true } }, 'x', [[png]]);
    expect(storedOptions({ platform: 'x', ...fields } as Post)).toEqual({ x: { shareWithFollowers: true, thread: [{ text: 'b', media: [png.url] }] } });
  });
});
