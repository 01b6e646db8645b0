/**
 * A restart of the local stack with posts scheduled: none lost, none sent twice. The stack is
 * stopped while its posts' messages wait in the publish queue, the queues are created anew (what
 * fauxqs, which keeps messages in memory, does on a restart: they are gone), and the stack starts
 * again on the same tables. The sweeper alone must bring every post back (and every platform
 * deletion whose message went down with the queues). The sandbox platforms
 * stand for X and LinkedIn, which do not restart with us, so their record of created posts spans
 * both runs.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { dynamoDbClientFor, deleteTables } from '../../local/dynamodb-local.js';
import { deleteQueues } from '../../local/messaging.js';
import { SANDBOX_CLIENT_ENV, startSandboxPlatforms, type SandboxPlatforms } from '../../local/sandbox/index.js';
import { startStackServices, type RunningStack } from '../../local/stack.js';
import { ENV } from '../../lib/config.js';
import { api } from '../support/http.js';
import { GENEROUS_LIMITS } from '../support/posts.js';
import { provisionUser, type ProvisionedUser } from '../support/provision.js';

interface PostView {
  id: string;
  accountId: string;
  status: string;
  scheduledFor: string;
  publishedAt: string | null;
  platformPostId: string | null;
}

const endpoints = inject('localAws');
const prefix = `r${randomBytes(4).toString('hex')}-`;
let dataDir: string;
let sandbox: SandboxPlatforms;
let running: RunningStack | undefined;
let lastQueues: RunningStack['queues'] | undefined;
let lastTables: RunningStack['tables'] | undefined;

async function start(consumers: true | readonly string[] = true): Promise<RunningStack> {
  running = await startStackServices({
    endpoints,
    dataDir,
    prefix,
    port: 0,
    consumers,
    sweeper: true,
    sandbox: false,
    sweeperIntervalMs: 1000,
    env: {
      ...GENEROUS_LIMITS,
      ...SANDBOX_CLIENT_ENV,
      [ENV.xApiBaseUrl]: sandbox.xBaseUrl,
      [ENV.linkedinApiBaseUrl]: sandbox.linkedinBaseUrl,
      [ENV.sweeperGraceSeconds]: '3',
    },
  });
  lastQueues = running.queues;
  lastTables = running.tables;
  return running;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'social-api-restart-'));
  sandbox = await startSandboxPlatforms({ port: 0, accountBehaviour: async () => 'ok' });
});

afterAll(async () => {
  await running?.stop();
  if (lastTables) {
    const dynamo = dynamoDbClientFor(endpoints.dynamodbEndpoint, { retries: 'standard' });
    try {
      await deleteTables(dynamo, lastTables);
    } finally {
      dynamo.destroy();
    }
  }
  if (lastQueues) await deleteQueues(endpoints.sqsEndpoint, lastQueues);
  await sandbox?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it('posts scheduled across a restart that empties the queues: every one goes out, once', async () => {
  const first = await start();
  const user: ProvisionedUser = await provisionUser({ accounts: [{ platform: 'x', handle: '@restart' }, { platform: 'linkedin' }] });
  const client = (stack: RunningStack) => api(stack.baseUrl, user.apiKey);

  const created: { id: string; accountId: string; platform: 'x' | 'linkedin' }[] = [];
  let earliestDue = Number.POSITIVE_INFINITY;
  for (const [index, entry] of user.accounts.entries()) {
    // Far enough ahead that the stack is down before any post is due even on a loaded CI machine:
    // a post claimed by a worker that is then stopped waits out the claim's lease by design.
    for (const seconds of [12, 14]) {
      const response = await client(first).post<{ posts: { id: string; status: string }[] }>('/posts', {
        accounts: [entry.id],
        text: `Across the restart ${index}-${seconds} ${randomBytes(3).toString('hex')}`,
        scheduledFor: new Date(Date.now() + seconds * 1000).toISOString(),
      });
      earliestDue = Math.min(earliestDue, Date.now() + seconds * 1000 - 3000); // a worker may claim up to 2 s early
      expect(response.status).toBe(202);
      created.push({ id: response.body.posts[0]?.id as string, accountId: entry.id, platform: entry.platform as 'x' | 'linkedin' });
    }
  }

  // Down before any of them is due; the queues come back empty, as fauxqs does after a restart.
  await first.stop();
  if (Date.now() >= earliestDue) throw new Error('test premise broken: the stack went down after a post was due');
  await deleteQueues(endpoints.sqsEndpoint, first.queues);
  // The queue's creation time (whole seconds) is how the sweeper tells that the queue is new.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const second = await start();

  const outcomes: PostView[] = [];
  for (const post of created) {
    const deadline = Date.now() + 45_000;
    for (;;) {
      const response = await client(second).get<PostView>(`/posts/${post.id}`);
      expect(response.status).toBe(200);
      if (response.body.status !== 'scheduled') {
        outcomes.push(response.body);
        break;
      }
      if (Date.now() > deadline) throw new Error(`post ${post.id} was lost across the restart`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  expect(outcomes.map((post) => post.status)).toEqual(created.map(() => 'published'));
  for (const entry of user.accounts) {
    const platform = entry.platform === 'x' ? sandbox.x : sandbox.linkedin;
    const mine = created.filter((post) => post.accountId === entry.id);
    expect(platform.createCount(entry.id)).toBe(mine.length);
    expect(platform.createAttemptCount(entry.id)).toBe(mine.length);
    expect(platform.listPosts(entry.id).map((live) => live.id).sort()).toEqual(
      outcomes.filter((post) => post.accountId === entry.id).map((post) => post.platformPostId).sort(),
    );
  }
  // Not asserted (no timing assertions): how late the posts went out after the restart.
  console.info(
    'restart: lateness (ms)',
    outcomes.map((post) => Date.parse(post.publishedAt ?? '') - Date.parse(post.scheduledFor)),
  );
}, 90_000);

it('live posts deleted with deleteFromPlatform=true just before the stack went down, their deletion messages lost with the queues: deleted on the platforms after the restart', async () => {
  // The crash test's failure (docs/reliability.md, "Crash test"): the kill came a moment after the DELETE, before
  // the deletion worker took its message, and the restarted stack had nothing that queued it again.
  // Here the first stack runs no deletion worker, so its messages are surely still waiting.
  await running?.stop();
  const first = await start(['PublishWorker']);
  const user: ProvisionedUser = await provisionUser({ accounts: [{ platform: 'linkedin' }, { platform: 'x', handle: '@outbox' }] });
  const client = (stack: RunningStack) => api(stack.baseUrl, user.apiKey);
  const live: { id: string; accountId: string; platform: 'x' | 'linkedin'; platformPostId: string }[] = [];
  for (const entry of user.accounts) {
    const created = await client(first).post<{ posts: { id: string }[] }>('/posts', { accounts: [entry.id], text: `Deleted before the kill ${randomBytes(3).toString('hex')}` });
    expect(created.status).toBe(202);
    const id = created.body.posts[0]?.id as string;
    const deadline = Date.now() + 45_000;
    for (;;) {
      const view = await client(first).get<PostView>(`/posts/${id}`);
      if (view.body.status === 'published') {
        live.push({ id, accountId: entry.id, platform: entry.platform as 'x' | 'linkedin', platformPostId: view.body.platformPostId ?? '' });
        break;
      }
      expect(view.body.status).toBe('scheduled');
      if (Date.now() > deadline) throw new Error(`post ${id} was not published`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const deleted = await client(first).delete<{ softDeleted: boolean; platformDeletionQueuedFor: string[] }>(`/posts/${id}?deleteFromPlatform=true`);
    expect([deleted.status, deleted.body.softDeleted, deleted.body.platformDeletionQueuedFor]).toEqual([200, true, [entry.platform]]);
  }

  await first.stop();
  await deleteQueues(endpoints.sqsEndpoint, first.queues);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await start();

  const platformOf = (post: (typeof live)[number]) => (post.platform === 'x' ? sandbox.x : sandbox.linkedin);
  const deadline = Date.now() + 45_000;
  while (live.some((post) => platformOf(post).listPosts(post.accountId).some((held) => held.deletedAt === null))) {
    if (Date.now() > deadline) {
      const still = live.filter((post) => platformOf(post).listPosts(post.accountId).some((held) => held.deletedAt === null));
      throw new Error(`still live on their platforms after the restart: ${still.map((post) => `${post.platform} ${post.platformPostId}`).join(', ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  for (const post of live) {
    expect(platformOf(post).listPosts(post.accountId).map((held) => held.id)).toEqual([post.platformPostId]);
    expect(platformOf(post).createAttemptCount(post.accountId)).toBe(1);
  }
}, 120_000);
