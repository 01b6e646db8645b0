/**
 * The assistant server through the MCP SDK's own client against the local stack: discovery,
 * dynamic registration, authorization with PKCE and the resource indicator, the token exchange
 * (all the SDK's code), then every tool. The person's consent is answered through the consent
 * flow directly here (test/support/direct-consent.ts); mcp-browser.test.ts walks the pages.
 * Publishing runs for real: queue consumers and sandbox platforms.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { sha256Hex } from '../../lib/oauth/secrets.js';
import { DynamoDbGrantStore } from '../../lib/store/dynamodb-grant-store.js';
import { DynamoDbWebhookStore } from '../../lib/store/dynamodb-webhook-store.js';
import { newTestEventId } from '../../lib/domain/webhooks.js';
import { MCP_SERVER_OPTIONS } from '../../lib/mcp/mcp-endpoint.js';
import { PNG_1X1 } from '../support/connect.js';
import { pdf } from '../support/pdf.js';
import { directConsent } from '../support/direct-consent.js';
import { connectAssistant, testProvider, type ConnectedAssistant } from '../support/mcp-client.js';
import { mcpCall, tokenRequest, toolsList } from '../support/mcp-http.js';
import { startPostsStack } from '../support/posts.js';
import { addMedia, provisionUser, type ProvisionedUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

let stack: TestStack;
let user: ProvisionedUser;
let assistant: ConnectedAssistant;
let grants: DynamoDbGrantStore;
let documents: DynamoDBDocumentClient;

interface ToolResult {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

beforeAll(async () => {
  stack = await startPostsStack({ consumers: true, sandbox: true });
  grants = new DynamoDbGrantStore({ tableName: stack.tables.oauth });
  const raw = dynamoDbClientFor(stack.info.dynamodbEndpoint, { retries: 'standard' });
  documents = DynamoDBDocumentClient.from(raw);
  user = await provisionUser({ accounts: [{ platform: 'x', sandbox: 'ok', handle: '@mcp_x' }, { platform: 'linkedin', sandbox: 'ok' }, { platform: 'instagram' }] });
  assistant = await connectAssistant(`${stack.origin}/mcp`, directConsent(stack.origin, user.userId));
}, 60_000);

afterAll(async () => {
  await assistant?.close();
  documents?.destroy();
  await stack?.stop();
});

describe('discovery and sign-in', () => {
  it('answers 401 with a challenge naming the protected resource metadata', async () => {
    const response = await mcpCall(stack.origin, null, toolsList);
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${stack.origin}/.well-known/oauth-protected-resource/mcp", scope="read write publish media"`,
    );
    expect(response.headers['x-ratelimit-limit']).toBeDefined();
  });

  it('publishes the protected resource and authorization server metadata', async () => {
    const resource = await (await fetch(`${stack.origin}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(resource).toMatchObject({ resource: `${stack.origin}/mcp`, authorization_servers: [stack.origin], scopes_supported: ['read', 'write', 'publish', 'media'] });
    const root = await (await fetch(`${stack.origin}/.well-known/oauth-protected-resource`)).json();
    expect(root).toEqual(resource);
    const server = await (await fetch(`${stack.origin}/.well-known/oauth-authorization-server`)).json();
    expect(server).toMatchObject({
      issuer: stack.origin,
      authorization_endpoint: `${stack.origin}/oauth/authorize`,
      token_endpoint: `${stack.origin}/oauth/token`,
      registration_endpoint: `${stack.origin}/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      token_endpoint_auth_methods_supported: ['none'],
    });
  });

  it('gave the SDK client tokens bound to our MCP URL with the scopes the person approved', () => {
    const tokens = assistant.provider.savedTokens;
    expect(tokens?.access_token).toMatch(/^mcpat_grt_/);
    expect(tokens?.refresh_token).toMatch(/^mcprt_grt_/);
    expect(tokens?.scope).toBe('read write publish media');
    expect(tokens?.expires_in).toBe(3600);
  });

  it('refuses GET and DELETE on /mcp: the server is stateless', async () => {
    const token = assistant.provider.savedTokens?.access_token ?? '';
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${stack.origin}/mcp`, { method, headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });

  it('refuses a request from a foreign Origin (DNS rebinding)', async () => {
    const response = await mcpCall(stack.origin, assistant.provider.savedTokens?.access_token ?? '', toolsList, { origin: 'http://evil.example' });
    expect(response.status).toBe(403);
  });
});

describe('tools', () => {
  it('lists fifteen tools with input and output schemas and annotations', async () => {
    const { tools } = await assistant.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual([
      'create_posts',
      'delete_post',
      'get_analytics',
      'get_post',
      'get_post_metrics',
      'get_queue',
      'import_media',
      'list_accounts',
      'list_events',
      'list_media',
      'list_posts',
      'publish_draft',
      'retry_post',
      'set_queue',
      'update_post',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    expect(byName.get('list_accounts')?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(byName.get('create_posts')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(byName.get('delete_post')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get('create_posts')?.inputSchema.required).toEqual(expect.arrayContaining(['accounts', 'idempotencyKey']));
    for (const name of ['update_post', 'publish_draft', 'retry_post']) {
      expect(byName.get(name)?.inputSchema.required, name).toEqual(expect.arrayContaining(['id', 'idempotencyKey']));
      expect(byName.get(name)?.annotations, name).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    }
  });

  it('list_accounts returns the person\'s accounts, as GET /accounts does', async () => {
    const result = await call(assistant.client, 'list_accounts');
    expect(result.isError).toBeFalsy();
    const accounts = result.structuredContent?.accounts as { id: string; platform: string }[];
    expect(accounts.map((account) => account.id)).toEqual(user.accounts.map((account) => account.id));
  });

  it('create_posts without confirm previews, with the counted text per target, and writes nothing', async () => {
    const [x, linkedin, instagram] = user.accounts;
    const text = 'Hello from an assistant https://example.com/a/very/long/path/that/x/counts/as/23';
    const result = await call(assistant.client, 'create_posts', {
      accounts: [x?.id, linkedin?.id, instagram?.id],
      text,
      idempotencyKey: 'preview-1',
    });
    expect(result.isError).toBeFalsy();
    expect(result.content[0]?.text).toMatch(/^PREVIEW ONLY, nothing was created/);
    const preview = (result.structuredContent as { mode: string; preview: { targets: Record<string, unknown>[]; accepted: number } }).preview;
    expect(result.structuredContent?.mode).toBe('preview');
    expect(preview.accepted).toBe(2);
    expect(preview.targets).toEqual([
      expect.objectContaining({ accountId: x?.id, verdict: 'accepted', textLength: 'Hello from an assistant '.length + 23, maxTextLength: 280 }),
      expect.objectContaining({ accountId: linkedin?.id, verdict: 'accepted', textLength: text.length, maxTextLength: 3000 }),
      expect.objectContaining({ accountId: instagram?.id, verdict: 'rejected', reason: 'platform_not_available' }),
    ]);
    const listed = await call(assistant.client, 'list_posts');
    expect(listed.structuredContent?.posts).toEqual([]);
  });

  it('create_posts previews how a LinkedIn text renders: its hashtags, mentions and what a reader sees', async () => {
    const [, linkedin] = user.accounts;
    const result = await call(assistant.client, 'create_posts', {
      accounts: [linkedin?.id],
      text: 'Shipping #launch with @[Ana](urn:li:person:ana1) in C#',
      idempotencyKey: 'preview-linkedin',
    });
    expect(result.isError).toBeFalsy();
    const preview = (result.structuredContent as { preview: { targets: Record<string, unknown>[] } }).preview;
    expect(preview.targets[0]).toMatchObject({
      rendering: { displayText: 'Shipping #launch with Ana in C#', hashtags: ['launch'], mentions: [{ name: 'Ana', urn: 'urn:li:person:ana1' }] },
    });
    expect(result.content[0]?.text).toContain('on LinkedIn: hashtags #launch; mentions Ana (urn:li:person:ana1)');
  });

  it('create_posts with confirm creates once, a retry with the same key replays, and get_post reaches published', async () => {
    const [x, linkedin] = user.accounts;
    const args = { accounts: [x?.id, linkedin?.id], text: 'Confirmed by the person', idempotencyKey: 'confirm-1', confirm: true };
    const [first, retry] = [await call(assistant.client, 'create_posts', args), await call(assistant.client, 'create_posts', args)];
    expect(first.isError).toBeFalsy();
    const created = first.structuredContent as { mode: string; campaignId: string; posts: { id: string; status: string; settingsUrl: string }[]; replayed: boolean };
    expect(created.mode).toBe('created');
    expect(created.replayed).toBe(false);
    expect(created.posts.map((post) => post.status)).toEqual(['accepted', 'accepted']);
    expect(created.posts[0]?.settingsUrl).toBe(`${stack.origin}/settings/posts#${created.posts[0]?.id}`);
    expect(retry.structuredContent).toMatchObject({ mode: 'created', replayed: true, campaignId: created.campaignId });

    const listed = await call(assistant.client, 'list_posts');
    expect((listed.structuredContent?.posts as unknown[]).length).toBe(2);

    const id = created.posts[0]?.id ?? '';
    let status = '';
    for (let attempt = 0; attempt < 100 && status !== 'published'; attempt++) {
      const got = await call(assistant.client, 'get_post', { id });
      status = (got.structuredContent?.post as { status: string }).status;
      if (status !== 'published') await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe('published');

    // Post metrics: none yet (the first collection is an hour after publishing); analytics count the post.
    const metrics = await call(assistant.client, 'get_post_metrics', { id });
    expect(metrics.isError).toBeFalsy();
    expect(metrics.structuredContent).toMatchObject({ postId: id, metrics: null, history: [] });
    const analytics = await call(assistant.client, 'get_analytics', { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() });
    expect((analytics.structuredContent?.totals as { posts: number }).posts).toBeGreaterThanOrEqual(1);
    const tooLong = await call(assistant.client, 'get_analytics', { from: '2026-01-01T00:00:00Z', to: '2026-06-01T00:00:00Z' });
    expect(tooLong.isError).toBe(true);
    expect(tooLong.content[0]?.text).toMatch(/^invalid_period: .*\nWhat to do: /);
  });

  it('errors are tool errors that say what to do', async () => {
    const missing = await call(assistant.client, 'get_post', { id: 'post_doesnotexist0000000' });
    expect(missing.isError).toBe(true);
    expect(missing.content[0]?.text).toMatch(/^post_not_found: .*\nWhat to do: /);
    const past = await call(assistant.client, 'create_posts', {
      accounts: [user.accounts[0]?.id],
      text: 'x',
      scheduledFor: '2020-01-01T00:00:00Z',
      idempotencyKey: 'past-1',
      confirm: true,
    });
    expect(past.isError).toBe(true);
    expect(past.content[0]?.text).toMatch(/^scheduled_for_in_past: /);
  });

  it('delete_post cancels a scheduled post', async () => {
    const scheduledFor = new Date(Date.now() + 3600_000).toISOString();
    const created = await call(assistant.client, 'create_posts', {
      accounts: [user.accounts[1]?.id],
      text: 'Later',
      scheduledFor,
      idempotencyKey: 'later-1',
      confirm: true,
    });
    const id = (created.structuredContent?.posts as { id: string }[])[0]?.id ?? '';
    const deleted = await call(assistant.client, 'delete_post', { id });
    expect(deleted.structuredContent).toEqual({ object: 'post_deleted', id, softDeleted: false, platformDeletionQueuedFor: [] });
    expect((await call(assistant.client, 'get_post', { id })).isError).toBe(true);
  });

  it('update_post previews without changing anything, then changes the post with confirm; the same key replays', async () => {
    const scheduledFor = new Date(Date.now() + 3600_000).toISOString();
    const created = await call(assistant.client, 'create_posts', { accounts: [user.accounts[0]?.id], text: 'Before', scheduledFor, idempotencyKey: 'upd-create-1', confirm: true });
    const id = (created.structuredContent?.posts as { id: string }[])[0]?.id ?? '';
    const later = new Date(Date.now() + 2 * 3600_000).toISOString();
    const preview = await call(assistant.client, 'update_post', { id, text: 'After', scheduledFor: later, idempotencyKey: 'upd-1' });
    expect(preview.isError).toBeFalsy();
    expect(preview.content[0]?.text).toMatch(/^PREVIEW ONLY, nothing was changed/);
    expect(preview.structuredContent).toMatchObject({ mode: 'preview', post: { id, text: 'After', scheduledFor: later } });
    expect((await call(assistant.client, 'get_post', { id })).structuredContent?.post).toMatchObject({ text: 'Before', scheduledFor });

    const done = await call(assistant.client, 'update_post', { id, text: 'After', scheduledFor: later, idempotencyKey: 'upd-1', confirm: true });
    expect(done.structuredContent).toMatchObject({ mode: 'done', replayed: false, post: { id, text: 'After', scheduledFor: later } });
    const again = await call(assistant.client, 'update_post', { id, text: 'After', scheduledFor: later, idempotencyKey: 'upd-1', confirm: true });
    expect(again.structuredContent).toMatchObject({ mode: 'done', replayed: true });
    const tooLong = await call(assistant.client, 'update_post', { id, text: 'x'.repeat(300), idempotencyKey: 'upd-2' });
    expect(tooLong.isError).toBe(true);
    expect(tooLong.content[0]?.text).toMatch(/^text_too_long: /);
  });

  it('publish_draft previews (nothing spent), then sends the draft; retry_post refuses a post that did not fail', async () => {
    const created = await call(assistant.client, 'create_posts', { accounts: [user.accounts[0]?.id], text: 'A draft from the assistant', draft: true, idempotencyKey: 'draft-1', confirm: true });
    const id = (created.structuredContent?.posts as { id: string }[])[0]?.id ?? '';
    const scheduledFor = new Date(Date.now() + 3600_000).toISOString();
    const preview = await call(assistant.client, 'publish_draft', { id, scheduledFor, idempotencyKey: 'send-1' });
    expect(preview.structuredContent).toMatchObject({ mode: 'preview', allowanceUnits: 1, post: { id, status: 'scheduled', scheduledFor } });
    expect((await call(assistant.client, 'get_post', { id })).structuredContent?.post).toMatchObject({ status: 'draft' });

    const sent = await call(assistant.client, 'publish_draft', { id, scheduledFor, idempotencyKey: 'send-1', confirm: true });
    expect(sent.structuredContent).toMatchObject({ mode: 'done', post: { id, status: 'scheduled', scheduledFor } });
    expect((await call(assistant.client, 'get_post', { id })).structuredContent?.post).toMatchObject({ status: 'scheduled' });

    const retried = await call(assistant.client, 'retry_post', { id, idempotencyKey: 'retry-1' });
    expect(retried.isError).toBe(true);
    expect(retried.content[0]?.text).toMatch(/^post_not_retryable: Only a failed post is retried; this post is scheduled/);
    await call(assistant.client, 'delete_post', { id });
  });

  it('list_events lists the person\'s events newest first, by group, and nobody else\'s', async () => {
    const raw = dynamoDbClientFor(stack.info.dynamodbEndpoint, { retries: 'standard' });
    try {
      const store = new DynamoDbWebhookStore({ tableName: stack.tables.webhooks, client: DynamoDBDocumentClient.from(raw) });
      const other = await provisionUser();
      const event = (userId: string, type: 'post.published' | 'webhook.test', secondsAgo: number) => {
        const id = newTestEventId();
        const createdAt = new Date(Date.now() - secondsAgo * 1000).toISOString();
        return store.putEvent({ id, userId, type, createdAt, body: JSON.stringify({ id, object: 'event', type, createdAt, data: { object: {} } }) });
      };
      const older = await event(user.userId, 'post.published', 20);
      const newer = await event(user.userId, 'webhook.test', 10);
      await event(other.userId, 'post.published', 5);
      const all = await call(assistant.client, 'list_events');
      const ids = (all.structuredContent?.events as { id: string }[]).map((one) => one.id);
      expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
      expect(ids.indexOf(older.id)).toBeGreaterThanOrEqual(0);
      const posts = await call(assistant.client, 'list_events', { type: 'post.*' });
      expect((posts.structuredContent?.events as { id: string }[]).map((one) => one.id)).toEqual([older.id]);
      const bad = await call(assistant.client, 'list_events', { type: 'nope' });
      expect(bad.content[0]?.text).toMatch(/^invalid_event_type:/);
    } finally {
      raw.destroy();
    }
  });

  it('list_media lists the person\'s library, newest first, with each file\'s state, and nobody else\'s; pages and filters as /media', async () => {
    const other = await provisionUser();
    await addMedia(other.userId, { fileName: 'theirs.png' });
    const first = await addMedia(user.userId, { fileName: 'one.png', contentType: 'image/png' });
    const second = await addMedia(user.userId, { fileName: 'two.png', contentType: 'image/png' });
    const deck = await addMedia(user.userId, { fileName: 'deck.pdf', contentType: 'application/pdf', body: pdf(2) });
    const result = await call(assistant.client, 'list_media', { status: 'ready' });
    const media = result.structuredContent?.media as { id: string; url: string; status: string; pages: number | null; altText: string | null }[];
    expect(media.slice(0, 3).map((item) => item.url)).toEqual([deck.url, second.url, first.url]);
    expect(media.every((item) => item.status === 'ready' && item.id.startsWith('med_'))).toBe(true);
    // A PDF's pages, read when it was added, tell the assistant what a document post would show.
    expect(media.slice(0, 3).map((item) => item.pages)).toEqual([2, null, null]);
    const page = await call(assistant.client, 'list_media', { limit: 2 });
    const cursor = page.structuredContent?.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));
    const rest = await call(assistant.client, 'list_media', { limit: 2, cursor });
    expect((rest.structuredContent?.media as { url: string }[]).map((item) => item.url)).toContain(first.url);
    const bad = await call(assistant.client, 'list_media', { status: 'gone' });
    expect(bad.isError).toBe(true);
  });

  it('import_media imports a file from a URL into the library and answers it ready; a bad URL is refused saying why', async () => {
    const files = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(PNG_1X1);
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(files.address() as AddressInfo).port}/chart.png`;
      const result = await call(assistant.client, 'import_media', { sourceUrl: url, altText: 'A chart', waitSeconds: 25 });
      const media = result.structuredContent?.media as { id: string; status: string; url: string; fileName: string; altText: string };
      expect(result.isError).toBeFalsy();
      expect(media).toMatchObject({ status: 'ready', fileName: 'chart.png', altText: 'A chart' });
      expect(result.content[0]?.text).toContain('use ');
      const listed = await call(assistant.client, 'list_media', { status: 'ready', limit: 100 });
      expect((listed.structuredContent?.media as { id: string }[]).map((item) => item.id)).toContain(media.id);
      const refused = await call(assistant.client, 'import_media', { sourceUrl: 'ftp://example.com/a.png' });
      expect(refused.isError).toBe(true);
      expect(refused.content[0]?.text).toMatch(/^invalid_media_request: sourceUrl must be an https URL/);
    } finally {
      files.closeAllConnections();
      await new Promise<void>((resolve) => files.close(() => resolve()));
    }
  });

  it('native formats: create_posts previews their verdicts, creates a thread and a poll, get_post and update_post show format, parts and first comment', async () => {
    const [x, linkedin] = user.accounts;
    const options = { x: { thread: [{ text: 'part two' }, { text: 'part three' }] }, linkedin: { poll: { question: 'Which?', choices: ['a'], duration: 'ONE_DAY' } } };
    const preview = await call(assistant.client, 'create_posts', { accounts: [x?.id, linkedin?.id], text: 'part one', draft: true, options, idempotencyKey: 'nf-preview' });
    expect(preview.content[0]?.text).toContain('accepted, 8/280 characters, a thread of 3 posts');
    expect((preview.structuredContent?.preview as { targets: unknown[] }).targets).toEqual([
      expect.objectContaining({ accountId: x?.id, verdict: 'accepted', format: 'thread', parts: 3, firstComment: false }),
      expect.objectContaining({ accountId: linkedin?.id, verdict: 'rejected', reason: 'invalid_poll' }),
    ]);
    const typo = await call(assistant.client, 'create_posts', { accounts: [x?.id], text: 'a', options: { x: { firstcomment: 'c' } }, idempotencyKey: 'nf-typo' });
    expect(typo.isError).toBe(true);
    expect(typo.content[0]?.text).toContain('firstcomment');

    const created = await call(assistant.client, 'create_posts', {
      accounts: [x?.id],
      text: 'part one',
      draft: true,
      options: { x: { thread: options.x.thread } },
      idempotencyKey: 'nf-create',
      confirm: true,
    });
    const id = (created.structuredContent?.posts as { id: string }[])[0]?.id ?? '';
    const got = await call(assistant.client, 'get_post', { id });
    expect(got.structuredContent?.post).toMatchObject({ format: 'thread', threadParts: [{ platformPostId: null }, { platformPostId: null }], firstComment: null });

    const poll = { x: { poll: { choices: ['yes', 'no'], durationMinutes: 60 }, firstComment: 'Why: https://example.com' } };
    const changed = await call(assistant.client, 'update_post', { id, options: poll, idempotencyKey: 'nf-update' });
    expect(changed.structuredContent).toMatchObject({ mode: 'preview', post: { format: 'poll', threadParts: [], firstComment: { status: 'pending', platformCommentId: null } } });
    const done = await call(assistant.client, 'update_post', { id, options: poll, idempotencyKey: 'nf-update', confirm: true });
    expect(done.structuredContent).toMatchObject({ mode: 'done', post: { format: 'poll', firstComment: { status: 'pending' } } });
    const refused = await call(assistant.client, 'update_post', { id, options: { x: { firstComment: ' ' } }, idempotencyKey: 'nf-update-2' });
    expect(refused.content[0]?.text).toMatch(/^invalid_first_comment: /);
  });
});

describe('grants', () => {
  it('a read-only grant reads, and a call it has no scope for is a 403 insufficient_scope challenge the client can step up from', async () => {
    const readOnly = await connectAssistant(`${stack.origin}/mcp`, directConsent(stack.origin, user.userId, { scopes: ['read'] }), testProvider('Reader'));
    try {
      expect(readOnly.provider.savedTokens?.scope).toBe('read');
      expect((await call(readOnly.client, 'list_accounts')).isError).toBeFalsy();
      const token = readOnly.provider.savedTokens?.access_token ?? '';
      const create = (args: Record<string, unknown>) =>
        mcpCall(stack.origin, token, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'create_posts', arguments: args } });
      const cases: [Record<string, unknown>, string][] = [
        [{ accounts: [user.accounts[0]?.id], text: 'no', idempotencyKey: 'ro-1', confirm: true }, 'publish'],
        [{ accounts: [user.accounts[0]?.id], text: 'no', idempotencyKey: 'ro-2' }, 'publish'],
        [{ accounts: [user.accounts[0]?.id], text: 'no', idempotencyKey: 'ro-3', draft: true }, 'write'],
      ];
      for (const [args, needed] of cases) {
        const denied = await create(args);
        expect(denied.status).toBe(403);
        expect(denied.headers['www-authenticate']).toMatch(
          new RegExp(`^Bearer resource_metadata="${stack.origin}/\\.well-known/oauth-protected-resource/mcp", scope="read ${needed}", error="insufficient_scope", error_description="[^"]+"$`),
        );
        const message = String((denied.body as { error?: { message?: string } }).error?.message);
        expect(message).toContain(`\`${needed}\``);
        expect(message).toMatch(/assistant/);
        expect(message).not.toMatch(/API key/);
        expect(denied.body).toMatchObject({ jsonrpc: '2.0', id: 7 });
      }
      const deleted = await mcpCall(stack.origin, token, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'delete_post', arguments: { id: 'post_x' } } });
      expect(deleted.status).toBe(403);
      // The SDK's client reads the challenge and tries to step up (here it can only refresh the same grant), then gives up.
      await expect(call(readOnly.client, 'delete_post', { id: 'post_x' })).rejects.toThrow(/403|Unauthorized/);
    } finally {
      await readOnly.close();
    }
  });

  it('an expired access token is refused, and the SDK client refreshes it (rotating the refresh token)', async () => {
    const session = await connectAssistant(`${stack.origin}/mcp`, directConsent(stack.origin, user.userId), testProvider('Expiring'));
    try {
      const before = session.provider.savedTokens;
      await documents.send(
        new UpdateCommand({
          TableName: stack.tables.oauth,
          Key: { pk: `TOKEN#${sha256Hex(before?.access_token ?? '')}` },
          UpdateExpression: 'SET expiresAt = :past',
          ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
        }),
      );
      const refused = await mcpCall(stack.origin, before?.access_token ?? '', toolsList);
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
      expect(refused.headers['www-authenticate']).toContain('expired');

      expect((await call(session.client, 'list_accounts')).isError).toBeFalsy();
      const after = session.provider.savedTokens;
      expect(after?.access_token).not.toBe(before?.access_token);
      expect(after?.refresh_token).not.toBe(before?.refresh_token);

      // The first refresh token again: it leaked, so the grant ends for everyone.
      const reuse = await tokenRequest(stack.origin, {
        grant_type: 'refresh_token',
        refresh_token: before?.refresh_token ?? '',
        client_id: String(session.provider.clientInfo?.client_id),
      });
      expect(reuse.status).toBe(400);
      expect(reuse.body).toMatchObject({ error: 'invalid_grant' });
      expect((await mcpCall(stack.origin, after?.access_token ?? '', toolsList)).status).toBe(401);
    } finally {
      await session.close();
    }
  });

  it('a revoked grant stops working at once', async () => {
    const session = await connectAssistant(`${stack.origin}/mcp`, directConsent(stack.origin, user.userId), testProvider('Revoked'));
    try {
      const token = session.provider.savedTokens?.access_token ?? '';
      expect((await mcpCall(stack.origin, token, toolsList)).status).toBe(200);
      const listed = await grants.listGrants(user.userId);
      const grant = listed.find((entry) => token.includes(entry.grantId));
      expect(grant?.clientName).toBe('Revoked');
      expect(await grants.revokeGrant(user.userId, grant?.grantId ?? '', new Date())).toBe(true);
      const refused = await mcpCall(stack.origin, token, toolsList);
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toContain('revoked');
      const refresh = await tokenRequest(stack.origin, {
        grant_type: 'refresh_token',
        refresh_token: session.provider.savedTokens?.refresh_token ?? '',
        client_id: String(session.provider.clientInfo?.client_id),
      });
      expect(refresh.body).toMatchObject({ error: 'invalid_grant' });
    } finally {
      await session.close();
    }
  });

  it('another user cannot revoke someone else\'s grant', async () => {
    const [grant] = await grants.listGrants(user.userId);
    expect(await grants.revokeGrant('usr_someoneelse', grant?.grantId ?? '', new Date())).toBe(false);
  });
});

describe('elicitation', () => {
  it('the server asks for none: its JSON Schema validator refuses every answer, with the reason', () => {
    const validate = MCP_SERVER_OPTIONS.jsonSchemaValidator!.getValidator<{ name: string }>({ type: 'object', properties: { name: { type: 'string' } } });
    const result = validate({ name: 'any answer' });
    expect(result.valid).toBe(false);
    expect(result.errorMessage).toMatch(/asks for no elicitation/);
  });
});

describe('queues through the assistant', () => {
  it('set_queue sets posting times, get_queue shows the next free slots, create_posts with queue: true takes the first', async () => {
    const linkedin = user.accounts[1]?.id as string;
    const empty = await call(assistant.client, 'get_queue', { accountId: linkedin });
    expect(empty.isError).toBeFalsy();
    expect(empty.structuredContent).toMatchObject({ accountId: linkedin, timeZone: 'UTC', slots: [], next: [] });
    const refused = await call(assistant.client, 'create_posts', { accounts: [linkedin], text: 'to the queue', queue: true, idempotencyKey: 'queue-0', confirm: true });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]?.text).toMatch(/^queue_empty: .*set_queue/s);

    const bad = await call(assistant.client, 'set_queue', { accountId: linkedin, timeZone: 'Europe/Atlantis', slots: [] });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/^invalid_time_zone:/);
    const set = await call(assistant.client, 'set_queue', {
      accountId: linkedin,
      timeZone: 'Asia/Kolkata',
      slots: [{ day: 'monday', time: '09:00' }, { day: 'thursday', time: '18:30' }],
    });
    expect(set.isError).toBeFalsy();
    const next = (set.structuredContent as { next: { scheduledFor: string; local: string }[] }).next;
    expect(next.length).toBeGreaterThan(0);
    expect(next[0]?.local).toMatch(/T(09:00|18:30)$/);

    const preview = await call(assistant.client, 'create_posts', { accounts: [linkedin], text: 'to the queue', queue: true, idempotencyKey: 'queue-1' });
    expect(preview.content[0]?.text).toMatch(/each at its account's next free queue slot/);
    expect(preview.content[0]?.text).toContain(`, at ${next[0]?.scheduledFor}`);
    expect((preview.structuredContent as { preview: { targets: { scheduledFor: string | null }[] } }).preview.targets[0]?.scheduledFor).toBe(next[0]?.scheduledFor);
    const created = await call(assistant.client, 'create_posts', { accounts: [linkedin], text: 'to the queue', queue: true, idempotencyKey: 'queue-1', confirm: true });
    expect(created.isError).toBeFalsy();
    const id = (created.structuredContent as { posts: { id: string }[] }).posts[0]?.id ?? '';
    const got = await call(assistant.client, 'get_post', { id });
    expect((got.structuredContent?.post as { scheduledFor: string }).scheduledFor).toBe(next[0]?.scheduledFor);
  });

  it('update_post and publish_draft take queue: true as PATCH and publish do: the preview shows the slot, the change takes it', async () => {
    const x = user.accounts[0]?.id as string;
    const set = await call(assistant.client, 'set_queue', {
      accountId: x,
      timeZone: 'America/St_Johns',
      slots: [{ day: 'tuesday', time: '08:15' }, { day: 'friday', time: '19:45' }],
    });
    const next = (set.structuredContent as { next: { scheduledFor: string }[] }).next;
    expect(next.length).toBeGreaterThanOrEqual(2);
    const ownTime = new Date(Date.now() + 20 * 86_400_000).toISOString();
    const scheduled = await call(assistant.client, 'create_posts', { accounts: [x], text: 'moved to the queue', scheduledFor: ownTime, idempotencyKey: 'q-upd-0', confirm: true });
    const scheduledId = (scheduled.structuredContent as { posts: { id: string }[] }).posts[0]?.id ?? '';

    const preview = await call(assistant.client, 'update_post', { id: scheduledId, queue: true, idempotencyKey: 'q-upd-1' });
    expect(preview.isError).toBeFalsy();
    expect((preview.structuredContent?.post as { scheduledFor: string }).scheduledFor).toBe(next[0]?.scheduledFor);
    const moved = await call(assistant.client, 'update_post', { id: scheduledId, queue: true, idempotencyKey: 'q-upd-1', confirm: true });
    expect(moved.isError).toBeFalsy();
    expect((moved.structuredContent?.post as { scheduledFor: string }).scheduledFor).toBe(next[0]?.scheduledFor);
    const both = await call(assistant.client, 'update_post', { id: scheduledId, queue: true, scheduledFor: ownTime, idempotencyKey: 'q-upd-2' });
    expect(both.content[0]?.text).toMatch(/^invalid_queue:/);

    const draft = await call(assistant.client, 'create_posts', { accounts: [x], text: 'draft to the queue', draft: true, idempotencyKey: 'q-draft-0', confirm: true });
    const draftId = (draft.structuredContent as { posts: { id: string }[] }).posts[0]?.id ?? '';
    const draftPreview = await call(assistant.client, 'publish_draft', { id: draftId, queue: true, idempotencyKey: 'q-send-1' });
    expect(draftPreview.isError).toBeFalsy();
    expect((draftPreview.structuredContent?.post as { scheduledFor: string }).scheduledFor).toBe(next[1]?.scheduledFor);
    const sent = await call(assistant.client, 'publish_draft', { id: draftId, queue: true, idempotencyKey: 'q-send-1', confirm: true });
    expect(sent.isError).toBeFalsy();
    const got = await call(assistant.client, 'get_post', { id: draftId });
    expect(got.structuredContent?.post).toMatchObject({ status: 'scheduled', scheduledFor: next[1]?.scheduledFor });
  });
});
