/**
 * What a LinkedIn text means beyond its characters (beyond-v2.md "Platform fidelity"): a `#word`
 * at a word's start is a hashtag and `@[Name](urn:li:person:…)` / `@[Name](urn:li:organization:…)`
 * a mention; everything else is text, shown exactly as written. Pure, so the per-target rule,
 * the preview and the adapter (lib/platforms/linkedin-text.ts, which writes it as LinkedIn's
 * "little text") agree on one reading. docs/platforms.md says it for users.
 */

export type LinkedinSegment =
  | { kind: 'text'; text: string }
  | { kind: 'hashtag'; tag: string }
  | { kind: 'mention'; name: string; urn: string };

/**
 * A mention as a user writes it. The name may hold no bracket, parenthesis or backslash (nothing
 * that would make its end ambiguous) and no line break; names and ids are bounded so a long run
 * of `@[` costs a bounded look each.
 */
const MENTION = /@\[([^[\]()\\\r\n]{1,100})\]\((urn:li:(?:person|organization):[A-Za-z0-9_-]{1,100})\)/y;
/** LinkedIn hashtags are letters and digits (no `_` or `-`): what follows `#` up to anything else. */
const HASHTAG_BODY = /[\p{L}\p{M}\p{N}]+/uy;
const HAS_LETTER = /\p{L}/u;
/**
 * What may stand right before a hashtag's `#`: nothing (start), a space or an opening bracket or
 * quote. After a letter or digit (`C#`, `page#2`) or any other sign (`/#anchor`, `&#38;`) the `#` is text.
 */
const WORD_START_BEFORE = /[\s([{"'“‘«]/u;

function isWordStart(text: string, index: number): boolean {
  if (index === 0) return true;
  // The code point before: a surrogate pair's low half alone never matches the class, so look at both.
  const before = text.codePointAt(index - 1 >= 1 && /[\uDC00-\uDFFF]/.test(text[index - 1] as string) ? index - 2 : index - 1);
  return before !== undefined && WORD_START_BEFORE.test(String.fromCodePoint(before));
}

/** The hashtag starting at `index` (a `#`), or null when that `#` is plain text. */
function hashtagAt(text: string, index: number): string | null {
  if (!isWordStart(text, index)) return null;
  HASHTAG_BODY.lastIndex = index + 1;
  const match = HASHTAG_BODY.exec(text);
  // `#1` is a number, not a tag: LinkedIn needs a letter in it.
  if (!match || !HAS_LETTER.test(match[0])) return null;
  return match[0];
}

function mentionAt(text: string, index: number): { name: string; urn: string; length: number } | null {
  MENTION.lastIndex = index;
  const match = MENTION.exec(text);
  if (!match || !/\S/.test(match[1] as string)) return null;
  return { name: match[1] as string, urn: match[2] as string, length: match[0].length };
}

/** Reads a user's text into text, hashtags and mentions (adjacent text merged). Linear in the text. */
export function linkedinSegments(text: string): LinkedinSegment[] {
  const segments: LinkedinSegment[] = [];
  let plainFrom = 0;
  const flush = (to: number): void => {
    if (to > plainFrom) segments.push({ kind: 'text', text: text.slice(plainFrom, to) });
  };
  let index = 0;
  while (index < text.length) {
    const character = text[index];
    if (character === '#') {
      const tag = hashtagAt(text, index);
      if (tag !== null) {
        flush(index);
        segments.push({ kind: 'hashtag', tag });
        index += 1 + tag.length;
        plainFrom = index;
        continue;
      }
    } else if (character === '@' && text[index + 1] === '[') {
      const mention = mentionAt(text, index);
      if (mention !== null) {
        flush(index);
        segments.push({ kind: 'mention', name: mention.name, urn: mention.urn });
        index += mention.length;
        plainFrom = index;
        continue;
      }
    }
    index++;
  }
  flush(text.length);
  return segments;
}

/** What a LinkedIn reader sees: the text, `#tag` as a link, a mention as the name it links. */
export function linkedinDisplayText(segments: readonly LinkedinSegment[]): string {
  return segments.map((segment) => (segment.kind === 'text' ? segment.text : segment.kind === 'hashtag' ? `#${segment.tag}` : segment.name)).join('');
}

/** The text a user writes for these segments (the inverse of linkedinSegments). */
export function linkedinSourceText(segments: readonly LinkedinSegment[]): string {
  return segments
    .map((segment) => (segment.kind === 'text' ? segment.text : segment.kind === 'hashtag' ? `#${segment.tag}` : `@[${segment.name}](${segment.urn})`))
    .join('');
}

/** How a LinkedIn text will render, for the preview, settings and the assistant server. */
export interface LinkedinRendering {
  /** What a reader sees (a mention shows its name). */
  displayText: string;
  /** Hashtags in order of appearance, without `#`. */
  hashtags: string[];
  mentions: { name: string; urn: string }[];
}

export function linkedinRendering(text: string): LinkedinRendering {
  const segments = linkedinSegments(text);
  return {
    displayText: linkedinDisplayText(segments),
    hashtags: segments.flatMap((segment) => (segment.kind === 'hashtag' ? [segment.tag] : [])),
    mentions: segments.flatMap((segment) => (segment.kind === 'mention' ? [{ name: segment.name, urn: segment.urn }] : [])),
  };
}

/**
 * A LinkedIn text's length as the limit counts it: UTF-16 code units of what a reader sees (a
 * mention counts its name, not its URN), the stricter of LinkedIn's possible counts.
 */
export function linkedinTextLength(text: string): { length: number; exact: boolean } {
  return { length: linkedinDisplayText(linkedinSegments(text)).length, exact: true };
}
