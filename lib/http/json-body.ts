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
 */
import { ApiError } from '../domain/errors.js';
import type { HttpMiddleware } from './pipeline-state.js';
import { pipelineState } from './pipeline-state.js';

export const MAX_BODY_BYTES = 256 * 1024;

const JSON_MEDIA_TYPE = /^application\/([a-z0-9.+-]+\+)?json$/;

export function parseJsonObject(rawBody: string | null, contentType: string | undefined): Record<string, unknown> {
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
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    throw invalidBody('The request body is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidBody('The request body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}

export function jsonBody(): HttpMiddleware {
  return {
    name: 'jsonBody',
    before: (request) => {
      const state = pipelineState(request);
      state.request.body = parseJsonObject(state.request.rawBody, state.request.headers['content-type']);
    },
  };
}

function invalidBody(message: string): ApiError {
  return new ApiError('invalid_body', message);
}
