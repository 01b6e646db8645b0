import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateApiKey, hashSecret, parseApiKey, secretMatches } from '../../lib/domain/api-key.js';

describe('generateApiKey', () => {
  it('makes ak_<16 base62>_<32 base62> keys whose parts parse back', () => {
    const generated = generateApiKey();
    expect(generated.key).toMatch(/^ak_[0-9A-Za-z]{16}_[0-9A-Za-z]{32}$/);
    expect(parseApiKey(generated.key)).toEqual({ id: generated.id, secret: generated.secret });
  });

  it('stores only the hex SHA-256 of the secret', () => {
    const generated = generateApiKey();
    expect(generated.secretHash).toBe(createHash('sha256').update(generated.secret).digest('hex'));
    expect(generated.secretHash).not.toContain(generated.secret);
  });

  it('never repeats an id or a secret', () => {
    const keys = Array.from({ length: 200 }, () => generateApiKey());
    expect(new Set(keys.map((key) => key.id)).size).toBe(200);
    expect(new Set(keys.map((key) => key.secret)).size).toBe(200);
  });
});

describe('parseApiKey', () => {
  const id = 'A'.repeat(16);
  const secret = 'b'.repeat(32);

  it('accepts the exact form', () => {
    expect(parseApiKey(`ak_${id}_${secret}`)).toEqual({ id, secret });
  });

  it.each([
    ['empty', ''],
    ['wrong prefix', `sk_${id}_${secret}`],
    ['no prefix', `${id}_${secret}`],
    ['short id', `ak_${id.slice(1)}_${secret}`],
    ['long id', `ak_${id}A_${secret}`],
    ['short secret', `ak_${id}_${secret.slice(1)}`],
    ['long secret', `ak_${id}_${secret}b`],
    ['extra separator', `ak_${id}_${secret.slice(0, 16)}_${secret.slice(16)}`],
    ['non-base62 character', `ak_${id}_${secret.slice(1)}-`],
    ['surrounding white space', ` ak_${id}_${secret}`],
    ['trailing new line', `ak_${id}_${secret}\n`],
    ['upper-case prefix', `AK_${id}_${secret}`],
  ])('refuses %s', (_label, raw) => {
    expect(parseApiKey(raw)).toBeNull();
  });

  it('never throws, whatever the input', () => {
    fc.assert(
      fc.property(fc.string(), (raw) => {
        const parsed = parseApiKey(raw);
        if (parsed) expect(`ak_${parsed.id}_${parsed.secret}`).toBe(raw);
      }),
    );
  });
});

describe('secretMatches', () => {
  it('matches the secret its hash was made from', () => {
    const generated = generateApiKey();
    expect(secretMatches(generated.secret, generated.secretHash)).toBe(true);
  });

  it('refuses any other secret', () => {
    const generated = generateApiKey();
    expect(secretMatches(generateApiKey().secret, generated.secretHash)).toBe(false);
    const oneCharOff = `${generated.secret.slice(0, -1)}${generated.secret.endsWith('a') ? 'b' : 'a'}`;
    expect(secretMatches(oneCharOff, generated.secretHash)).toBe(false);
  });

  it('refuses a stored hash that is not a SHA-256 hex digest instead of throwing', () => {
    const generated = generateApiKey();
    expect(secretMatches(generated.secret, '')).toBe(false);
    expect(secretMatches(generated.secret, generated.secretHash.slice(2))).toBe(false);
    expect(secretMatches(generated.secret, generated.secretHash.toUpperCase())).toBe(false);
    expect(secretMatches(generated.secret, generated.secret)).toBe(false);
  });

  it('hashes deterministically', () => {
    expect(hashSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
