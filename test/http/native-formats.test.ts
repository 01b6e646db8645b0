/**
 * Native formats through HTTP (beyond-v1.md "Native formats", docs/native-formats.md): the options'
 * JSON types (400 invalid_option naming the key), each per-target rule at its boundaries, the post a
 * thread, poll, document or first comment makes (GET), PATCH making them again, and preview giving
 * the same verdicts as a create. Drafts only: publishing them is the X and LinkedIn work's. Every
 * response is checked against openapi.yaml (documentedApi).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedApi } from '../support/openapi.js';
import { startPostsStack } from '../support/posts.js';
import { addMedia, provisionUser, type ProvisionedUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';
import { pdf } from '../support/pdf.js';

interface PostResult {
  id: string | null;
  status: 'accepted' | 'rejected' | 'failed';
  reason: string | null;
  message: string | null;
}
interface ErrorBody {
  error: { code: string; message: string; param: string | null };
  posts?: PostResult[];
}
interface PostView {
  status: string;
  format: string;
  threadParts: { platformPostId: string | null; publishedUrl: string | null }[];
  firstComment: { status: string; platformCommentId: string | null; error: unknown } | null;
  mediaUrls: string[];
}

let stack: TestStack;
let user: ProvisionedUser;
let x = '';
let linkedin = '';
const media: Record<'png' | 'pdf' | 'pdf2' | 'webp', string> = { png: '', pdf: '', pdf2: '', webp: '' };

beforeAll(async () => {
  stack = await startPostsStack();
  user = await provisionUser({ accounts: [{ platform: 'x' }, { platform: 'linkedin' }] });
  x = user.accounts[0]?.id ?? '';
  linkedin = user.accounts[1]?.id ?? '';
  // PDFs added to the library as the admin CLI adds them (real, if tiny, PDFs: the library checks).
  media.png = (await addMedia(user.userId, { fileName: 'photo.png' })).url;
  media.webp = (await addMedia(user.userId, { fileName: 'photo.webp' })).url;
  media.pdf = (await addMedia(user.userId, { fileName: 'deck.pdf', contentType: 'application/pdf', body: pdf(3) })).url;
  media.pdf2 = (await addMedia(user.userId, { fileName: 'other.pdf', contentType: 'application/pdf', body: pdf(1) })).url;
});

afterAll(async () => {
  await stack?.stop();
});

const client = () => documentedApi(stack.baseUrl, user.apiKey);

/** Each target's reason (null: accepted) as a create would decide it, through preview (writes nothing). */
async function reasons(body: Record<string, unknown>): Promise<(string | null)[]> {
  const response = await client().post<{ posts: PostResult[] } & Partial<ErrorBody>>('/posts/preview', { text: 'hello', ...body });
  if (response.status === 200) return response.body.posts.map((result) => result.reason);
  expect(response.status).toBe(400);
  expect(response.body.posts, `request-level refusal: ${JSON.stringify(response.body.error)}`).toBeDefined();
  return (response.body.posts ?? []).map((result) => result.reason);
}

const onX = (options: Record<string, unknown>, extra: Record<string, unknown> = {}) => reasons({ accounts: [x], options: { x: options }, ...extra });
const onLinkedIn = (options: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  reasons({ accounts: [linkedin], options: { linkedin: options }, ...extra });

async function refusal(path: string, body: unknown, method = 'POST'): Promise<{ status: number; code: string; param: string | null; message: string }> {
  const response = await client().request<ErrorBody>(method, path, { body });
  return { status: response.status, ...response.body.error };
}

const choices = (count: number, length = 3) => Array.from({ length: count }, (_, index) => `${index}`.padEnd(length, 'c'));

describe('options of the wrong JSON type: 400 for the whole request, naming the key', () => {
  it.each([
    [{ x: { thread: 'one part' } }, 'invalid_option', 'options.x.thread'],
    [{ x: { thread: [{ text: 5 }] } }, 'invalid_option', 'options.x.thread[0].text'],
    [{ x: { thread: [{ text: 'a' }, { text: 'b', link: 'c' }] } }, 'invalid_option', 'options.x.thread[1].link'],
    [{ x: { thread: [null] } }, 'invalid_option', 'options.x.thread[0]'],
    [{ x: { poll: { choices: ['a', 'b'], durationMinutes: '60' } } }, 'invalid_option', 'options.x.poll.durationMinutes'],
    [{ x: { poll: { choices: ['a', 'b'] } } }, 'invalid_option', 'options.x.poll.durationMinutes'],
    [{ x: { poll: { choices: ['a', 2], durationMinutes: 60 } } }, 'invalid_option', 'options.x.poll.choices[1]'],
    [{ x: { firstComment: null } }, 'invalid_option', 'options.x.firstComment'],
    [{ x: { documentTitle: 'Deck' } }, 'invalid_option', 'options.x.documentTitle'],
    [{ linkedin: { poll: { choices: ['a', 'b'], duration: 'ONE_DAY' } } }, 'invalid_option', 'options.linkedin.poll.question'],
    [{ linkedin: { poll: { question: 'q', choices: 'a,b', duration: 'ONE_DAY' } } }, 'invalid_option', 'options.linkedin.poll.choices'],
    [{ linkedin: { documentTitle: 400 } }, 'invalid_option', 'options.linkedin.documentTitle'],
    [{ linkedin: { thread: [] } }, 'invalid_option', 'options.linkedin.thread'],
    [{ x: { thread: [{ media: 'https://example.com/a.png' }] } }, 'invalid_media', 'options.x.thread[0].media'],
    [{ x: { thread: [{ media: [7] }] } }, 'invalid_media', 'options.x.thread[0].media[0]'],
    [{ x: { thread: [{ media: Array.from({ length: 21 }, () => 'https://example.com/a.png') }] } }, 'invalid_media', 'options.x.thread[0].media'],
  ])('%j → %s %s', async (options, code, param) => {
    for (const path of ['/posts', '/posts/preview']) {
      const failure = await refusal(path, { accounts: [x, linkedin], text: 'a', draft: true, options });
      expect(failure).toMatchObject({ status: 400, code, param });
    }
  });

  it('a thread part\'s media must be the caller\'s library files (media_not_hosted names the part)', async () => {
    const failure = await refusal('/posts', { accounts: [x], text: 'a', draft: true, options: { x: { thread: [{ text: 'b' }, { media: ['https://example.com/a.png'] }] } } });
    expect(failure).toMatchObject({ status: 400, code: 'media_not_hosted', param: 'options.x.thread[1].media' });
  });

  it('options for a platform with no account in the request', async () => {
    const failure = await refusal('/posts', { accounts: [linkedin], text: 'a', draft: true, options: { x: { firstComment: 'hi' } } });
    expect(failure).toMatchObject({ status: 400, code: 'invalid_option', param: 'options.x' });
  });
});

describe('X thread: invalid_thread', () => {
  it('1 to 24 further parts', async () => {
    expect(await onX({ thread: [] })).toEqual(['invalid_thread']);
    expect(await onX({ thread: Array.from({ length: 24 }, (_, index) => ({ text: `part ${index}` })) })).toEqual([null]);
    expect(await onX({ thread: Array.from({ length: 25 }, (_, index) => ({ text: `part ${index}` })) })).toEqual(['invalid_thread']);
  });

  it('each part 280 weighted characters at most, text or media, media by X\'s rules', async () => {
    expect(await onX({ thread: [{ text: 'a'.repeat(280) }, { text: '日'.repeat(140) }] })).toEqual([null]);
    expect(await onX({ thread: [{ text: 'ok' }, { text: 'a'.repeat(281) }] })).toEqual(['invalid_thread']);
    expect(await onX({ thread: [{ text: '日'.repeat(141) }] })).toEqual(['invalid_thread']);
    expect(await onX({ thread: [{ text: '   ' }] })).toEqual(['invalid_thread']);
    expect(await onX({ thread: [{ media: [media.png] }] })).toEqual([null]);
    expect(await onX({ thread: [{ text: 'a', media: [media.pdf] }] })).toEqual(['unsupported_media']);
    expect(await onX({ thread: [{ text: 'a', media: [media.png, media.png, media.png, media.png, media.png] }] })).toEqual(['unsupported_media']);
  });

  it('the message names the part', async () => {
    const response = await client().post<{ posts: PostResult[] }>('/posts/preview', {
      accounts: [x, linkedin],
      text: 'hello',
      options: { x: { thread: [{ text: 'fine' }, { text: 'a'.repeat(300) }] } },
    });
    expect(response.body.posts.map((result) => result.reason)).toEqual(['invalid_thread', null]);
    expect(response.body.posts[0]?.message).toContain('options.x.thread[1] (part 3 of the thread)');
  });
});

describe('polls: invalid_poll', () => {
  it('X: 2-4 choices of 1-25 characters, 5 to 10,080 minutes, no media', async () => {
    const poll = (overrides: Record<string, unknown>) => onX({ poll: { choices: choices(2), durationMinutes: 60, ...overrides } });
    expect(await poll({ choices: choices(4, 25), durationMinutes: 5 })).toEqual([null]);
    expect(await poll({ durationMinutes: 10_080 })).toEqual([null]);
    expect(await poll({ choices: choices(1) })).toEqual(['invalid_poll']);
    expect(await poll({ choices: choices(5) })).toEqual(['invalid_poll']);
    expect(await poll({ choices: ['a', 'b'.repeat(26)] })).toEqual(['invalid_poll']);
    expect(await poll({ choices: ['a', ''] })).toEqual(['invalid_poll']);
    expect(await poll({ durationMinutes: 4 })).toEqual(['invalid_poll']);
    expect(await poll({ durationMinutes: 10_081 })).toEqual(['invalid_poll']);
    expect(await poll({ durationMinutes: 60.5 })).toEqual(['invalid_poll']);
    expect(await onX({ poll: { choices: choices(2), durationMinutes: 60 } }, { media: [media.png] })).toEqual(['invalid_poll']);
    // A thread's further parts may carry media beside a poll on the first.
    expect(await onX({ poll: { choices: choices(2), durationMinutes: 60 }, thread: [{ media: [media.png] }] })).toEqual([null]);
  });

  it('LinkedIn: question 1-140, 2-4 choices of 1-30 characters, a named duration, no media', async () => {
    const poll = (overrides: Record<string, unknown>) => onLinkedIn({ poll: { question: 'Which?', choices: choices(2), duration: 'ONE_DAY', ...overrides } });
    expect(await poll({ question: 'q'.repeat(140), choices: choices(4, 30), duration: 'FOURTEEN_DAYS' })).toEqual([null]);
    expect(await poll({ question: 'q'.repeat(141) })).toEqual(['invalid_poll']);
    expect(await poll({ question: '' })).toEqual(['invalid_poll']);
    expect(await poll({ choices: ['a', 'b'.repeat(31)] })).toEqual(['invalid_poll']);
    expect(await poll({ choices: choices(5) })).toEqual(['invalid_poll']);
    expect(await poll({ duration: 'TWO_DAYS' })).toEqual(['invalid_poll']);
    expect(await onLinkedIn({ poll: { question: 'q', choices: choices(2), duration: 'ONE_DAY' } }, { media: [media.png] })).toEqual(['invalid_poll']);
  });
});

describe('LinkedIn documents: invalid_document', () => {
  it('exactly one PDF with a title of 1-400 characters', async () => {
    expect(await onLinkedIn({ documentTitle: 't'.repeat(400) }, { media: [media.pdf] })).toEqual([null]);
    expect(await reasons({ accounts: [linkedin], media: [media.pdf] })).toEqual(['invalid_document']);
    expect(await onLinkedIn({ documentTitle: 'Deck' })).toEqual(['invalid_document']);
    expect(await onLinkedIn({ documentTitle: 'Deck' }, { media: [media.png] })).toEqual(['invalid_document']);
    expect(await onLinkedIn({ documentTitle: 'Deck' }, { media: [media.pdf, media.pdf2] })).toEqual(['invalid_document']);
    expect(await onLinkedIn({ documentTitle: 'Deck' }, { media: [media.pdf, media.png] })).toEqual(['invalid_document']);
    expect(await onLinkedIn({ documentTitle: 't'.repeat(401) }, { media: [media.pdf] })).toEqual(['invalid_document']);
    expect(await onLinkedIn({ documentTitle: '' }, { media: [media.pdf] })).toEqual(['invalid_document']);
  });

  it('an X target given a PDF is unsupported_media', async () => {
    expect(await reasons({ accounts: [x, linkedin], media: [media.pdf], options: { linkedin: { documentTitle: 'Deck' } } })).toEqual([
      'unsupported_media',
      null,
    ]);
  });
});

describe('first comments: invalid_first_comment', () => {
  it('non-empty, X 280 weighted characters, LinkedIn 1,250, not with a thread', async () => {
    expect(await onX({ firstComment: 'a'.repeat(280) })).toEqual([null]);
    expect(await onX({ firstComment: 'a'.repeat(281) })).toEqual(['invalid_first_comment']);
    expect(await onX({ firstComment: ' ' })).toEqual(['invalid_first_comment']);
    expect(await onX({ firstComment: 'link', thread: [{ text: 'b' }] })).toEqual(['invalid_first_comment']);
    expect(await onLinkedIn({ firstComment: 'a'.repeat(1250) })).toEqual([null]);
    expect(await onLinkedIn({ firstComment: 'a'.repeat(1251) })).toEqual(['invalid_first_comment']);
    expect(await onLinkedIn({ firstComment: '' })).toEqual(['invalid_first_comment']);
  });
});

describe('the posts they make', () => {
  async function create(body: Record<string, unknown>): Promise<string[]> {
    const response = await client().post<{ posts: PostResult[] }>('/posts', { text: 'hello', draft: true, ...body });
    expect(response.status).toBe(202);
    return response.body.posts.map((result) => result.id ?? '');
  }
  const get = async (id: string) => (await client().get<PostView>(`/posts/${id}`)).body;

  it('a thread, a poll, a document and a first comment, as GET shows them', async () => {
    const [threadId, linkedinId] = await create({
      accounts: [x, linkedin],
      options: { x: { thread: [{ text: 'two', media: [media.png] }, { text: 'three' }] }, linkedin: { firstComment: 'Link: https://example.com' } },
    });
    expect(await get(threadId ?? '')).toMatchObject({
      format: 'thread',
      threadParts: [
        { platformPostId: null, publishedUrl: null },
        { platformPostId: null, publishedUrl: null },
      ],
      firstComment: null,
    });
    expect(await get(linkedinId ?? '')).toMatchObject({
      format: 'text',
      threadParts: [],
      firstComment: { status: 'pending', platformCommentId: null, error: null },
    });
    const [xPoll, linkedinPoll] = await create({
      accounts: [x, linkedin],
      options: { x: { poll: { choices: ['yes', 'no'], durationMinutes: 60 }, firstComment: 'why' }, linkedin: { poll: { question: 'Q?', choices: ['a', 'b'], duration: 'THREE_DAYS' } } },
    });
    expect(await get(xPoll ?? '')).toMatchObject({ format: 'poll', threadParts: [], firstComment: { status: 'pending' } });
    expect(await get(linkedinPoll ?? '')).toMatchObject({ format: 'poll', firstComment: null });
    const [document] = await create({ accounts: [linkedin], media: [media.pdf], options: { linkedin: { documentTitle: 'Deck' } } });
    expect(await get(document ?? '')).toMatchObject({ format: 'document', mediaUrls: [media.pdf] });
  });

  it('PATCH with options makes the format again; PATCH without them is judged by the stored ones', async () => {
    const [id] = await create({ accounts: [x], options: { x: { thread: [{ text: 'two' }] } } });
    const path = `/posts/${id ?? ''}`;
    const poll = await client().request<PostView>('PATCH', path, { body: { options: { x: { poll: { choices: ['a', 'b'], durationMinutes: 30 }, firstComment: 'c' } } } });
    expect(poll.status).toBe(200);
    expect(poll.body).toMatchObject({ format: 'poll', threadParts: [], firstComment: { status: 'pending' } });
    // Media beside the stored poll breaks the poll rule.
    expect(await refusal(path, { media: [media.png] }, 'PATCH')).toMatchObject({ status: 400, code: 'invalid_poll', param: 'options.x.poll' });
    expect(await refusal(path, { options: { x: { thread: [{ text: 'a'.repeat(281) }] } } }, 'PATCH')).toMatchObject({ status: 400, code: 'invalid_thread' });
    expect(await refusal(path, { options: { x: { thread: [{ media: ['https://example.com/a.png'] }] } } }, 'PATCH')).toMatchObject({
      status: 400,
      code: 'media_not_hosted',
      param: 'options.x.thread[0].media',
    });
    expect(await refusal(path, { options: { x: { thread: 'no' } } }, 'PATCH')).toMatchObject({ status: 400, code: 'invalid_option', param: 'options.x.thread' });
    const thread = await client().request<PostView>('PATCH', path, { body: { options: { x: { thread: [{ text: 'b', media: [media.png] }, { text: 'c' }] } } } });
    expect(thread.body).toMatchObject({ format: 'thread', firstComment: null });
    expect(thread.body.threadParts).toHaveLength(2);
    const text = await client().request<PostView>('PATCH', path, { body: { text: 'new first part' } });
    expect(text.body).toMatchObject({ format: 'thread' });
    expect(text.body.threadParts).toHaveLength(2);
    const plain = await client().request<PostView>('PATCH', path, { body: { options: { x: {} } } });
    expect(plain.body).toMatchObject({ format: 'text', threadParts: [], firstComment: null });
  });

  it('preview answers what a create answers', async () => {
    const body = { accounts: [x, linkedin], text: 'hi', draft: true, options: { x: { poll: { choices: ['a'], durationMinutes: 60 } }, linkedin: { firstComment: 'c' } } };
    const preview = await client().post<{ posts: PostResult[] }>('/posts/preview', body);
    const created = await client().post<{ posts: PostResult[] }>('/posts', body);
    const verdicts = (posts: PostResult[]) => posts.map((result) => [result.reason, result.message]);
    expect(verdicts(preview.body.posts)).toEqual(verdicts(created.body.posts));
    expect(verdicts(preview.body.posts).map(([reason]) => reason)).toEqual(['invalid_poll', null]);
  });
});
