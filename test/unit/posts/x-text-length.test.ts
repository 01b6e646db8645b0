/**
 * X's weighted length with bounded work (lib/domain/x-text-length.ts): the same count as
 * twitter-text on the whole text for every text it can afford to count exactly, and a refusal
 * without the quadratic parse for the patterns that made twitter-text take seconds.
 */
import fc from 'fast-check';
import twitterText from 'twitter-text';
import { describe, expect, it } from 'vitest';
import { MAX_PARSED_RUN_UNITS, X_MAX_WEIGHTED_LENGTH, xTextLength } from '../../../lib/domain/x-text-length.js';

const whole = (text: string): number => twitterText.parseTweet(text.normalize('NFC')).weightedLength;

/** Pieces that exercise every part of twitter-text's count, the boundaries between segments included. */
const PIECES = [
  'a', 'Z', '9', '.', '-', '_', '/', ':', '@', '#', '$', ',', '(', ')', '?', '=', '&', '!', "'", '"',
  ' ', '  ', '\n', '\t', '\u00a0', '\u3000', '\u2009', '\u2028', '\ufeff', '\u200b', '\u200d', '\u200e', '\u202e',
  'http://', 'https://', 'www.', 'a.co', 'example.com', '.com', '.co.uk', 't.co/abc', 'xn--bcher-kva.de', 'bücher.de',
  '.中国', '.موقع', '.рф', '.COM', 'Example.Org/path?q=1', '@user', '#tag', '$CASH', 'e\u0301', '\u0301', '日本', '한', 'مرحبا', 'שלום', '😀', '👍🏽', '👩‍👩‍👧', '🏳️‍🌈', '❤️', '\ufe0f', '🇫🇷',
];

const textArbitrary = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((parts) => parts.join(''));

describe('xTextLength', () => {
  it('equals twitter-text on the whole text whenever it says the count is exact', () => {
    fc.assert(
      fc.property(textArbitrary, (text) => {
        const counted = xTextLength(text);
        if (counted.exact) expect(counted.length).toBe(whole(text));
        // Never a refusal of a text twitter-text accepts, and never an acceptance of one it refuses.
        expect(counted.length > X_MAX_WEIGHTED_LENGTH).toBe(whole(text) > X_MAX_WEIGHTED_LENGTH);
      }),
      { numRuns: 2000 },
    );
  });

  it('decides the limit exactly near 280, where stopping early matters', () => {
    const nearLimit = fc
      .tuple(fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }), fc.integer({ min: 200, max: 300 }))
      .map(([parts, fill]) => `${'a '.repeat(Math.floor(fill / 2))}${parts.join('')}`);
    fc.assert(
      fc.property(nearLimit, (text) => {
        const counted = xTextLength(text);
        expect(counted.length > X_MAX_WEIGHTED_LENGTH).toBe(whole(text) > X_MAX_WEIGHTED_LENGTH);
        if (counted.exact) expect(counted.length).toBe(whole(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('counts links as 23 and long texts without a dot exactly', () => {
    const link = `https://example.com/${'p'.repeat(400)}`;
    expect(xTextLength(`${'a'.repeat(200)} ${link} ${link}`)).toEqual({ length: 200 + 1 + 23 + 1 + 23, exact: true });
    // 140 emoji with skin tones and no white space: one long run, still counted exactly (no dot).
    const emoji = '👍🏽'.repeat(140);
    expect(xTextLength(emoji)).toEqual({ length: whole(emoji), exact: true });
  });

  it('refuses the quadratic patterns without parsing them whole', () => {
    // Each of these took twitter-text seconds at 40 KB; here the answer is immediate (the bench
    // measures the time; this checks the verdict and that it is marked as not exact).
    for (const pattern of ['a.', 'www.', 'ab-cd.', '.a']) {
      const text = pattern.repeat(Math.ceil(40_000 / pattern.length));
      const counted = xTextLength(text);
      expect(counted.length).toBeGreaterThan(X_MAX_WEIGHTED_LENGTH);
      expect(counted.exact).toBe(false);
    }
    // Spaced out, the same pattern is counted segment by segment and stops just past the limit.
    const spaced = xTextLength('a.a '.repeat(10_000));
    expect(spaced.exact).toBe(false);
    expect(spaced.length).toBeGreaterThan(X_MAX_WEIGHTED_LENGTH);
    expect(spaced.length).toBeLessThan(X_MAX_WEIGHTED_LENGTH + 10);
  });

  it('long runs that cannot hold a URL are counted exactly, dots and all', () => {
    const longRun = fc
      .tuple(
        fc.array(fc.constantFrom('😀', '👍🏽', '👩‍👩‍👧', '🏳️‍🌈', '.', '..', '!', '1.', '.5', '日', 'e\u0301', '-', '.-', '?', '#1', '@'), { minLength: 150, maxLength: 700 }),
        fc.constantFrom('', 'a ', 'x.com '),
      )
      .map(([parts, prefix]) => prefix + parts.join(''));
    fc.assert(
      fc.property(longRun, (text) => {
        const counted = xTextLength(text);
        expect(counted.length > X_MAX_WEIGHTED_LENGTH).toBe(whole(text) > X_MAX_WEIGHTED_LENGTH);
        if (counted.exact) expect(counted.length).toBe(whole(text));
      }),
      { numRuns: 300 },
    );
    // 139 emoji and a full stop, no space: one run of 1,500+ units, within the limit.
    const cheer = `${'👩‍👩‍👧'.repeat(139)}.`;
    expect(cheer.length).toBeGreaterThan(MAX_PARSED_RUN_UNITS);
    expect(xTextLength(cheer)).toEqual({ length: whole(cheer), exact: true });
    expect(whole(cheer)).toBeLessThanOrEqual(X_MAX_WEIGHTED_LENGTH);
  });

  it('a run longer than MAX_PARSED_RUN_UNITS that may hold a URL is the one deliberate difference', () => {
    const longLink = `https://example.com/${'p'.repeat(MAX_PARSED_RUN_UNITS)}`;
    expect(whole(longLink)).toBe(23);
    expect(xTextLength(longLink)).toMatchObject({ exact: false, longRun: longLink.length });
  });
});
