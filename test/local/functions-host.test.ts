/**
 * The functions host (local/functions-host.ts): with `functions: 'process'` the stack's workers and
 * its webhook router run in a child process of their own, and a due post still goes out and its
 * webhook still arrives, each counted by the host's SDK meter, not this process's. However the
 * parent ends (SIGINT, SIGTERM, kill -9), the host goes with it.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../lib/config.js';
import { REPO_ROOT } from '../../local/lambda-runtime.js';
import { api } from '../support/http.js';
import { startPostsStack } from '../support/posts.js';
import { provisionUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/** Running (a zombie waiting to be reaped is not: /proc/<pid>/stat's state Z). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe('functions host', () => {
  let stack: TestStack;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    stack = await startPostsStack({
      consumers: ['PublishWorker', 'WebhookDeliveryWorker'],
      streams: true,
      sandbox: true,
      functions: 'process',
      env: { [ENV.sdkMetering]: '1' },
    });
    receiver = await startWebhookReceiver();
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await receiver?.stop();
  });

  it('publishes a due post and delivers its webhook from a process of its own, metered there', { timeout: 90_000 }, async () => {
    const host = stack.functions;
    expect(host).not.toBeNull();
    expect(host!.pid).not.toBe(process.pid);
    expect(alive(host!.pid)).toBe(true);
    const user = await provisionUser({ accounts: [{ platform: 'x' }] });
    const client = api(stack.baseUrl, user.apiKey);
    const endpoint = await client.post('/webhook_endpoints', { url: receiver.url, enabledEvents: ['post.published'] });
    expect(endpoint.status).toBe(201);
    await host!.meter(true);

    const created = await client.post<{ posts: { id: string }[] }>('/posts', {
      accounts: [user.accounts[0]!.id],
      text: `From the functions host ${Date.now()}`,
      scheduledFor: new Date(Date.now() + 2_000).toISOString(),
    });
    expect(created.status).toBe(202);
    const id = created.body.posts[0]!.id;
    await expect.poll(async () => (await client.get<{ status: string }>(`/posts/${id}`)).body.status, { timeout: 60_000, interval: 200 }).toBe('published');
    const [delivery] = await receiver.waitFor((received) => received.some((entry) => entry.json.data.object.id === id), 60_000);
    expect(delivery?.json.type).toBe('post.published');
    // The stack's own sandbox saw the create (the host reached it over HTTP, as every function does).
    expect(stack.sandbox?.x.listPosts(user.accounts[0]!.id)).toHaveLength(1);

    // The worker's outcome write was counted in the host, where it ran.
    const counted = (await host!.meter(false)) ?? {};
    const postsTableRequests = Object.entries(counted)
      .filter(([command]) => command.startsWith('dynamodb:'))
      .reduce((total, [, meter]) => total + (meter.tables[stack.tables.posts] ?? 0), 0);
    expect(postsTableRequests).toBeGreaterThan(0);
  });
});

describe('functions host and its parent', () => {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGKILL'] as const) {
    it(`ends when its parent ends by ${signal}`, { timeout: 60_000 }, async () => {
      const parent = spawn(process.execPath, ['--import', 'tsx', 'test/local/fixtures/functions-host-parent.ts'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      try {
        const line = await new Promise<string>((resolve, reject) => {
          createInterface({ input: parent.stdout! }).once('line', resolve);
          parent.once('exit', (code) => reject(new Error(`the parent exited before its host started (${code})`)));
        });
        const host = (JSON.parse(line) as { host: number }).host;
        expect(alive(host)).toBe(true);
        const exited = new Promise((resolve) => parent.once('exit', resolve));
        parent.kill(signal);
        await exited;
        // Reaped by the init process once killed: polled, not waited for by a clock.
        await expect.poll(() => alive(host), { timeout: 30_000, interval: 100 }).toBe(false);
      } finally {
        if (parent.exitCode === null && parent.signalCode === null) parent.kill('SIGKILL');
      }
    });
  }
});
