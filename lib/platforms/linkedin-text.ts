/**
 * LinkedIn's `commentary` is "little text": the characters \ | { } @ [ ] ( ) < > # * _ ~ are
 * markup, and an unescaped one makes LinkedIn accept the post yet silently cut the text at it.
 * So every one of them is escaped with a backslash (a `#tag` then stays plain text rather than
 * becoming a hashtag, which is the safe default: the text goes out exactly as written).
 */
const RESERVED = /[\\|{}@[\]()<>#*_~]/g;

export function escapeLittleText(text: string): string {
  return text.replace(RESERVED, (character) => `\\${character}`);
}

/** The text a reader sees for an escaped commentary (the sandbox uses it to measure and store). */
export function unescapeLittleText(commentary: string): string {
  return commentary.replace(/\\([\\|{}@[\]()<>#*_~])/g, '$1');
}

/** True when every reserved character of the commentary is escaped, i.e. nothing would be cut. */
export function isFullyEscaped(commentary: string): boolean {
  for (let i = 0; i < commentary.length; i++) {
    const character = commentary[i] as string;
    if (character === '\\') {
      const next = commentary[i + 1];
      if (next === undefined || !/[\\|{}@[\]()<>#*_~]/.test(next)) return false;
      i++;
      continue;
    }
    if (/[|{}@[\]()<>#*_~]/.test(character)) return false;
  }
  return true;
}
