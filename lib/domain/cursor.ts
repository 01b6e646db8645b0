/**
 * The `cursor` of GET /posts: opaque to the caller, but carrying what the next page needs (the
 * DynamoDB key the previous page ended on). It is signed with HMAC-SHA256, and the signature covers
 * the user and the status filter it was issued for, so a cursor that was changed, forged, issued to
 * another user or for another filter is refused with invalid_cursor instead of reading from an
 * arbitrary point of someone's index. Pure: the signing key comes in.
 *
 * Format: `v1.<base64url(JSON {u, s, k})>.<base64url(HMAC-SHA256("v1." + payload))>`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from './errors.js';

const VERSION = 'v1';
/** Far above any real cursor (a key of three short strings); caps work spent on garbage. */
const MAX_CURSOR_LENGTH = 1024;

export type PageKey = Record<string, string>;

export interface CursorScope {
  userId: string;
  /** The status filter of the list the cursor belongs to; null for the unfiltered list. */
  status: string | null;
}

function sign(payload: string, signingKey: string): Buffer {
  return createHmac('sha256', signingKey).update(`${VERSION}.${payload}`).digest();
}

export function encodeCursor(scope: CursorScope, lastKey: PageKey, signingKey: string): string {
  const payload = Buffer.from(JSON.stringify({ u: scope.userId, s: scope.status, k: lastKey })).toString('base64url');
  return `${VERSION}.${payload}.${sign(payload, signingKey).toString('base64url')}`;
}

function invalid(): never {
  throw new ApiError('invalid_cursor', 'cursor is not a nextCursor returned by this API for this list; start again without it.', {
    param: 'cursor',
  });
}

/** The key to continue from; throws invalid_cursor unless the cursor is ours, unchanged, and for this scope. */
export function decodeCursor(cursor: string, scope: CursorScope, signingKey: string): PageKey {
  if (cursor.length > MAX_CURSOR_LENGTH) invalid();
  const parts = cursor.split('.');
  if (parts.length !== 3 || parts[0] !== VERSION) invalid();
  const [, payload = '', signature = ''] = parts;
  const expected = sign(payload, signingKey);
  const given = Buffer.from(signature, 'base64url');
  // Constant-time comparison: the signature must not be guessable byte by byte from timings.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) invalid();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return invalid();
  }
  if (typeof decoded !== 'object' || decoded === null) return invalid();
  const { u, s, k } = decoded as { u?: unknown; s?: unknown; k?: unknown };
  if (u !== scope.userId || s !== scope.status) invalid();
  if (typeof k !== 'object' || k === null || Array.isArray(k)) invalid();
  const entries = Object.entries(k);
  if (entries.length === 0 || !entries.every(([, value]) => typeof value === 'string')) invalid();
  return Object.fromEntries(entries) as PageKey;
}

/**
 * The answer to a page key the store did not hand out for this list (`code: 'invalid_page_key'`,
 * reachable only with a validly signed cursor): invalid_cursor; null for any other error.
 */
export function refusedPageKey(error: unknown): ApiError | null {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== 'invalid_page_key') return null;
  return new ApiError('invalid_cursor', 'cursor is not a nextCursor returned by this API for this list.', { param: 'cursor', cause: error });
}

