/**
 * API keys have the form `ak_<id>_<secret>` (api-v1.md, Authentication). The id is public: it is
 * the key's DynamoDB key and what settings show. Only the hex SHA-256 of the secret is stored, so
 * a leaked table does not leak usable keys; a plain hash is enough because the secret is 32
 * random base62 characters (~190 bits), far beyond any guessing, so no slow KDF is needed.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { randomToken } from './ids.js';

export const API_KEY_PREFIX = 'ak';
export const API_KEY_ID_LENGTH = 16;
export const API_KEY_SECRET_LENGTH = 32;

// Base62 only: neither part can contain the `_` separator, so parsing is unambiguous.
const API_KEY_PATTERN = new RegExp(
  `^${API_KEY_PREFIX}_([0-9A-Za-z]{${API_KEY_ID_LENGTH}})_([0-9A-Za-z]{${API_KEY_SECRET_LENGTH}})$`,
);
const SHA256_HEX_PATTERN = /^[0-9a-f]{64}$/;

export interface ParsedApiKey {
  id: string;
  secret: string;
}

export interface GeneratedApiKey extends ParsedApiKey {
  /** The full key, shown once at creation and never stored. */
  key: string;
  secretHash: string;
}

/** `{id, secret}` for a well-formed key, null for anything else (401 api_key_malformed). */
export function parseApiKey(raw: string): ParsedApiKey | null {
  const match = API_KEY_PATTERN.exec(raw);
  if (!match || match[1] === undefined || match[2] === undefined) return null;
  return { id: match[1], secret: match[2] };
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * Compares in constant time so response timing says nothing about how much of a guessed secret
 * matched. Both sides are fixed-length digests, so the comparison never leaks length either.
 */
export function secretMatches(secret: string, storedHash: string): boolean {
  if (!SHA256_HEX_PATTERN.test(storedHash)) return false;
  return timingSafeEqual(Buffer.from(hashSecret(secret), 'hex'), Buffer.from(storedHash, 'hex'));
}

export function generateApiKey(): GeneratedApiKey {
  const id = randomToken(API_KEY_ID_LENGTH);
  const secret = randomToken(API_KEY_SECRET_LENGTH);
  return { id, secret, key: `${API_KEY_PREFIX}_${id}_${secret}`, secretHash: hashSecret(secret) };
}
