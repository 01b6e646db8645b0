/**
 * The sandbox platforms' record survives a crash (issue 10): run as their own process with a
 * journal, a post the sandbox answered for is still on record after a kill -9 of that process
 * the very next instant, deletions are kept, and GET /sandbox/record shows it all read-only.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueSandboxTokens } from '../../lib/domain/sandbox-tokens.js';
import { PostJournal } from '../../local/sandbox/record.js';
import { LINKEDIN_API_VERSION } from '../../lib/platforms/linkedin-version.js';
import { REPO_ROOT } from '../../local/lambda-runtime.js';
import { startSandboxProcess, type SandboxProcess } from '../../local/sandbox/process.js';

interface RecordBody {
  x: { accounts: Record<string, { live: { id: string; text: string; inReplyTo: string | null }[]; deleted: { id: string; text: string; deletedAt: string }[] }> };
  linkedin: { accounts: Record<string, { live: { id: string; text: string }[]; deleted: { id: string }[] }> };
}

let dir: string;
const running: SandboxProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbox-record-'));
});

afterAll(async () => {
  for (const child of running) await child.stop();
  await rm(dir, { recursive: true, force: true });
});

async function start(): Promise<SandboxProcess> {
  const child = await startSandboxProcess({ journalDir: join(dir, 'journal') });
  running.push(child);
  return child;
}

async function record(origin: string, accountId?: string): Promise<RecordBody> {
  const response = await fetch(`${origin}/sandbox/record${accountId ? `?accountId=${accountId}` : ''}`);
  expect(response.status).toBe(200);
  return (await response.json()) as RecordBody;
}

function killed(child: SandboxProcess): Promise<void> {
  process.kill(child.pid, 'SIGKILL');
  return child.stop();
}

describe('sandbox record', () => {
  it('keeps what each platform answered for across a kill -9 of the sandbox process, deletions included', { timeout: 60_000 }, async () => {
    const xAccount = 'acct_recordX';
    const linkedinAccount = 'acct_recordLi';
    const xToken = issueSandboxTokens(xAccount, 'x', new Date()).accessToken;
    const linkedinToken = issueSandboxTokens(linkedinAccount, 'linkedin', new Date()).accessToken;

    const first = await start();
    const xPosts: string[] = [];
    for (const text of ['first on record', 'second on record']) {
      const created = await fetch(`${first.xBaseUrl}/2/tweets`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${xToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text }),
      });
      expect(created.status).toBe(201);
      xPosts.push(((await created.json()) as { data: { id: string } }).data.id);
    }
    // A reply (a thread's part 2): the record names the post it answers.
    const reply = await fetch(`${first.xBaseUrl}/2/tweets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${xToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'a reply on record', reply: { in_reply_to_tweet_id: xPosts[1] } }),
    });
    expect(reply.status).toBe(201);
    const replyId = ((await reply.json()) as { data: { id: string } }).data.id;
    const linkedinCreated = await fetch(`${first.linkedinBaseUrl}/rest/posts`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${linkedinToken}`,
        'Content-Type': 'application/json',
        'LinkedIn-Version': LINKEDIN_API_VERSION,
        'X-Restli-Protocol-Version': '2.0.0',
      },
      body: JSON.stringify({
        author: 'urn:li:person:recordTest',
        commentary: 'on LinkedIn, on record',
        visibility: 'PUBLIC',
        distribution: { feedDistribution: 'MAIN_FEED' },
        lifecycleState: 'PUBLISHED',
      }),
    });
    expect(linkedinCreated.status).toBe(201);
    const urn = linkedinCreated.headers.get('x-restli-id') ?? '';
    const deleted = await fetch(`${first.xBaseUrl}/2/tweets/${xPosts[0]}`, { method: 'DELETE', headers: { Authorization: `Bearer ${xToken}` } });
    expect(deleted.status).toBe(200);
    // Killed the instant the last answer arrived: nothing gets a chance to flush anything.
    await killed(first);

    const second = await start();
    const after = await record(second.origin);
    expect(after.x.accounts[xAccount]?.live.map((post) => [post.id, post.text, post.inReplyTo])).toEqual([
      [xPosts[1], 'second on record', null],
      [replyId, 'a reply on record', xPosts[1]],
    ]);
    expect(after.x.accounts[xAccount]?.deleted.map((post) => [post.id, post.text])).toEqual([[xPosts[0], 'first on record']]);
    expect(after.linkedin.accounts[linkedinAccount]?.live.map((post) => [post.id, post.text])).toEqual([[urn, 'on LinkedIn, on record']]);
    // Filtered to one account, and X's duplicate check still knows the live post after the restart.
    expect(Object.keys((await record(second.origin, linkedinAccount)).x.accounts)).toEqual([]);
    const again = await fetch(`${second.xBaseUrl}/2/tweets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${xToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'second on record' }),
    });
    expect(again.status).toBe(403);

    // Read-only: nothing but GET and HEAD.
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const refused = await fetch(`${second.origin}/sandbox/record`, { method });
      expect(refused.status).toBe(405);
      expect(refused.headers.get('allow')).toBe('GET, HEAD');
    }
    await second.stop();
  });

  it('skips a line torn by a kill during its write, and appends after it on a line of its own', () => {
    const journalDir = join(dir, 'torn');
    const journal = PostJournal.open(journalDir, 'x');
    const post = { id: '1', accountId: 'acct_a', text: 'kept', mediaIds: [], createdAt: new Date(), deletedAt: null, details: {} };
    journal.created(post);
    journal.close();
    appendFileSync(join(journalDir, 'x.jsonl'), '{"op":"create","post":{"id":"2","accou');

    const reopened = PostJournal.open(journalDir, 'x');
    expect(reopened.posts().map((kept) => kept.id)).toEqual(['1']);
    reopened.deleted({ ...post, deletedAt: new Date() });
    reopened.close();
    const lines = readFileSync(join(journalDir, 'x.jsonl'), 'utf8').split('\n');
    expect(lines.at(-1)).toBe('');
    expect(JSON.parse(lines.at(-2) ?? '')).toMatchObject({ op: 'delete', id: '1' });
    expect(PostJournal.open(journalDir, 'x').posts()).toMatchObject([{ id: '1', deletedAt: expect.any(Date) }]);
  });

  it('without a journal directory (the bench\'s) holds its posts in memory only: the record shows them, nothing is written, a restart starts empty', { timeout: 60_000 }, async () => {
    const account = 'acct_memoryOnly';
    const token = issueSandboxTokens(account, 'x', new Date()).accessToken;
    const first = await startSandboxProcess({ journalDir: null });
    running.push(first);
    const created = await fetch(`${first.xBaseUrl}/2/tweets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'held in memory' }),
    });
    expect(created.status).toBe(201);
    expect((await record(first.origin)).x.accounts[account]?.live.map((post) => post.text)).toEqual(['held in memory']);
    // `-` is no folder: nothing appears under the process's working directory (the repository root).
    expect(existsSync(join(REPO_ROOT, '-'))).toBe(false);
    await killed(first);
    const second = await startSandboxProcess({ journalDir: null });
    running.push(second);
    expect((await record(second.origin)).x.accounts[account]).toBeUndefined();
  });
});
