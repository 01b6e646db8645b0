/**
 * openapi.yaml: valid and lint-clean (Redocly's recommended rules), documenting every error code
 * and rejection reason the code can produce, and strict enough as a test oracle that a drifting
 * response is caught (the HTTP tests check every response they receive against it).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, REJECTION_REASONS } from '../../lib/domain/errors.js';
import { API_ROUTES } from '../../functions/catalogue.js';
import { assertDocumentedResponse, OPENAPI_PATH, openApiDocument } from '../support/openapi.js';
import type { ApiResponse } from '../support/http.js';

const REDOCLY = fileURLToPath(new URL('../../node_modules/.bin/redocly', import.meta.url));

function resolve(pointer: string): unknown {
  let node: unknown = openApiDocument();
  for (const segment of pointer.replace(/^#\//, '').split('/')) node = (node as Record<string, unknown> | undefined)?.[segment];
  return node;
}

/** Every string a response's error `code` can take: its `enum`s and `const`s, following `$ref`s. */
function documentedCodes(node: unknown, insideCode = false, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) {
    for (const entry of node) documentedCodes(entry, insideCode, found);
  } else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (insideCode && key === 'const' && typeof value === 'string') found.add(value);
      if (insideCode && key === 'enum' && Array.isArray(value)) for (const entry of value) found.add(String(entry));
      if (insideCode && key === '$ref' && typeof value === 'string') documentedCodes(resolve(value), true, found);
      documentedCodes(value, insideCode || key === 'code', found);
    }
  }
  return found;
}

describe('openapi.yaml', () => {
  it('passes redocly lint with no error and no warning', () => {
    const run = spawnSync(REDOCLY, ['lint', OPENAPI_PATH, '--format=json'], {
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      timeout: 60_000,
    });
    const report = JSON.parse(run.stdout) as { totals: { errors: number; warnings: number }; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(run.status).toBe(0);
  });

  it('documents every route of functions/catalogue.ts', () => {
    const paths = openApiDocument().paths as Record<string, Record<string, unknown>>;
    for (const route of API_ROUTES) expect(paths[route.path]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
  });

  it('documents every error code and rejection reason', () => {
    const codes = documentedCodes(openApiDocument());
    // The two codes of unrouted requests are described in info.description (they belong to no operation).
    const routed = Object.keys(ERROR_CODES).filter((code) => code !== 'route_not_found' && code !== 'method_not_allowed');
    for (const code of [...routed, ...REJECTION_REASONS]) expect(codes, code).toContain(code);
    const description = String((openApiDocument().info as { description?: string }).description);
    expect(description).toContain('route_not_found');
    expect(description).toContain('method_not_allowed');
  });

  const response = (status: number, body: unknown, headers: Record<string, string> = {}): ApiResponse => ({
    status,
    body,
    text: JSON.stringify(body),
    headers: { 'content-type': 'application/json', 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '119', 'x-ratelimit-reset': '1800000000', ...headers },
  });
  const notFound = { error: { type: 'invalid_request_error', code: 'post_not_found', message: 'No such post.', param: 'id' } };

  it('as an oracle, accepts a documented response and catches drift', () => {
    expect(() => assertDocumentedResponse('GET', '/posts/post_1', response(404, notFound))).not.toThrow();
    // A code the operation does not document, an extra field, a missing header, an undocumented status.
    expect(() => assertDocumentedResponse('GET', '/posts/post_1', response(404, { error: { ...notFound.error, code: 'nope' } }))).toThrow(/body/);
    expect(() => assertDocumentedResponse('GET', '/posts/post_1', response(404, { ...notFound, extra: 1 }))).toThrow(/body/);
    const { 'x-ratelimit-reset': _reset, ...headers } = response(404, notFound).headers;
    expect(() => assertDocumentedResponse('GET', '/posts/post_1', { ...response(404, notFound), headers })).toThrow(/X-RateLimit-Reset/);
    expect(() => assertDocumentedResponse('GET', '/posts/post_1', response(409, notFound))).toThrow(/not documented/);
    const post = {
      object: 'post',
      id: 'post_1',
      workspaceId: 'ws',
      accountId: 'acct',
      platform: 'x',
      campaignId: 'cmp',
      status: 'scheduled',
      text: 't',
      mediaUrls: [],
      scheduledFor: '2026-11-21T09:30:00.000Z',
      publishedAt: null,
      publishedUrl: null,
      platformPostId: null,
      error: null,
      format: 'text',
      threadParts: [],
      firstComment: null,
      createdAt: '2026-11-21T09:30:00.000Z',
      updatedAt: '2026-11-21T09:30:00.000Z',
    };
    expect(() => assertDocumentedResponse('GET', '/posts/post_1', response(200, post))).not.toThrow();
    expect(() => assertDocumentedResponse('GET', '/posts/post_1', response(200, { ...post, scheduledFor: '2026-11-21T09:30:00Z' }))).toThrow(/body/);
    const { publishedAt: _publishedAt, ...withoutPublishedAt } = post;
    expect(() => assertDocumentedResponse('GET', '/posts/post_1', response(200, withoutPublishedAt))).toThrow(/body/);
    expect(() => assertDocumentedResponse('GET', '/posts/post_1', response(200, { ...post, format: 'carousel' }))).toThrow(/body/);
    const thread = { ...post, format: 'thread', threadParts: [{ platformPostId: '2', publishedUrl: 'https://x.com/a/status/2' }, { platformPostId: null, publishedUrl: null }] };
    expect(() => assertDocumentedResponse('GET', '/posts/post_1', response(200, thread))).not.toThrow();
    const comment = { status: 'failed', platformCommentId: null, error: { message: 'm', advice: 'a', retryable: false } };
    expect(() => assertDocumentedResponse('GET', '/posts/post_1', response(200, { ...post, firstComment: comment }))).not.toThrow();
    expect(() => assertDocumentedResponse('GET', '/posts/post_1', response(200, { ...post, firstComment: { ...comment, status: 'lost' } }))).toThrow(/body/);
    const accepted = { object: 'post_result', id: null, accountId: 'a', platform: 'x', status: 'accepted', reason: null, message: null };
    expect(() => assertDocumentedResponse('POST', '/posts', response(202, { object: 'post_batch', campaignId: 'c', posts: [accepted] }))).toThrow(/body/);
  });
});
