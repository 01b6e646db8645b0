/**
 * The X adapter and the X sandbox checked against X's own OpenAPI document (issue 10, item 12), so
 * that the adapter is right about the real X API and not only about our sandbox.
 *
 * The document is X's, not ours: test/fixtures/x-api-v2.openapi.json (see test/fixtures/README.md
 * for where it comes from). A recording proxy sits between the adapter (lib/platforms/x-client.ts)
 * and the sandbox (local/sandbox/x.ts); every exchange that passes through it is checked:
 *   - the operation (method + path template) exists in the document;
 *   - the query parameters validate against the operation's parameters;
 *   - the request body validates against the operation's requestBody schema for its content type
 *     (multipart fields are text on the wire, so they are compared with type coercion);
 *   - the response body validates against the schema of its status (or `default`).
 * Token refresh (POST /2/oauth2/token) is not in the document (it describes the resource API
 * only), so it is checked by test/platforms/x-client.test.ts alone.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesMediaSource } from '../../lib/platforms/media-source.js';
import { XClient } from '../../lib/platforms/x-client.js';
import { listenOnLoopback } from '../../local/free-port.js';
import { SANDBOX_CLIENT_CREDENTIALS, startSandboxPlatforms, type SandboxPlatforms } from '../../local/sandbox/index.js';
import { SandboxAccounts } from '../support/platform-sandbox.js';

type Json = Record<string, unknown>;

const DOCUMENT_PATH = fileURLToPath(new URL('../fixtures/x-api-v2.openapi.json', import.meta.url));
const DOCUMENT_ID = 'x-api-v2.json';
const document = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as { paths: Record<string, Record<string, Json>> };

// ajv-formats is CommonJS: its default export arrives wrapped under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/** OpenAPI 3.0 schema keywords that are not JSON Schema, and X's extensions: known, not checked. */
function openApiAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, coerceTypes, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addFormat('byte', true);
  ajv.addSchema(document, DOCUMENT_ID);
  return ajv;
}
const jsonAjv = openApiAjv(false);
const textAjv = openApiAjv(true);

/** OpenAPI 3.0's `nullable` is not JSON Schema; the parts we check use none, so a schema is used as is. */
function validatorFor(ajv: Ajv, pointer: string): ValidateFunction {
  const key = `${DOCUMENT_ID}#${pointer}`;
  return ajv.getSchema(key) ?? ajv.compile({ $ref: key });
}

const genericProblem = jsonAjv.compile({
  type: 'object',
  required: ['type', 'title', 'status', 'detail'],
  properties: { type: { const: 'about:blank' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' } },
});

const escapePointer = (segment: string): string => segment.replaceAll('~', '~0').replaceAll('/', '~1');

interface Exchange {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string;
  requestBody: Buffer;
  status: number;
  responseContentType: string;
  responseBody: string;
}

/** The document's path template for a concrete path: `/2/tweets/123` -> `/2/tweets/{id}`. */
function templateOf(method: string, path: string): string | undefined {
  return Object.keys(document.paths).find((template) => {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    return pattern.test(path) && document.paths[template]?.[method.toLowerCase()] !== undefined;
  });
}

function resolveRef(value: Json): Json {
  const ref = value.$ref;
  if (typeof ref !== 'string') return value;
  let current: unknown = document;
  for (const part of ref.replace(/^#\//, '').split('/')) current = (current as Json)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  return current as Json;
}

function problems(validate: ValidateFunction, value: unknown): string[] {
  return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
}

/** Everything about one exchange that disagrees with X's document; empty when it conforms. */
async function checkExchange(exchange: Exchange): Promise<string[]> {
  const found: string[] = [];
  const method = exchange.method.toLowerCase();
  const template = templateOf(exchange.method, exchange.path);
  if (!template) return [`${exchange.method} ${exchange.path}: no such operation in X's document`];
  const operationPointer = `/paths/${escapePointer(template)}/${method}`;
  const operation = document.paths[template]?.[method] as Json;

  // Query parameters: each sent one is declared, each required one is sent, each value validates.
  const parameters = ((operation.parameters as Json[] | undefined) ?? []).map(resolveRef).filter((p) => p.in === 'query');
  for (const name of new Set(exchange.query.keys())) {
    const declared = parameters.find((parameter) => parameter.name === name);
    if (!declared) {
      found.push(`query parameter ${name} is not declared`);
      continue;
    }
    const index = ((operation.parameters as Json[]) ?? []).findIndex((p) => resolveRef(p).name === name);
    const raw = exchange.query.getAll(name).join(',');
    const schema = resolveRef(declared.schema as Json);
    const value = schema.type === 'array' ? raw.split(',') : raw;
    const ref = (operation.parameters as Json[])[index]?.$ref;
    const pointer = typeof ref === 'string' ? `${ref.slice(1)}/schema` : `${operationPointer}/parameters/${index}/schema`;
    found.push(...problems(validatorFor(textAjv, pointer), value).map((p) => `query ${name}=${raw}: ${p}`));
  }
  for (const parameter of parameters) {
    if (parameter.required === true && !exchange.query.has(String(parameter.name))) found.push(`required query parameter ${String(parameter.name)} missing`);
  }

  // Request body.
  const requestBody = operation.requestBody as Json | undefined;
  const mediaType = exchange.contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (exchange.requestBody.length > 0) {
    const content = (requestBody?.content as Json | undefined) ?? {};
    if (!(mediaType in content)) {
      found.push(`request body of type ${mediaType || '(none)'} not accepted (accepted: ${Object.keys(content).join(', ') || 'no body'})`);
    } else {
      const pointer = `${operationPointer}/requestBody/content/${escapePointer(mediaType)}/schema`;
      if (mediaType === 'multipart/form-data') {
        const form = await new Response(new Uint8Array(exchange.requestBody), { headers: { 'content-type': exchange.contentType } }).formData();
        const fields: Json = {};
        for (const [name, value] of form.entries()) fields[name] = typeof value === 'string' ? value : '<binary>';
        found.push(...problems(validatorFor(textAjv, pointer), fields).map((p) => `multipart body: ${p}`));
      } else {
        const body = JSON.parse(exchange.requestBody.toString('utf8')) as unknown;
        found.push(...problems(validatorFor(jsonAjv, pointer), body).map((p) => `JSON body: ${p}`));
      }
    }
  } else if (requestBody?.required === true) {
    found.push('request body required but none sent');
  }

  // Response body. X answers errors it does not type (401, 429, 503, a duplicate's 403) with the
  // generic RFC 7807 problem, `type: about:blank`, which its document's Problem schema leaves out;
  // that one shape is checked here instead (and the sandbox sends it as X does).
  if (exchange.responseContentType.startsWith('application/problem+json') && exchange.status >= 400) {
    const body = JSON.parse(exchange.responseBody) as Json;
    if (body.type === 'about:blank') {
      return problems(genericProblem, body).map((problem) => `${exchange.method} ${exchange.path}: response ${exchange.status}: ${problem}`).concat(found);
    }
  }
  const responses = operation.responses as Json;
  const statusKey = String(exchange.status) in responses ? String(exchange.status) : 'default';
  const response = responses[statusKey] ? resolveRef(responses[statusKey] as Json) : undefined;
  if (!response) {
    found.push(`status ${exchange.status} not documented`);
  } else if (exchange.responseBody !== '') {
    const responseType = exchange.responseContentType.split(';')[0]?.trim().toLowerCase() ?? '';
    const content = (response.content as Json | undefined) ?? {};
    if (!(responseType in content)) {
      found.push(`response of type ${responseType} not documented for ${statusKey}`);
    } else {
      const base = typeof (responses[statusKey] as Json).$ref === 'string' ? String((responses[statusKey] as Json).$ref).slice(1) : `${operationPointer}/responses/${statusKey}`;
      const pointer = `${base}/content/${escapePointer(responseType)}/schema`;
      found.push(...problems(validatorFor(jsonAjv, pointer), JSON.parse(exchange.responseBody)).map((p) => `response ${exchange.status}: ${p}`));
    }
  }
  return found.map((problem) => `${exchange.method} ${exchange.path}${exchange.query.size > 0 ? `?${exchange.query.toString()}` : ''}: ${problem}`);
}

const accounts = new SandboxAccounts();
let sandbox: SandboxPlatforms;
let proxy: Server;
let client: XClient;
const exchanges: Exchange[] = [];

beforeAll(async () => {
  sandbox = await startSandboxPlatforms({ port: 0, accountBehaviour: accounts.accountBehaviour, xCheckAfterSecs: 1, processingPolls: 2 });
  const target = sandbox.xBaseUrl;
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const url = new URL(req.url ?? '/', 'http://proxy');
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host') headers.set(name, value);
        const answer = await fetch(`${target}${url.pathname}${url.search}`, {
          method: req.method,
          headers,
          body: body.length > 0 ? new Uint8Array(body) : undefined,
        });
        const text = await answer.text();
        exchanges.push({
          method: req.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          contentType: req.headers['content-type'] ?? '',
          requestBody: body,
          status: answer.status,
          responseContentType: answer.headers.get('content-type') ?? '',
          responseBody: text,
        });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(text);
      })().catch((error: unknown) => {
        res.writeHead(599);
        res.end(String(error));
      });
    });
  });
  const port = await listenOnLoopback(proxy);
  client = new XClient({
    baseUrl: `http://127.0.0.1:${port}`,
    clientCredentials: async () => SANDBOX_CLIENT_CREDENTIALS.x,
    maxPollWaitMs: 20,
    chunkBytes: 64 * 1024,
  });
});

afterAll(async () => {
  await new Promise<void>((resolveClosed) => (proxy ? proxy.close(() => resolveClosed()) : resolveClosed()));
  await sandbox?.stop();
});

async function conformance(run: () => Promise<unknown>): Promise<Exchange[]> {
  const from = exchanges.length;
  await run();
  const seen = exchanges.slice(from);
  const found = (await Promise.all(seen.map(checkExchange))).flat();
  expect(found).toEqual([]);
  return seen;
}

const xAccount = () => accounts.create('x', 'ok', { platformUserId: '1234567890', handle: '@sandbox_user', accountType: 'personal' });

describe("the X adapter and the X sandbox against X's OpenAPI document", () => {
  it('create post: text, community options', async () => {
    const { account, accessToken } = xAccount();
    const seen = await conformance(() =>
      client.publish({ account, accessToken, text: 'Conforming post', media: [], options: { communityId: '1700000000000000001', shareWithFollowers: true } }),
    );
    expect(seen.map((exchange) => `${exchange.method} ${exchange.path} ${exchange.status}`)).toEqual(['POST /2/tweets 201']);
  });

  it('create post with images: simple upload, then media ids', async () => {
    const { account, accessToken } = xAccount();
    const png = bytesMediaSource(new Uint8Array(3000).fill(7), 'image/png');
    const seen = await conformance(() => client.publish({ account, accessToken, text: '', media: [png, png], options: {} }));
    expect(seen.map((exchange) => `${exchange.method} ${exchange.path}`)).toEqual(['POST /2/media/upload', 'POST /2/media/upload', 'POST /2/tweets']);
  });

  it('create post with an image and its alt text: upload, media metadata, then the post', async () => {
    const { account, accessToken } = xAccount();
    const png = bytesMediaSource(new Uint8Array(3000).fill(5), 'image/png', null, 'A red square on white');
    const seen = await conformance(() => client.publish({ account, accessToken, text: 'Described', media: [png], options: {} }));
    expect(seen.map((exchange) => `${exchange.method} ${exchange.path} ${exchange.status}`)).toEqual(['POST /2/media/upload 200', 'POST /2/media/metadata 200', 'POST /2/tweets 201']);
    expect(JSON.parse(seen[1]!.requestBody.toString('utf8'))).toMatchObject({ metadata: { alt_text: { text: 'A red square on white' } } });
  });

  it('create post with a video: chunked INIT / APPEND / FINALIZE / STATUS', async () => {
    const { account, accessToken } = xAccount();
    const video = bytesMediaSource(new Uint8Array(150 * 1024).fill(1), 'video/mp4');
    const seen = await conformance(() => client.publish({ account, accessToken, text: 'A video', media: [video], options: {} }));
    const calls = seen.map((exchange) => `${exchange.method} ${exchange.path.replace(/\/upload\/\d+\//, '/upload/{id}/')}`);
    expect(calls).toContain('POST /2/media/upload/initialize');
    expect(calls.filter((call) => call === 'POST /2/media/upload/{id}/append')).toHaveLength(3);
    expect(calls).toContain('POST /2/media/upload/{id}/finalize');
    expect(calls).toContain('GET /2/media/upload');
  });

  it('delete post, and its answer once already gone', async () => {
    const { account, accessToken } = xAccount();
    const { platformPostId } = await client.publish({ account, accessToken, text: 'To be deleted', media: [], options: {} });
    await conformance(async () => {
      await client.deletePost({ account, accessToken, platformPostId });
      await client.deletePost({ account, accessToken, platformPostId });
    });
  });

  it("reconciliation: the user's recent posts", async () => {
    const { account, accessToken } = xAccount();
    await client.publish({ account, accessToken, text: 'Find me', media: [], options: {} });
    const seen = await conformance(() => client.findRecentPost({ account, accessToken, text: 'Find me', since: new Date(Date.now() - 60_000) }));
    expect(seen.map((exchange) => `${exchange.method} ${exchange.path}`)).toEqual(['GET /2/users/1234567890/tweets']);
  });

  it("the account's subscription_type (users/me with user.fields), as X long posts read it", async () => {
    const { accessToken } = xAccount();
    let subscription: string | null = 'unread';
    const seen = await conformance(async () => {
      subscription = await client.subscriptionType({ accessToken });
    });
    expect(seen.map((exchange) => `${exchange.method} ${exchange.path}?${exchange.query.toString()} ${exchange.status}`)).toEqual(['GET /2/users/me?user.fields=subscription_type 200']);
    expect(subscription).toBe('None');
  });

  it('native formats: a reply, a poll, a first comment, and the lookup of replies', async () => {
    const { account, accessToken } = xAccount();
    const seen = await conformance(async () => {
      const first = await client.publish({ account, accessToken, text: 'Thread part 1', media: [], options: { poll: { choices: ['Yes', 'No'], durationMinutes: 1440 } } });
      const second = await client.publish({ account, accessToken, text: 'Thread part 2', media: [], options: {}, replyTo: first.platformPostId });
      await client.publishComment({ account, accessToken, platformPostId: second.platformPostId, text: 'First comment' });
      await client.findRecentPost({ account, accessToken, text: 'Thread part 2', since: new Date(Date.now() - 60_000), replyTo: first.platformPostId });
      await client.findComment({ account, accessToken, platformPostId: second.platformPostId, text: 'First comment', since: new Date(Date.now() - 60_000) });
    });
    expect(seen.map((exchange) => `${exchange.method} ${exchange.path} ${exchange.status}`)).toEqual([
      'POST /2/tweets 201',
      'POST /2/tweets 201',
      'POST /2/tweets 201',
      'GET /2/users/1234567890/tweets 200',
      'GET /2/users/1234567890/tweets 200',
    ]);
    // The refusal of a reply to a post that is gone is in X's shape too.
    await conformance(() => client.publish({ account, accessToken, text: 'To nowhere', media: [], options: {}, replyTo: '1999999999999999999' }).catch(() => null));
  });

  it('error answers: refused, expired token, outage, rate limit, duplicate, unknown route', async () => {
    for (const behaviour of ['refuse', 'expired', 'flaky'] as const) {
      const { account, accessToken } = accounts.create('x', behaviour, { platformUserId: '1234567890', handle: '@h', accountType: 'personal' });
      const seen = await conformance(() => client.publish({ account, accessToken, text: `Error ${behaviour}`, media: [], options: {} }).catch(() => null));
      expect(seen.some((exchange) => exchange.status >= 400)).toBe(true);
    }
    const { account, accessToken } = xAccount();
    await conformance(async () => {
      await client.publish({ account, accessToken, text: 'Said twice', media: [], options: {} });
      await client.publish({ account, accessToken, text: 'Said twice', media: [], options: {} }).catch(() => null);
    });
    expect(exchanges.at(-1)?.status).toBe(403);
  });

  it('post metrics: the lookup of up to 100 posts by id with public and non-public metrics, a deleted post among them', async () => {
    const { account, accessToken } = xAccount();
    const live = await client.publish({ account, accessToken, text: 'Metrics conformance', media: [], options: {} });
    const gone = await client.publish({ account, accessToken, text: 'Metrics conformance, deleted', media: [], options: {} });
    await client.deletePost({ account, accessToken, platformPostId: gone.platformPostId });
    const seen = await conformance(() => client.fetchMetrics({ account, accessToken, platformPostIds: [live.platformPostId, gone.platformPostId] }));
    expect(seen.map((exchange) => `${exchange.method} ${exchange.path} ${exchange.status}`)).toEqual(['GET /2/tweets 200']);
    sandbox.x.injectFault(account.id, 'metrics_rate_limited');
    await conformance(() => client.fetchMetrics({ account, accessToken, platformPostIds: [live.platformPostId] }).catch(() => null));
    expect(exchanges.at(-1)?.status).toBe(429);
  });

  it('the checker itself catches what X would refuse (it can fail)', async () => {
    const refused = await checkExchange({
      method: 'POST',
      path: '/2/tweets',
      query: new URLSearchParams(),
      contentType: 'application/json',
      requestBody: Buffer.from(JSON.stringify({ text: 'x', community_id: 'not-a-number', shareWithFollowers: true })),
      status: 201,
      responseContentType: 'application/json',
      responseBody: JSON.stringify({ data: { id: 42 } }),
    });
    expect(refused.join('\n')).toMatch(/community_id/);
    expect(refused.join('\n')).toMatch(/response 201/);
    const unknownRoute = await checkExchange({ ...exchangeStub(), path: '/2/tweet' });
    expect(unknownRoute).toEqual(['POST /2/tweet: no such operation in X\'s document']);
  });
});

function exchangeStub(): Exchange {
  return {
    method: 'POST',
    path: '/2/tweets',
    query: new URLSearchParams(),
    contentType: '',
    requestBody: Buffer.alloc(0),
    status: 201,
    responseContentType: '',
    responseBody: '',
  };
}
