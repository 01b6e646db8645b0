import { randomBytes } from 'node:crypto';

/**
 * Ids are a short prefix naming the kind of thing plus 20 random base62 characters (~119 bits),
 * so an id read in a log says what it is and cannot be guessed.
 */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function randomToken(length: number): string {
  // Rejection sampling keeps every character equally likely (256 is not a multiple of 62).
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export type IdKind = 'post' | 'usr' | 'ws' | 'acct' | 'med' | 'cmp';

export function newId(kind: IdKind): string {
  return `${kind}_${randomToken(20)}`;
}
