/**
 * The secrets of one OAuth connect (RFC 6749 state, RFC 7636 PKCE): a state and a verifier of 32
 * random bytes each (base64url, 43 characters: within PKCE's 43-128), the S256 challenge sent
 * with the authorize request, and the SHA-256 under which state and session are stored, so the
 * store never holds a value that could be replayed.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function randomUrlSafe(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Constant-time equality of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
