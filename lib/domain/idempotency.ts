/**
 * Idempotency rules of api-v1.md ("Idempotency") and decisions.md: the key is scoped to the user
 * (not the API key), "same body" means the same JSON value, a record is remembered 24 hours, and
 * only a 202 is remembered. Pure.
 */
import { createHash } from 'node:crypto';
import { ApiError } from './errors.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * How long an unfinished record locks its key. Longer than the create function's timeout (and API
 * Gateway's 29 s), so a request still running is never overtaken; short enough that a request that
 * crashed without cleaning up does not lock its key for the whole 24 hours.
 */
export const IDEMPOTENCY_LOCK_MS = 60_000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * JSON with object keys sorted at every depth and no white space: two bodies that are the same
 * JSON value serialise to the same string whatever their key order or spacing.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    // Numbers use JSON's own shortest form, so 1, 1.0 and 1e0 (all parsed to 1) are one value.
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

/** SHA-256 (hex) of the canonical JSON: what an idempotency record stores to compare bodies. */
export function bodyHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/**
 * The Idempotency-Key header: absent means the create is not idempotent (decisions.md). A value
 * that is empty, longer than 255 characters or not printable ASCII is refused, because it is part of
 * the record's key and a silently truncated key would merge unrelated requests.
 */
export function parseIdempotencyKey(header: string | undefined): string | null {
  if (header === undefined) return null;
  if (header.length === 0 || header.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(header)) {
    throw new ApiError(
      'invalid_idempotency_key',
      `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters without spaces.`,
      { param: 'Idempotency-Key' },
    );
  }
  return header;
}
