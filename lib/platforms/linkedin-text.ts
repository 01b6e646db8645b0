/**
 * LinkedIn's `commentary` is "little text" (LinkedIn's "little Text Format" page, cited in
 * docs/platforms.md): the characters \ | { } @ [ ] ( ) < > # * _ ~ are markup, every one of them
 * must be escaped with a backslash to be text, and an unescaped one makes LinkedIn accept the post
 * yet silently cut the text at it. Two elements are written on purpose: a hashtag as the
 * HashtagTemplate `{hashtag|\#|word}` and a mention as `@[Name](urn:li:person:…)` (or an
 * organization's URN). Which parts of a user's text are which is decided once, in
 * lib/domain/linkedin-markup.ts; everything else is escaped, so it goes out exactly as written.
 *
 * `parseLittleText` reads a commentary as LinkedIn does (the sandbox platform and the adapter's
 * look-up of an unknown outcome use it): escapes, the two elements, a cut at a stray reserved
 * character, and a refusal of an element begun but malformed.
 */
import { linkedinSegments, type LinkedinSegment } from '../domain/linkedin-markup.js';

const RESERVED_CLASS = '\\\\|{}@[\\]()<>#*_~';
const RESERVED = new RegExp(`[${RESERVED_CLASS}]`, 'g');
const IS_RESERVED = new RegExp(`^[${RESERVED_CLASS}]$`);

/** Every reserved character escaped: the text stays text (comments, which carry no elements). */
export function escapeLittleText(text: string): string {
  return text.replace(RESERVED, (character) => `\\${character}`);
}

/** The text a reader sees for an escaped commentary. */
export function unescapeLittleText(commentary: string): string {
  return commentary.replace(new RegExp(`\\\\([${RESERVED_CLASS}])`, 'g'), '$1');
}

/** The commentary for segments: hashtags and mentions as elements, all other text escaped. */
export function littleTextOf(segments: readonly LinkedinSegment[]): string {
  return segments
    .map((segment) => {
      if (segment.kind === 'text') return escapeLittleText(segment.text);
      if (segment.kind === 'hashtag') return `{hashtag|\\#|${escapeLittleText(segment.tag)}}`;
      return `@[${escapeLittleText(segment.name)}](${escapeLittleText(segment.urn)})`;
    })
    .join('');
}

/** A user's text as LinkedIn commentary: `#word` a hashtag, `@[Name](urn)` a mention, the rest as written. */
export function toLittleText(text: string): string {
  return littleTextOf(linkedinSegments(text));
}

export type LittleTextReading =
  | {
      ok: true;
      segments: LinkedinSegment[];
      /** True when a stray reserved character made LinkedIn drop the rest of the text (segments end there). */
      cut: boolean;
    }
  | { ok: false; message: string };

const MENTION_URN = /^urn:li:(?:person|organization):[A-Za-z0-9_-]+$/;

/**
 * Reads escaped text from `from` until one of `stops` (unescaped) or a stray reserved character.
 * A backslash before a character that is not reserved stands for itself.
 */
function readEscaped(commentary: string, from: number, stops: string): { text: string; end: number } {
  let text = '';
  let index = from;
  while (index < commentary.length) {
    const character = commentary[index] as string;
    if (character === '\\') {
      const next = commentary[index + 1];
      if (next !== undefined && IS_RESERVED.test(next)) {
        text += next;
        index += 2;
        continue;
      }
      text += character;
      index++;
      continue;
    }
    if (stops.includes(character) || IS_RESERVED.test(character)) break;
    text += character;
    index++;
  }
  return { text, end: index };
}

/** LinkedIn's reading of a commentary: its segments, or why LinkedIn refuses it. */
export function parseLittleText(commentary: string): LittleTextReading {
  const segments: LinkedinSegment[] = [];
  const pushText = (text: string): void => {
    if (text === '') return;
    const last = segments[segments.length - 1];
    if (last?.kind === 'text') last.text += text;
    else segments.push({ kind: 'text', text });
  };
  let index = 0;
  while (index < commentary.length) {
    const plain = readEscaped(commentary, index, '');
    pushText(plain.text);
    index = plain.end;
    if (index >= commentary.length) break;
    // An unescaped reserved character: an element, or the point LinkedIn cuts at.
    if (commentary.startsWith('{hashtag|', index)) {
      const sign = /^(?:\\#|#|＃)\|/.exec(commentary.slice(index + 9, index + 12));
      if (!sign) return { ok: false, message: `the hashtag template at ${index} needs a hashtag sign (# or ＃) and a |` };
      const value = readEscaped(commentary, index + 9 + sign[0].length, '}');
      if (commentary[value.end] !== '}') return { ok: false, message: `the hashtag template at ${index} is not closed with }` };
      if (value.text.trim() === '') return { ok: false, message: `the hashtag template at ${index} has no hashtag value` };
      segments.push({ kind: 'hashtag', tag: value.text });
      index = value.end + 1;
      continue;
    }
    if (commentary.startsWith('@[', index)) {
      const name = readEscaped(commentary, index + 2, ']');
      if (commentary[name.end] !== ']' || commentary[name.end + 1] !== '(') return { ok: false, message: `the mention at ${index} must be @[name](urn)` };
      const urn = readEscaped(commentary, name.end + 2, ')');
      if (commentary[urn.end] !== ')') return { ok: false, message: `the mention at ${index} is not closed with )` };
      if (name.text.trim() === '') return { ok: false, message: `the mention at ${index} has no name` };
      if (!MENTION_URN.test(urn.text)) return { ok: false, message: `"${urn.text}" is not a person or organization URN that can be mentioned` };
      segments.push({ kind: 'mention', name: name.text, urn: urn.text });
      index = urn.end + 1;
      continue;
    }
    return { ok: true, segments, cut: true };
  }
  return { ok: true, segments, cut: false };
}
