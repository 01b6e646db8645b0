/**
 * Idempotency rules of api-v1.md ("Idempotency") and decisions.md: the key is scoped to the user
 * (not the API key), "same body" means the same JSON value, a record is remembered 24 hours, and
 * only a 202 is remembered. Pure.
 */
import { createHash } from 'node:crypto';
import { ApiError } from './errors.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * How long an unfinished record locks its key. Longer than the create function's timeout (15 s,
 * infra/stacks/api-stack.ts), so a request still running is not overtaken; and a request that does
 * outlive it is harmless, because its completion is conditional on its own lock token
 * (lib/store/dynamodb-idempotency-store.ts). Short, because the lock of a request that crashed
 * without cleaning up is what a client retrying after the crash waits out (409
 * idempotency_in_flight): it bounds how soon its create goes through (issue 10: recover within 30 s).
 */
export const IDEMPOTENCY_LOCK_MS = 20_000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * JSON with object keys sorted at every depth and no white space: two bodies that are the same
 * JSON value serialise to the same string whatever their key order or spacing.
 *
 * Iterative, with its own stack: a body may nest as deep as its size allows (JSON.parse takes
 * 128 Ki levels of `[` within the 256 KiB body limit), and a recursive walk (or JSON.stringify of
 * the whole value) overflows the call stack long before that, which was a 500 for any create with
 * an Idempotency-Key and a deeply nested body.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  // Work items, last first: a piece of text to write, or a value still to serialise.
  const stack: ({ text: string } | { value: unknown })[] = [{ value }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if ('text' in item) {
      out.push(item.text);
      continue;
    }
    const current = item.value;
    if (current === null || typeof current !== 'object') {
      // Numbers use JSON's own shortest form, so 1, 1.0 and 1e0 (all parsed to 1) are one value.
      out.push(JSON.stringify(current) ?? 'null');
    } else if (Array.isArray(current)) {
      stack.push({ text: ']' });
      for (let index = current.length - 1; index >= 0; index -= 1) {
        stack.push({ value: current[index] as unknown });
        if (index > 0) stack.push({ text: ',' });
      }
      stack.push({ text: '[' });
    } else {
      const keys = Object.keys(current).sort();
      stack.push({ text: '}' });
      for (let index = keys.length - 1; index >= 0; index -= 1) {
        const key = keys[index] as string;
        stack.push({ value: (current as Record<string, unknown>)[key] });
        stack.push({ text: `${index > 0 ? ',' : ''}${JSON.stringify(key)}:` });
      }
      stack.push({ text: '{' });
    }
  }
  return out.join('');
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
