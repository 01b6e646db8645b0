/**
 * The admin CLI as an operator runs it: a separate process (tsx) that finds a running local stack
 * through DATA_DIR/stack.json alone, prints one JSON object per command, and fails with a message
 * on stderr and exit code 1. What it provisions is checked through the HTTP API.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';
import { pdf } from '../support/pdf.js';

const repoRoot = resolve(import.meta.dirname, '../..');
const tsx = join(repoRoot, 'node_modules', '.bin', 'tsx');
const cli = join(repoRoot, 'admin', 'admin-cli.ts');

let stack: TestStack;
let dataDir: string;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with nothing of this process's environment but PATH and HOME: stack.json must be enough. */
function admin(...args: string[]): Promise<CliResult> {
  return new Promise((done) => {
    execFile(
      tsx,
      [cli, ...args],
      { cwd: repoRoot, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** Runs a command that must succeed and returns the one JSON object it printed. */
async function adminJson(...args: string[]): Promise<Record<string, unknown>> {
  const result = await admin(...args);
  expect(result.stderr, `stderr of admin ${args.join(' ')}`).toBe('');
  expect(result.code).toBe(0);
  const lines = result.stdout.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  const parsed: unknown = JSON.parse(lines[0] ?? '');
  expect(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)).toBe(true);
  return parsed as Record<string, unknown>;
}

function id(result: Record<string, unknown>): string {
  expect(typeof result.id).toBe('string');
  return result.id as string;
}

beforeAll(async () => {
  // No key cache: revocation and subscription changes must show on the very next request here.
  stack = await startTestStack({ env: { API_KEY_CACHE_SECONDS: '0' } });
  dataDir = await mkdtemp(join(tmpdir(), 'admin-cli-'));
  // What `npm start` writes to DATA_DIR/stack.json for this stack.
  await writeFile(join(dataDir, 'stack.json'), JSON.stringify(stack.info));
});

afterAll(async () => {
  await stack?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('admin CLI against a running local stack', () => {
  let userId: string;
  let workspaceId: string;
  let apiKey: string;
  let keyId: string;
  const connected: Record<string, unknown>[] = [];

  it('provisions a user whose key lists exactly the accounts the CLI printed', async () => {
    const user = await adminJson('user', 'create', '--email', 'first@example.test', '--quota', '25');
    expect(Object.keys(user)).toEqual(['id']);
    userId = id(user);
    workspaceId = id(await adminJson('workspace', 'create', '--user', userId, '--name', 'Main'));
    connected.push(
      await adminJson('account', 'connect', '--workspace', workspaceId, '--platform', 'x', '--handle', '@first', '--name', 'First'),
      await adminJson(
        'account', 'connect', '--workspace', workspaceId, '--platform', 'instagram', '--handle', 'first.pics',
        '--account-type', 'organization', '--token-health', 'expiring', '--sandbox', 'refuse',
      ),
    );
    expect(connected[0]).toEqual({
      object: 'account',
      id: expect.stringMatching(/^acct_/),
      workspaceId,
      platform: 'x',
      name: 'First',
      handle: '@first',
      accountType: 'personal',
      active: true,
      tokenHealth: 'healthy',
      connectedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      tokenExpiresAt: null,
      limits: { textLength: 280 },
    });
    const key = await adminJson('key', 'create', '--user', userId);
    expect(key).toEqual({ id: expect.any(String), key: expect.stringMatching(/^ak_[0-9A-Za-z]{16}_[0-9A-Za-z]{32}$/), scopes: ['read', 'write', 'publish', 'media'] });
    apiKey = key.key as string;
    keyId = id(key);
    expect(apiKey.startsWith(`ak_${keyId}_`)).toBe(true);

    const listed = await api(stack.baseUrl, apiKey).get('/accounts');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ object: 'list', accounts: connected });
  });

  it("gives a second user's key only that user's accounts", async () => {
    const second = id(await adminJson('user', 'create', '--email', 'second@example.test'));
    const secondWorkspace = id(await adminJson('workspace', 'create', '--user', second, '--name', 'Other'));
    const own = await adminJson('account', 'connect', '--workspace', secondWorkspace, '--platform', 'linkedin', '--handle', 'second');
    const secondKey = (await adminJson('key', 'create', '--user', second, '--scopes', 'read')).key as string;

    const listed = await api(stack.baseUrl, secondKey).get<{ accounts: Array<{ id: string }> }>('/accounts');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ object: 'list', accounts: [own] });
    const firstStill = await api(stack.baseUrl, apiKey).get<{ accounts: Array<{ id: string }> }>('/accounts');
    expect(firstStill.body.accounts.map((account) => account.id)).toEqual(connected.map((account) => account.id));
  });

  it('changes what the API shows: token health, subscription, revocation', async () => {
    const accountId = id(connected[0] ?? {});
    const updated = await adminJson('account', 'update', '--account', accountId, '--token-health', 'needs_reauth', '--sandbox', 'expired');
    expect(updated).toEqual({ ...connected[0], tokenHealth: 'needs_reauth' });
    const listed = await api(stack.baseUrl, apiKey).get<{ accounts: unknown[] }>('/accounts');
    expect(listed.body.accounts[0]).toEqual(updated);

    const user = await adminJson('user', 'update', '--user', userId, '--active', 'false', '--quota', '3');
    expect(user).toMatchObject({ object: 'user', id: userId, active: false, monthlyPostAllowance: 3, workspaceIds: [workspaceId] });
    expect((await api(stack.baseUrl, apiKey).get<{ error: { code: string } }>('/accounts')).body.error.code).toBe('subscription_inactive');
    await adminJson('user', 'update', '--user', userId, '--active', 'true');

    const revoked = await adminJson('key', 'revoke', '--key', keyId);
    expect(revoked).toEqual({ id: keyId, revokedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/) });
    const refused = await api(stack.baseUrl, apiKey).get<{ error: { code: string } }>('/accounts');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('api_key_revoked');
  });

  it('adds a file to the media library, served at the URL it prints', async () => {
    const file = join(dataDir, 'Summer photo.png');
    const bytes = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    await writeFile(file, bytes);
    const media = await adminJson('media', 'add', '--user', userId, '--file', file);
    expect(media).toEqual({
      id: expect.stringMatching(/^med_/),
      url: `${stack.mediaBaseUrl}/${userId}/${media.id as string}/Summer-photo.png`,
      contentType: 'image/png',
    });
    const served = await fetch(media.url as string);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
    expect(await readFile(file)).toEqual(bytes);
  });

  it('adds a PDF with its page count; refuses a non-PDF named .pdf and one over 100 MB (from its size, unread)', async () => {
    const file = join(dataDir, 'Deck.pdf');
    await writeFile(file, pdf(4));
    const media = await adminJson('media', 'add', '--user', userId, '--file', file);
    expect(media).toEqual({ id: expect.stringMatching(/^med_/), url: `${stack.mediaBaseUrl}/${userId}/${media.id as string}/Deck.pdf`, contentType: 'application/pdf', pageCount: 4 });
    expect((await fetch(media.url as string)).headers.get('content-type')).toBe('application/pdf');

    const fake = join(dataDir, 'fake.pdf');
    await writeFile(fake, '<html>not a pdf</html>');
    const refused = await admin('media', 'add', '--user', userId, '--file', fake);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/"fake\.pdf" is not a PDF/);

    // A sparse file: 100 MB + 1 byte long on paper, nothing written (and the CLI must not read it).
    const huge = join(dataDir, 'huge.pdf');
    const handle = await open(huge, 'w');
    await handle.truncate(100_000_001);
    await handle.close();
    const tooBig = await admin('media', 'add', '--user', userId, '--file', huge);
    expect(tooBig).toMatchObject({ code: 1, stdout: '' });
    expect(tooBig.stderr).toMatch(/a PDF may be at most 100 MB/);
  });

  // Each refusal is a process of its own that writes nothing: they run side by side.
  it.concurrent.each([
    [['account', 'connect', '--workspace', 'ws_doesNotExist', '--platform', 'x', '--handle', 'a'], /No workspace with id ws_doesNotExist/],
    [['account', 'connect', '--workspace', 'ws_x', '--platform', 'Not A Word', '--handle', 'a'], /--platform must be a lowercase word/],
    [['account', 'connect', '--workspace', 'ws_x', '--platform', 'x', '--handle', 'a', '--token-health', 'sick'], /--token-health must be one of/],
    [['account', 'update', '--account', 'acct_missing', '--sandbox', 'ok'], /No account with id acct_missing/],
    [['workspace', 'create', '--user', 'usr_missing', '--name', 'W'], /No user with id usr_missing/],
    [['user', 'create', '--quota', '5'], /--email is required/],
    [['user', 'create', '--email', 'a@example.test', '--quota', 'lots'], /--quota must be a whole number/],
    [['user', 'update', '--user', 'usr_x', '--active', 'yes'], /--active must be true or false/],
    [['key', 'create', '--user', 'usr_x', '--scopes', 'read,admin'], /unknown scope "admin"/],
    [['key', 'revoke', '--key', 'nokey'], /No api key with id nokey/],
    [['media', 'add', '--user', 'usr_x', '--file', '/does/not/exist.png'], /cannot read/],
    [['user', 'create', '--email', 'a@example.test', '--colour', 'blue'], /Unknown option '--colour'/],
    [['launch', 'rockets'], /Unknown command "launch rockets"/],
    [[], /A command is needed/],
  ])('refuses %j with a message on stderr, exit 1 and nothing on stdout', async (args, message) => {
    const result = await admin(...args);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });

  it("backfills a user's metrics schedule through the stack's posts table, and refuses a limit or cursor it cannot use", async () => {
    const fresh = id(await adminJson('user', 'create', '--email', 'backfill@example.test'));
    // A user with no published posts: one page read, nothing to schedule, done (the rest: test/store/backfill-metrics.test.ts).
    expect(await adminJson('metrics', 'backfill', '--user', fresh)).toEqual({ object: 'metrics_backfill', userId: fresh, read: 0, scheduled: 0, alreadyScheduled: 0, cursor: null });
    for (const [args, message] of [
      [['--limit', '0'], /--limit must be from 1 to 10000/],
      [['--cursor', 'whatever'], /--cursor must be the cursor a previous run printed/],
    ] as const) {
      const result = await admin('metrics', 'backfill', '--user', fresh, ...args);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
    }
  });

  it('says how to start a stack when there is none', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'admin-cli-empty-'));
    try {
      const result = await new Promise<CliResult>((done) => {
        execFile(tsx, [cli, 'user', 'create', '--email', 'a@example.test'], { cwd: repoRoot, env: { PATH: process.env.PATH ?? '', DATA_DIR: empty } }, (error, stdout, stderr) =>
          done({ code: error === null ? 0 : Number(error.code), stdout, stderr }),
        );
      });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/No local stack found .*npm start/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
