/**
 * Parses the JSON body for routes that take one. Every way a body can be unusable - absent,
 * empty, not JSON, JSON that is not an object (array, string, number, null), over 256 KiB
 * (decisions.md), or sent with a content type other than JSON - is the contract's
 * 400 invalid_body with param null, never middy's own 415/422.
 *
 * Content type: `application/json` (any parameters, e.g. charset) or `application/<x>+json` is
 * accepted, and so is a request with no Content-Type at all (some HTTP clients omit it; the body
 * is still checked to be a JSON object). Anything else - notably curl's default
 * `application/x-www-form-urlencoded` - is refused with a message saying what to send.
 *
 * The parsing itself is @middy/http-json-body-parser's, run BEHIND our guards: the content type, a
 * missing body and the size are checked first (its own answers would be a 415 for all of them,
 * and it would parse a body of any size), and its errors are translated into invalid_body. It runs
 * on an event of its own holding the already decoded body, so the Lambda event is left as it came.
 */
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ApiError } from '../domain/errors.js';
import type { HttpMiddleware } from './pipeline-state.js';
import { pipelineState } from './pipeline-state.js';

export const MAX_BODY_BYTES = 256 * 1024;

const JSON_MEDIA_TYPE = /^application\/([a-z0-9.+-]+\+)?json$/;

const parser = httpJsonBodyParser();

export async function parseJsonObject(rawBody: string | null, contentType: string | undefined): Promise<Record<string, unknown>> {
  if (contentType !== undefined && contentType.trim() !== '') {
    const mediaType = (contentType.split(';')[0] ?? '').trim().toLowerCase();
    if (!JSON_MEDIA_TYPE.test(mediaType)) {
      throw invalidBody('The body must be JSON: send it with `Content-Type: application/json`.');
    }
  }
  if (rawBody === null || rawBody.trim() === '') throw invalidBody('The request body is missing: send a JSON object.');
  if (Buffer.byteLength(rawBody, 'utf8') > MAX_BODY_BYTES) {
    throw invalidBody(`The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`);
  }
  const event: { body: unknown; headers: Record<string, string>; isBase64Encoded: boolean } = {
    body: rawBody,
    // The content type is ours to judge (see above) and was accepted: the parser only parses.
    headers: { 'content-type': 'application/json' },
    isBase64Encoded: false,
  };
  try {
    await parser.before?.({ event: event as unknown as APIGatewayProxyEventV2 } as Parameters<NonNullable<typeof parser.before>>[0]);
  } catch {
    throw invalidBody('The request body is not valid JSON.');
  }
  const parsed = event.body;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidBody('The request body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}

export function jsonBody(): HttpMiddleware {
  return {
    name: 'jsonBody',
    before: async (request) => {
      const state = pipelineState(request);
      state.request.body = await parseJsonObject(state.request.rawBody, state.request.headers['content-type']);
    },
  };
}

function invalidBody(message: string): ApiError {
  return new ApiError('invalid_body', message);
}

/** An optional JSON object body (publish, retry): none, or only white space, is null; anything else as parseJsonObject. */
export async function optionalJsonObject(rawBody: string | null, contentType: string | undefined): Promise<Record<string, unknown> | null> {
  if (rawBody === null || rawBody.trim() === '') return null;
  return parseJsonObject(rawBody, contentType);
}
