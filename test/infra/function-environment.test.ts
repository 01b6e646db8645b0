/**
 * Each function does its whole job with the environment the template gives it and nothing more.
 * template.test.ts checks that a function's variables are exactly those its grants bind; this
 * checks the other half, that the code needs no variable beyond them: every function runs in a
 * process of its own (test/infra/function-host.ts, a cold start per function) whose environment
 * holds only the variables of its synthesized AWS::Lambda::Function, bound to the local stack's
 * resources, and is asked to do each thing its grants are for. The local stack itself gives
 * every handler every variable, so the HTTP tests cannot see a function that reads a setting its
 * template lacks; on AWS that function would answer 500.
 *
 * AWS-only variables have a local stand-in (LOCAL_STAND_INS): a secret's ARN becomes the value
 * the local stack sets instead, the KMS key its key file.
 *
 * Each process runs the function's bundle as `cdk deploy` uploads it (esbuildOptionsForEach, the options
 * infra/constructs/bundling.ts gives CDK; test/infra/bundles.test.ts compares the two byte for
 * byte), all built in one esbuild run: so a module that reads a file beside the source, or a
 * variable only a bundle reaches, fails here as it would on AWS; and a process starts from one
 * file instead of tsx compiling the function's sources in each of them (docs/performance.md, "The
 * test suite's own time").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, SQSBatchResponse } from 'aws-lambda';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_BASE_PATH, API_ROUTES, ASSISTANT_ROUTES, DEFAULT_ROUTE, QUEUE_CONSUMERS, REFERENCE_ROUTES, SETTINGS_ROUTES, SWEEPER, WEBHOOK_ROUTER } from '../../functions/catalogue.js';
import { hashCookieSecret, newCookieSecret } from '../../lib/domain/session-secret.js';
import { DynamoDbSessionStore } from '../../lib/store/dynamodb-session-store.js';
import { buildHttpApiEvent, compileRoutes, matchRoute } from '../../local/api-gateway-event.js';
import { sqsClientFor } from '../../local/messaging.js';
import { toSqsEvent } from '../../local/queue-consumers.js';
import { LOCAL_RUNTIME, LOCAL_STAND_INS, localFunctionEnvironment } from '../../local/function-environment.js';
import { ENV } from '../../lib/config.js';
import { esbuildOptionsForEach } from '../../infra/constructs/bundling.js';
import { STATIC_FILES } from '../../infra/stacks/api-stack.js';
import { REPO_ROOT } from '../../local/lambda-runtime.js';
import type { MediaItem } from '../../lib/domain/model.js';
import { scheduleName } from '../../lib/dispatch/messages.js';
import { addMedia, provisionUser, type ProvisionedUser } from '../support/provision.js';
import { consentFlow } from '../support/direct-consent.js';
import { startTestStack, type TestStack } from '../support/stack.js';
import { logicalId, synthesize } from './synth.js';

// The assistant server: one function per entry (the MCP entry also serves GET and DELETE).
const ASSISTANT_ENTRIES = ASSISTANT_ROUTES.filter((route, index) => ASSISTANT_ROUTES.findIndex((other) => other.entry === route.entry) === index);
const ENTRIES = [...API_ROUTES, ...QUEUE_CONSUMERS, SWEEPER, WEBHOOK_ROUTER, DEFAULT_ROUTE, ...SETTINGS_ROUTES, ...ASSISTANT_ENTRIES, REFERENCE_ROUTES[0]!].map(({ name, entry }) => ({ name, entry }));
const SETTINGS = compileRoutes(SETTINGS_ROUTES);
const ASSISTANT_ROUTING = compileRoutes(ASSISTANT_ROUTES);
const ROUTES = compileRoutes(API_ROUTES.map((route) => ({ ...route, path: `${API_BASE_PATH}${route.path}` })));

interface FunctionHost {
  invoke<T>(event: unknown): Promise<T>;
  /** What the function wrote (its structured logs), for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** Where the bundles are built (beforeAll): `<name>/index.mjs` per function, and the host's. */
let bundles: string;
const HOST = { name: 'function-host', entry: 'test/infra/function-host.ts' };

/**
 * Every function's bundle, and the host's, in one esbuild run with the deploy's options (the host
 * is bundled too, so no process of this test needs tsx), and the files the deploy copies beside a
 * bundle (STATIC_FILES; the synthesis above built the API reference's).
 */
async function buildBundles(): Promise<void> {
  bundles = await mkdtemp(join(tmpdir(), 'function-environment-'));
  await build({ ...esbuildOptionsForEach([...ENTRIES, HOST], bundles), absWorkingDir: REPO_ROOT, logLevel: 'error' });
  await Promise.all(Object.entries(STATIC_FILES).map(([name, files]) => cp(join(REPO_ROOT, files.from), join(bundles, name, files.to), { recursive: true })));
}

function startHost(name: string, env: Record<string, string>): FunctionHost {
  const child: ChildProcess = spawn(process.execPath, [join(bundles, HOST.name, 'index.mjs'), join(bundles, name, 'index.mjs'), name], {
    env,
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const pending = new Map<number, (answer: { result?: unknown; error?: string }) => void>();
  const results = createInterface({ input: child.stdio[3] as NodeJS.ReadableStream });
  results.on('line', (line) => {
    const answer = JSON.parse(line) as { id: number; result?: unknown; error?: string };
    pending.get(answer.id)?.(answer);
    pending.delete(answer.id);
  });
  let next = 0;
  return {
    invoke: async <T>(event: unknown): Promise<T> => {
      const id = next++;
      const answered = new Promise<{ result?: unknown; error?: string }>((resolve) => pending.set(id, resolve));
      child.stdin?.write(`${JSON.stringify({ id, event })}\n`);
      const answer = await answered;
      if (answer.error !== undefined) throw new Error(`${name} threw: ${answer.error}\n--- its output ---\n${output}`);
      return answer.result as T;
    },
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

let stack: TestStack;
let user: ProvisionedUser;
let media: MediaItem;
const environments = new Map<string, Record<string, unknown>>();
const hosts = new Map<string, FunctionHost>();

/** The local environment of a function (local/function-environment.ts), as `npm run sam-env` writes it too. */
function localEnvironment(templateVariables: Record<string, unknown>): Record<string, string> {
  const env: Record<string, string> = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...localFunctionEnvironment(templateVariables, stack.env) };
  // EMF lines would only be noise here (the metrics are checked by template.test.ts).
  env.POWERTOOLS_METRICS_DISABLED = 'true';
  return env;
}

function host(name: string): FunctionHost {
  const found = hosts.get(name);
  if (!found) throw new Error(`No host for ${name}`);
  return found;
}

interface HttpAnswer<T> {
  status: number;
  headers: Record<string, string>;
  body: T;
}

/** What API Gateway does with a request: the matching route's function, else the $default one. */
async function call<T>(method: string, path: string, options: { key?: string; body?: unknown; idempotencyKey?: string } = {}): Promise<HttpAnswer<T>> {
  const url = `${API_BASE_PATH}${path}`;
  const match = matchRoute(ROUTES, method, url.split('?')[0] ?? url);
  const rawHeaders = ['host', 'api.example.test', 'user-agent', 'function-environment-test'];
  if (options.key) rawHeaders.push('authorization', `Bearer ${options.key}`);
  if (options.idempotencyKey) rawHeaders.push('idempotency-key', options.idempotencyKey);
  if (options.body !== undefined) rawHeaders.push('content-type', 'application/json');
  const event: APIGatewayProxyEventV2 = buildHttpApiEvent(
    {
      method,
      url,
      rawHeaders,
      body: options.body === undefined ? null : Buffer.from(JSON.stringify(options.body)),
      sourceIp: '203.0.113.9',
      localPort: 443,
      httpVersion: '1.1',
      requestId: randomUUID(),
      now: new Date(),
    },
    match,
  );
  const name = match ? match.route.name : DEFAULT_ROUTE.name;
  const result = await host(name).invoke<APIGatewayProxyStructuredResultV2>(event);
  const answer = {
    status: result.statusCode ?? 0,
    headers: Object.fromEntries(Object.entries(result.headers ?? {}).map(([header, value]) => [header.toLowerCase(), String(value)])),
    body: JSON.parse(result.body ?? 'null') as T,
  };
  if (answer.status >= 500) throw new Error(`${name} answered ${answer.status}\n--- its output ---\n${host(name).output()}`);
  return answer;
}

/** Waits for the message of a post on a queue (received, so the test hands it to the consumer). */
async function messageFor(queue: 'publish' | 'deletion', postId: string): Promise<Message> {
  const sqs = sqsClientFor(stack.info.sqsEndpoint);
  try {
    for (let round = 0; round < 20; round++) {
      const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: stack.queues[queue].url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
      const found = (out.Messages ?? []).find((message) => (JSON.parse(message.Body ?? '{}') as { postId?: string }).postId === postId);
      if (found) return found;
    }
  } finally {
    sqs.destroy();
  }
  throw new Error(`No ${queue} message for ${postId}`);
}

/** The consumer succeeded: the event source mapping deletes the message. */
async function deleteMessage(queue: 'publish' | 'deletion', message: Message): Promise<void> {
  const sqs = sqsClientFor(stack.info.sqsEndpoint);
  try {
    await sqs.send(new DeleteMessageCommand({ QueueUrl: stack.queues[queue].url, ReceiptHandle: message.ReceiptHandle }));
  } finally {
    sqs.destroy();
  }
}

async function consume(name: string, queue: 'publish' | 'deletion', postId: string): Promise<void> {
  const message = await messageFor(queue, postId);
  const response = await host(name).invoke<SQSBatchResponse>(toSqsEvent([message], stack.queues[queue].arn));
  expect(response.batchItemFailures, host(name).output()).toEqual([]);
  await deleteMessage(queue, message);
}

beforeAll(async () => {
  const synthesized = synthesize({ bundle: false });
  try {
    for (const { name } of ENTRIES) {
      const fn = synthesized.service.api.functions.get(name);
      if (!fn) throw new Error(`The template has no function ${name}`);
      const props = synthesized.apiJson.Resources[logicalId(fn)]?.Properties as { Environment?: { Variables?: Record<string, unknown> } };
      environments.set(name, props.Environment?.Variables ?? {});
    }
  } finally {
    synthesized.cleanup();
  }
  // No consumers and no sweeper: the test hands each message to the function itself.
  [stack] = await Promise.all([startTestStack({ sandbox: true }), buildBundles()]);
  user = await provisionUser({ accounts: [{ platform: 'x', sandbox: 'ok' }] });
  media = await addMedia(user.userId, { fileName: 'picture.png', body: new Uint8Array(2048).fill(7) });
  for (const { name } of ENTRIES) hosts.set(name, startHost(name, localEnvironment(environments.get(name) ?? {})));
}, 300_000);

afterAll(async () => {
  await Promise.all([...hosts.values()].map((running) => running.stop()));
  await stack?.stop();
  if (bundles) await rm(bundles, { recursive: true, force: true });
});

describe('every function, on its template environment alone', () => {
  const ids: { now?: string; later?: string } = {};
  const account = () => user.accounts[0]!;

  it('gets no variable from the test: only its template, the stand-ins and the runtime', () => {
    for (const { name } of ENTRIES) {
      const template = Object.keys(environments.get(name) ?? {});
      const local = Object.keys(localEnvironment(environments.get(name) ?? {}));
      const allowed = new Set([...LOCAL_RUNTIME, ...template, ...template.flatMap((v) => LOCAL_STAND_INS[v] ?? []), 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED', 'POWERTOOLS_METRICS_DISABLED']);
      expect(local.filter((variable) => !allowed.has(variable)), name).toEqual([]);
    }
    // The anonymous function is the smallest: the counters table and nothing else of the service.
    const notFound = Object.keys(environments.get(DEFAULT_ROUTE.name) ?? {}).filter((v) => !v.startsWith('POWERTOOLS_') && v !== 'NODE_OPTIONS');
    expect(notFound).toEqual([ENV.countersTable]);
  });

  it('RouteNotFound answers 404 in the contract shape, counted against the address', async () => {
    const response = await call<{ error: { code: string } }>('GET', '/nowhere');
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('route_not_found');
    expect(response.headers['x-ratelimit-limit']).toBeDefined();
  }, 60_000);

  it('ListAccounts lists the caller’s accounts', async () => {
    const response = await call<{ accounts: { id: string }[] }>('GET', '/accounts', { key: user.apiKey });
    expect(response.status).toBe(200);
    expect(response.body.accounts.map((a) => a.id)).toEqual([account().id]);
  }, 60_000);

  it('CreatePosts queues a post due now, schedules a later one, and replays a repeated request', async () => {
    const now = { accounts: [account().id], text: `Now ${randomUUID()}`, media: [media.url] };
    const first = await call<{ posts: { id: string; status: string }[] }>('POST', '/posts', { key: user.apiKey, body: now, idempotencyKey: 'now-1' });
    expect(first.status).toBe(202);
    expect(first.body.posts.map((p) => p.status)).toEqual(['accepted']);
    ids.now = first.body.posts[0]!.id;
    const replay = await call('POST', '/posts', { key: user.apiKey, body: now, idempotencyKey: 'now-1' });
    expect(replay.body).toEqual(first.body);

    const scheduledFor = new Date(Date.now() + 2 * 3600_000).toISOString();
    const later = await call<{ posts: { id: string; status: string }[] }>('POST', '/posts', {
      key: user.apiKey,
      body: { accounts: [account().id], text: `Later ${randomUUID()}`, scheduledFor },
      idempotencyKey: 'later-1',
    });
    expect(later.body.posts.map((p) => p.status)).toEqual(['accepted']);
    ids.later = later.body.posts[0]!.id;
    expect(stack.scheduler.list().map((schedule) => schedule.Name)).toContain(scheduleName(ids.later));
  }, 60_000);

  it('UpdatePost, PublishDraft, RetryPost and PreviewPosts: a moved post gets a new schedule, a draft goes out, a post not failed is refused, a preview writes nothing', async () => {
    const moved = new Date(Date.now() + 3 * 3600_000).toISOString();
    const patched = await call<{ scheduledFor: string }>('PATCH', `/posts/${ids.later}`, { key: user.apiKey, body: { scheduledFor: moved, media: [media.url] }, idempotencyKey: 'patch-1' });
    expect([patched.status, patched.body.scheduledFor]).toEqual([200, moved]);
    const schedule = stack.scheduler.list().find((entry) => entry.Name === scheduleName(ids.later ?? ''));
    expect(JSON.parse(schedule?.Target.Input ?? '{}')).toMatchObject({ scheduledFor: moved });

    const draft = await call<{ posts: { id: string }[] }>('POST', '/posts', { key: user.apiKey, body: { accounts: [account().id], text: `Draft ${randomUUID()}`, draft: true } });
    const draftId = draft.body.posts[0]!.id;
    const sent = await call<{ status: string }>('POST', `/posts/${draftId}/publish`, { key: user.apiKey, body: { scheduledFor: moved }, idempotencyKey: 'publish-1' });
    expect([sent.status, sent.body.status]).toEqual([200, 'scheduled']);
    expect(stack.scheduler.list().map((entry) => entry.Name)).toContain(scheduleName(draftId));

    const retried = await call<{ error: { code: string } }>('POST', `/posts/${draftId}/retry`, { key: user.apiKey, idempotencyKey: 'retry-1' });
    expect([retried.status, retried.body.error.code]).toEqual([409, 'post_not_retryable']);

    const preview = await call<{ posts: { id: string | null; status: string }[] }>('POST', '/posts/preview', { key: user.apiKey, body: { accounts: [account().id], text: 'Only a preview', media: [media.url] } });
    expect([preview.status, preview.body.posts.map((p) => [p.id, p.status])]).toEqual([200, [[null, 'accepted']]]);
    // Cancelled again, so the tests below find the posts they expect.
    expect((await call('DELETE', `/posts/${draftId}`, { key: user.apiKey })).status).toBe(200);
  }, 60_000);

  it('GetPost and ListPosts read posts; ListPosts signs and follows its cursor', async () => {
    const one = await call<{ id: string; status: string }>('GET', `/posts/${ids.now}`, { key: user.apiKey });
    expect([one.status, one.body.id]).toEqual([200, ids.now]);
    const page = await call<{ posts: { id: string }[]; nextCursor: string | null }>('GET', '/posts?limit=1', { key: user.apiKey });
    expect(page.status).toBe(200);
    expect(page.body.nextCursor).not.toBeNull();
    const next = await call<{ posts: { id: string }[] }>('GET', `/posts?limit=1&cursor=${encodeURIComponent(page.body.nextCursor ?? '')}`, {
      key: user.apiKey,
    });
    expect(next.status).toBe(200);
    expect([...page.body.posts, ...next.body.posts].map((p) => p.id).sort()).toEqual([ids.now, ids.later].sort());
  }, 60_000);

  it('PublishWorker publishes the due post with its media, read from the bucket with the account’s tokens', async () => {
    await consume('PublishWorker', 'publish', ids.now ?? '');
    const post = await call<{ status: string; platformPostId: string }>('GET', `/posts/${ids.now}`, { key: user.apiKey });
    expect(post.body.status).toBe('published');
    const live = stack.sandbox?.x.listPosts(account().id) ?? [];
    expect(live.map((p) => [p.id, p.mediaIds.length])).toEqual([[post.body.platformPostId, 1]]);
  }, 60_000);

  it('DeletePost cancels a scheduled post’s schedule and queues the deletion of a live post', async () => {
    const cancelled = await call<{ softDeleted: boolean }>('DELETE', `/posts/${ids.later}`, { key: user.apiKey });
    expect([cancelled.status, cancelled.body.softDeleted]).toEqual([200, false]);
    expect(stack.scheduler.list().map((schedule) => schedule.Name)).not.toContain(scheduleName(ids.later ?? ''));
    const deleted = await call<{ platformDeletionQueuedFor: string[] }>('DELETE', `/posts/${ids.now}?deleteFromPlatform=true`, { key: user.apiKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body.platformDeletionQueuedFor).toHaveLength(1);
  }, 60_000);

  it('PlatformDeletionWorker deletes the live post', async () => {
    await consume('PlatformDeletionWorker', 'deletion', ids.now ?? '');
    expect((stack.sandbox?.x.listPosts(account().id) ?? []).map((p) => p.deletedAt !== null)).toEqual([true]);
  }, 60_000);

  it('Sweeper reads the publish queue and puts back a post due soon on its first run', async () => {
    const soon = await call<{ posts: { id: string }[] }>('POST', '/posts', {
      key: user.apiKey,
      body: { accounts: [account().id], text: `Soon ${randomUUID()}`, scheduledFor: new Date(Date.now() + 5 * 60_000).toISOString() },
      idempotencyKey: 'soon-1',
    });
    expect(soon.status).toBe(202);
    const result = await host(SWEEPER.name).invoke<{ examined: number; resent: number; deletionsResent: number; deliveriesResent: number; failedToSend: number; tokensExpiring: number }>({
      version: '0',
      id: randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      time: new Date().toISOString(),
      region: stack.env.AWS_REGION,
      resources: [],
      detail: {},
    });
    // The post deleted from X above left the due index with its deletion: only the new one is there.
    // tokensExpiring: the Query of byTokenExpiry ran on the template's grants and variables alone.
    expect(result).toEqual({ examined: 1, resent: 1, deletionsResent: 0, deliveriesResent: 0, failedToSend: 0, tokensExpiring: 0, mediaImportsRequeued: 0, uploadsAbandoned: 0 });
    expect(host(SWEEPER.name).output()).not.toContain('Could not read the publish queue attributes');
    const sqs = sqsClientFor(stack.info.sqsEndpoint);
    try {
      const out = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: stack.queues.publish.url, AttributeNames: ['ApproximateNumberOfMessagesDelayed'] }));
      // The create's message and the sweeper's, both delayed until the post is due.
      expect(Number(out.Attributes?.ApproximateNumberOfMessagesDelayed)).toBe(2);
    } finally {
      sqs.destroy();
    }
  }, 60_000);
});

/** What API Gateway does with an assistant-server request: its route's function (full paths, no /api/v1). */
async function callAssistant(method: string, url: string, options: { headers?: Record<string, string>; body?: string } = {}): Promise<HttpAnswer<Record<string, unknown>> & { raw: string }> {
  const path = url.split('?')[0] ?? url;
  const match = matchRoute(ASSISTANT_ROUTING, method, path);
  if (!match) throw new Error(`No assistant route for ${method} ${path}`);
  const rawHeaders = ['host', 'api.example.test', ...Object.entries(options.headers ?? {}).flat()];
  const event = buildHttpApiEvent(
    { method, url, rawHeaders, body: options.body === undefined ? null : Buffer.from(options.body), sourceIp: '203.0.113.11', localPort: 443, httpVersion: '1.1', requestId: randomUUID(), now: new Date() },
    match,
  );
  const name = ASSISTANT_ENTRIES.find((entry) => entry.entry === match.route.entry)?.name ?? '';
  const result = await host(name).invoke<APIGatewayProxyStructuredResultV2>(event);
  const raw = result.body ?? '';
  if ((result.statusCode ?? 0) >= 500) throw new Error(`${name} answered ${result.statusCode}\n--- its output ---\n${host(name).output()}`);
  return {
    status: result.statusCode ?? 0,
    headers: Object.fromEntries(Object.entries(result.headers ?? {}).map(([header, value]) => [header.toLowerCase(), String(value)])),
    body: raw.startsWith('{') ? (JSON.parse(raw) as Record<string, unknown>) : {},
    raw,
  };
}

describe('the assistant server, each function on its template environment alone', () => {
  it('discovery, registration, authorization, token and an MCP create all work', async () => {
    expect((await callAssistant('GET', '/.well-known/oauth-protected-resource/mcp')).body.resource).toBe(`${stack.origin}/mcp`);
    expect((await callAssistant('GET', '/.well-known/oauth-authorization-server')).body.issuer).toBe(stack.origin);

    const redirectUri = 'http://127.0.0.1:9/callback';
    const registered = await callAssistant('POST', '/oauth/register', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Environment check', redirect_uris: [redirectUri] }),
    });
    expect(registered.status).toBe(201);
    const clientId = String(registered.body.client_id);

    const verifier = randomUUID() + randomUUID();
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: `${stack.origin}/mcp`,
      state: 'env',
    });
    const authorized = await callAssistant('GET', `/oauth/authorize?${query.toString()}`);
    expect(authorized.status, authorized.raw).toBe(302);
    const requestId = new URL(authorized.headers.location ?? '', stack.origin).searchParams.get('request') ?? '';
    const flow = consentFlow(stack.origin);
    const pending = await flow.show(requestId, user.userId);
    const back = new URL(await flow.answer({ requestId, formToken: pending.formToken, userId: user.userId, approve: true, scopes: ['read', 'publish'] }));

    const token = await callAssistant('POST', '/oauth/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code') ?? '', code_verifier: verifier, redirect_uri: redirectUri, client_id: clientId }).toString(),
    });
    expect(token.status, token.raw).toBe(200);

    const mcp = (message: unknown) =>
      callAssistant('POST', '/mcp', {
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${String(token.body.access_token)}` },
        body: JSON.stringify(message),
      });
    const created = await mcp({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'create_posts', arguments: { accounts: [user.accounts[0]!.id], text: `Env ${randomUUID()}`, idempotencyKey: 'env-1', confirm: true } },
    });
    expect(created.status, created.raw).toBe(200);
    const result = (created.body.result ?? {}) as { isError?: boolean; structuredContent?: { posts: { status: string }[] } };
    expect(result.isError, created.raw).toBeFalsy();
    expect(result.structuredContent?.posts.map((post) => post.status)).toEqual(['accepted']);
    const listed = await mcp({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_media', arguments: {} } });
    expect(((listed.body.result ?? {}) as { structuredContent?: { media: unknown[] } }).structuredContent?.media).toHaveLength(1);
  }, 60_000);
});

describe('every settings function, on its template environment alone', () => {
  let cookie = '';
  let csrf = '';
  let keyId = '';

  /** A settings request as API Gateway hands it over, with the session cookie. */
  async function web(method: string, path: string, form?: Record<string, string>): Promise<APIGatewayProxyStructuredResultV2> {
    const match = matchRoute(SETTINGS, method, path.split('?')[0] ?? path);
    if (!match) throw new Error(`No settings route for ${method} ${path}`);
    const origin = stack.env[ENV.settingsBaseUrl] ?? '';
    const rawHeaders = ['host', new URL(origin).host, 'cookie', `sp_session=${cookie}`, 'origin', origin];
    if (form) rawHeaders.push('content-type', 'application/x-www-form-urlencoded');
    const event = buildHttpApiEvent(
      {
        method,
        url: path,
        rawHeaders,
        body: form ? Buffer.from(new URLSearchParams(form).toString()) : null,
        sourceIp: '203.0.113.9',
        localPort: 443,
        httpVersion: '1.1',
        requestId: randomUUID(),
        now: new Date(),
      },
      match,
    );
    const result = await host(match.route.name).invoke<APIGatewayProxyStructuredResultV2>(event);
    if ((result.statusCode ?? 0) >= 500) throw new Error(`${match.route.name} answered ${result.statusCode}\n${host(match.route.name).output()}`);
    return result;
  }

  beforeAll(async () => {
    // A session as the callback writes it (the callback's own exchange needs the browser: test/browser).
    cookie = newCookieSecret();
    csrf = newCookieSecret();
    const sessions = new DynamoDbSessionStore({ tableName: stack.tables.sessions });
    await sessions.putSession(hashCookieSecret(cookie), { userId: user.userId, csrfToken: csrf, createdAt: new Date().toISOString(), expiresAt: new Date(Date.now() + 3_600_000), idleExpiresAt: new Date(Date.now() + 1_800_000) });
  });

  it('SettingsSignIn sends the browser to the OpenID provider with PKCE', async () => {
    const result = await web('GET', '/settings/sign-in');
    expect(result.statusCode).toBe(303);
    expect(String(result.headers?.Location)).toContain('code_challenge_method=S256');
  });

  it('SettingsAuthCallback refuses a callback without its sign-in', async () => {
    expect((await web('GET', '/settings/auth/callback?code=x&state=y')).statusCode).toBe(400);
  });

  it('ApiReference serves the reference page and its script with no variable at all', async () => {
    const routing = compileRoutes(REFERENCE_ROUTES);
    for (const [path, type] of [['/docs', 'text/html'], ['/docs/reference.js', 'text/javascript']] as const) {
      const match = matchRoute(routing, 'GET', path);
      if (!match) throw new Error(`No reference route for ${path}`);
      const event = buildHttpApiEvent(
        { method: 'GET', url: path, rawHeaders: ['host', 'api.example', 'accept-encoding', 'gzip'], body: null, sourceIp: '203.0.113.9', localPort: 443, httpVersion: '1.1', requestId: randomUUID(), now: new Date() },
        match,
      );
      const result = await host('ApiReference').invoke<APIGatewayProxyStructuredResultV2>(event);
      expect(result.statusCode, host('ApiReference').output()).toBe(200);
      expect(String(result.headers?.['Content-Type'])).toContain(type);
      expect(result.headers?.['Content-Encoding']).toBe('gzip');
    }
  });

  it('SettingsOverview, SettingsKeys and SettingsStatic answer pages', async () => {
    expect((await web('GET', '/settings')).statusCode).toBe(200);
    expect((await web('GET', '/settings/keys')).statusCode).toBe(200);
    expect((await web('GET', '/settings/static/settings.css')).statusCode).toBe(200);
  });

  it('SettingsCreateKey, SettingsRevokeKeyConfirm and SettingsRevokeKey make and revoke a key', async () => {
    const created = await web('POST', '/settings/keys', { _csrf: csrf });
    expect(created.statusCode).toBe(201);
    keyId = /ak_([0-9A-Za-z]{16})_/.exec(created.body ?? '')?.[1] ?? '';
    expect(keyId).not.toBe('');
    expect((await web('GET', `/settings/keys/${keyId}/revoke`)).statusCode).toBe(200);
    expect((await web('POST', `/settings/keys/${keyId}/revoke`, { _csrf: csrf })).statusCode).toBe(303);
  });

  it('SettingsWorkspaces, SettingsCreateWorkspace and SettingsRenameWorkspace list, create and rename', async () => {
    expect((await web('GET', '/settings/workspaces')).statusCode).toBe(200);
    expect((await web('POST', '/settings/workspaces', { _csrf: csrf, name: 'Second' })).statusCode).toBe(303);
    expect((await web('POST', `/settings/workspaces/${user.workspaceIds[0]}/rename`, { _csrf: csrf, name: 'Renamed' })).statusCode).toBe(303);
  });

  it('SettingsPosts lists posts and SettingsCancelPost cancels a scheduled one', async () => {
    const scheduledFor = new Date(Date.now() + 3 * 3600_000).toISOString();
    const created = await call<{ posts: { id: string }[] }>('POST', '/posts', {
      key: user.apiKey,
      // The user owns two workspaces by now (SettingsCreateWorkspace): say which one.
      body: { accounts: [user.accounts[0]!.id], text: `Cancel me ${randomUUID()}`, scheduledFor, workspaceId: user.workspaceIds[0] },
      idempotencyKey: `settings-${randomUUID()}`,
    });
    const postId = created.body.posts[0]!.id;
    const page = await web('GET', '/settings/posts?status=scheduled');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(postId);
    expect((await web('POST', `/settings/posts/${postId}/cancel`, { _csrf: csrf })).statusCode).toBe(303);
  });

  it('SettingsSendPost sends a draft later; SettingsRetryPost refuses a post that did not fail, saying why', async () => {
    const created = await call<{ posts: { id: string }[] }>('POST', '/posts', {
      key: user.apiKey,
      body: { accounts: [user.accounts[0]!.id], text: `Send me ${randomUUID()}`, draft: true, workspaceId: user.workspaceIds[0] },
    });
    const postId = created.body.posts[0]!.id;
    expect((await web('POST', `/settings/posts/${postId}/send`, { _csrf: csrf })).statusCode).toBe(303);
    const sent = await call<{ status: string }>('GET', `/posts/${postId}`, { key: user.apiKey });
    expect(sent.body.status).toBe('scheduled');
    const refused = await web('POST', `/settings/posts/${postId}/retry`, { _csrf: csrf });
    expect([refused.statusCode, refused.body]).toEqual([400, expect.stringContaining('Only a failed post is retried')]);
  });

  it('SettingsDisconnectAccountConfirm and SettingsDisconnectAccount disconnect an account', async () => {
    const accountId = user.accounts[0]!.id;
    expect((await web('GET', `/settings/accounts/${accountId}/disconnect`)).statusCode).toBe(200);
    expect((await web('POST', `/settings/accounts/${accountId}/disconnect`, { _csrf: csrf })).statusCode).toBe(303);
  });

  it('SettingsAssistantConsent, SettingsAssistantConsentAnswer, SettingsAssistants and SettingsRevokeAssistant consent, list and revoke', async () => {
    const redirectUri = 'http://127.0.0.1:9/callback';
    const registered = await callAssistant('POST', '/oauth/register', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Settings check', redirect_uris: [redirectUri] }),
    });
    const challenge = createHash('sha256').update(randomUUID() + randomUUID()).digest('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: String(registered.body.client_id),
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: `${stack.origin}/mcp`,
    });
    const consentPath = (await callAssistant('GET', `/oauth/authorize?${query.toString()}`)).headers.location ?? '';
    const page = await web('GET', consentPath);
    expect(page.statusCode).toBe(200);
    expect(String(page.headers?.['Content-Security-Policy'])).toContain("form-action 'self' http://127.0.0.1:9");
    const formToken = /name="form_token" value="([^"]+)"/.exec(page.body ?? '')?.[1] ?? '';
    const requestId = new URL(consentPath, stack.origin).searchParams.get('request') ?? '';
    const answered = await web('POST', '/settings/assistants/consent', { _csrf: csrf, request: requestId, form_token: formToken, decision: 'approve', scope_read: 'on' });
    expect(answered.statusCode).toBe(303);
    const back = new URL(String(answered.headers?.Location));
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    expect(back.searchParams.get('code')).not.toBeNull();
    const listed = await web('GET', '/settings/assistants');
    expect(listed.statusCode).toBe(200);
    expect(listed.body).toContain('Environment check');
    const grantId = /\/settings\/assistants\/(grt_[0-9A-Za-z]{20})\/revoke/.exec(listed.body ?? '')?.[1] ?? '';
    expect((await web('POST', `/settings/assistants/${grantId}/revoke`, { _csrf: csrf })).statusCode).toBe(303);
  });

  it('SettingsWebhooks, SettingsCreateWebhook, SettingsRotateWebhookSecret, SettingsSendWebhook, SettingsWebhookStatus and SettingsDeleteWebhook', async () => {
    expect((await web('GET', '/settings/webhooks')).statusCode).toBe(200);
    // A public address literal: registration checks it without a DNS lookup.
    const created = await web('POST', '/settings/webhooks', { _csrf: csrf, url: 'https://1.1.1.1/hooks', 'event:*': 'on' });
    expect(created.statusCode).toBe(201);
    expect(created.body).toContain('whsec_');
    const endpointId = /\?endpoint=(we_[0-9A-Za-z]{20})/.exec(created.body ?? '')?.[1] ?? '';
    expect((await web('GET', `/settings/webhooks?endpoint=${endpointId}`)).statusCode).toBe(200);
    expect((await web('GET', `/settings/webhooks?endpoint=${endpointId}&confirm=delete`)).statusCode).toBe(200);
    expect((await web('POST', `/settings/webhooks/${endpointId}/rotate`, { _csrf: csrf })).statusCode).toBe(200);
    expect((await web('POST', `/settings/webhooks/${endpointId}/send`, { _csrf: csrf })).statusCode).toBe(303);
    expect((await web('POST', `/settings/webhooks/${endpointId}/status`, { _csrf: csrf, status: 'disabled' })).statusCode).toBe(303);
    expect((await web('POST', `/settings/webhooks/${endpointId}/delete`, { _csrf: csrf })).statusCode).toBe(303);
  });

  it('SettingsSignOut ends the session', async () => {
    expect((await web('POST', '/settings/sign-out', { _csrf: csrf })).statusCode).toBe(200);
    expect((await web('GET', '/settings')).statusCode).toBe(303);
  });
});

describe('the check itself', () => {
  it('sees a function that lacks a variable it reads: 500, and the missing name in its log', async () => {
    const variables = { ...(environments.get('GetPost') ?? {}) };
    delete variables[ENV.postsTable];
    const lacking = startHost('GetPost', localEnvironment(variables));
    try {
      const event = buildHttpApiEvent(
        {
          method: 'GET',
          url: `${API_BASE_PATH}/posts/post_0000`,
          rawHeaders: ['host', 'api.example.test', 'authorization', `Bearer ${user.apiKey}`],
          body: null,
          sourceIp: '203.0.113.10',
          localPort: 443,
          httpVersion: '1.1',
          requestId: randomUUID(),
          now: new Date(),
        },
        matchRoute(ROUTES, 'GET', `${API_BASE_PATH}/posts/post_0000`),
      );
      const result = await lacking.invoke<APIGatewayProxyStructuredResultV2>(event);
      expect(result.statusCode).toBe(500);
      expect(lacking.output()).toContain(ENV.postsTable);
    } finally {
      await lacking.stop();
    }
  }, 60_000);
});
