/**
 * X's weighted text length (decisions.md "Per-platform rules": 280 as counted by twitter-text),
 * computed with a bounded amount of work whatever the text.
 *
 * Why not simply `parseTweet(text)`: its URL extractor runs a backtracking regex from
 * every position of a run of domain-like characters, so some short repeating patterns cost time
 * quadratic in the run's length ("a.a.a.…", "www.www.…", "ab-cd.ab-cd.…": ~20 ms for 4 KB, seconds
 * for 40 KB, minutes near the 256 KiB body limit). bench/text-rules.ts shows the worst cases.
 *
 * How the work is bounded, while the count stays exactly twitter-text's:
 *
 * 1. The text is cut into SEGMENTS, each a run without white space followed by its white space.
 *    twitter-text's weight is a sum over the text: a URL counts 23, an emoji 2, any other code point
 *    1 or 2. None of these spans white space (a URL, an emoji sequence and a code point contain
 *    none), and a URL's only look-behind is the one character before it. That character is given
 *    back: each segment is parsed with the white space character before it, whose own weight is
 *    then taken off (the start of a string is NOT the same as white space to twitter-text: at the
 *    start, a leading "é" or combining mark is taken as the URL's preceding character, after a
 *    space it is part of the URL). So the weight of the text is the sum of its segments' weights:
 *    test/unit/posts/x-text-length.test.ts checks this against parseTweet on the whole text.
 * 2. Segments are counted in order and counting STOPS as soon as the sum is over the limit: every
 *    segment weighs at least 1, so the result is already decided, and the message says "more
 *    than". A text too long for X costs at most one segment past the limit.
 * 3. A run longer than any run within the limit can be (280 * MAX_UNITS_PER_WEIGHT) is over the
 *    limit without parsing.
 * 4. twitter-text's URL extraction, the quadratic part, only matters where a URL is possible: a
 *    `.` followed by one of its top-level domains (URL_ANCHOR). A run without one holds no URL, so
 *    every `.` in it is counted as the `,` it weighs the same as: twitter-text then finds no `.`
 *    and skips URL extraction, and what is left (emoji and code points) is linear. A run with one
 *    is parsed as it is when it is short (MAX_PARSED_RUN_UNITS); a longer one can only be within
 *    the limit if one link covers almost all of it, i.e. a link longer than ~500 characters without
 *    a space, and such a text is refused as too long without parsing: the one place where this
 *    count can differ from twitter-text's, chosen deliberately (see docs/api.md, "What one request
 *    may cost").
 * 5. The last text counted is remembered: one `text` for 25 targets is counted once.
 *
 * With these, the worst text costs about one 512-unit parse of the slowest pattern (~1-3 ms) plus
 * linear work on at most ~2,240 units, and a create with 25 distinct texts stays within ~50 ms
 * (bench/text-rules.ts).
 */
// twitter-text's own files, one by one (types: twitter-text-modules.d.ts): the package's index
// brings every extractor and auto-linker, 36 kB more in a bundle that needs only these.
import parseTweet from 'twitter-text/dist/parseTweet.js';
import validCCTLD from 'twitter-text/dist/regexp/validCCTLD.js';
import validGTLD from 'twitter-text/dist/regexp/validGTLD.js';
import validPunycode from 'twitter-text/dist/regexp/validPunycode.js';

export const X_MAX_WEIGHTED_LENGTH = 280;

/**
 * The longest run without white space that may hold a URL and still be parsed. Quadratic work on
 * 512 units of the slowest pattern (right-to-left letters) is ~2.5 ms; a link of up to 512
 * characters (with the punctuation around it) is counted exactly, as 23.
 */
export const MAX_PARSED_RUN_UNITS = 512;

/**
 * In a run that can hold no URL, every weighted character is an emoji sequence (weight 2;
 * twemoji-parser's pattern has no repetition and its longest sequences, the tag flags, are 14
 * UTF-16 units) or one code point (weight 1 or 2, at most 2 units): at most 8 units per weight. A
 * run longer than 280 * 8 units is over the limit whatever it holds, and is refused without
 * parsing (parsing is linear there, but 256 KiB of emoji is ~100 ms).
 */
export const MAX_UNITS_PER_WEIGHT = 8;

export interface XTextLength {
  /** The weighted length, or (when `exact` is false) a lower bound already over the limit. */
  length: number;
  exact: boolean;
  /** Set when counting stopped at a long run that may hold a URL (see 4), with its length. */
  longRun?: number;
}

/**
 * White space where a segment may end: JavaScript's `\s` without U+FEFF, because twitter-text
 * counts U+FEFF as an invalid character that forbids a URL right after it, unlike white space.
 */
const SPACE = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
/** Maximal run of non-white-space followed by its white space (the last may have none). */
const SEGMENT = new RegExp(`([^${SPACE}]*)[${SPACE}]*`, 'gu');

/**
 * Where a URL could end its domain: twitter-text finds a URL only where a `.` is followed by a
 * top-level domain of its own list (or `xn--` punycode), so a run without such a place holds no
 * URL. Built from twitter-text's own TLD patterns, with its flags, so the two lists cannot drift.
 */
const URL_ANCHOR = new RegExp(`\\.(?:${validGTLD.source}|${validCCTLD.source}|${validPunycode.source})`, 'i');

/** The last text counted: the same text for 25 targets is counted once. */
let last: { text: string; limit: number; result: XTextLength } | undefined;

/**
 * `limit`: the account's (280, or 25,000 for X Premium: target-rules.ts textLimitFor); counting
 * stops past it, so work stays bounded by the limit rather than by the text.
 */
export function xTextLength(text: string, limit: number = X_MAX_WEIGHTED_LENGTH): XTextLength {
  if (last?.text === text && last.limit === limit) return last.result;
  const result = count(text, limit);
  last = { text, limit, result };
  return result;
}

function count(text: string, limit: number): XTextLength {
  const normalized = text.normalize('NFC');
  let total = 0;
  // The white space just before the current segment ('' at the start of the text).
  let before = '';
  SEGMENT.lastIndex = 0;
  for (let match = SEGMENT.exec(normalized); match !== null && match[0] !== ''; match = SEGMENT.exec(normalized)) {
    const segment = match[0];
    const run = match[1] ?? '';
    if (run.length > limit * MAX_UNITS_PER_WEIGHT) {
      // Over the limit either way (see 3): a link is at most MAX_PARSED_RUN_UNITS here, and without
      // one the run weighs at least its length / MAX_UNITS_PER_WEIGHT.
      const lowerBound = Math.max(total + Math.ceil(run.length / MAX_UNITS_PER_WEIGHT), limit + 1);
      // The message names the long run when it could be meant as a link (it has a dot).
      return run.includes('.') ? { length: lowerBound, exact: false, longRun: run.length } : { length: lowerBound, exact: false };
    }
    let counted = segment;
    if (!URL_ANCHOR.test(run)) {
      // No URL can be in this run: see 4.
      counted = segment.replaceAll('.', ',');
    } else if (run.length > MAX_PARSED_RUN_UNITS) {
      // At least the segment's code points outside one link, and more than the limit either way.
      return { length: Math.max(total + 1, limit + 1), exact: false, longRun: run.length };
    }
    // Parsed with the white space before it, then that character's own weight taken off: see 1.
    total += parseTweet(before + counted).weightedLength - (before === '' ? 0 : parseTweet(before).weightedLength);
    if (total > limit) {
      const exact = SEGMENT.lastIndex >= normalized.length;
      return { length: total, exact };
    }
    before = segment.slice(run.length).slice(-1);
  }
  return { length: total, exact: true };
}
