import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeLittleText, isFullyEscaped, unescapeLittleText } from '../../lib/platforms/linkedin-text.js';
import { storedCommentary } from '../../local/sandbox/linkedin.js';

describe('escapeLittleText (LinkedIn commentary)', () => {
  it('escapes every reserved character with a backslash', () => {
    expect(escapeLittleText('\\|{}@[]()<>#*_~')).toBe('\\\\\\|\\{\\}\\@\\[\\]\\(\\)\\<\\>\\#\\*\\_\\~');
  });

  it('leaves everything else as it is', () => {
    expect(escapeLittleText('Plain text, with punctuation! 100% & émojis 🎉\nnew line')).toBe('Plain text, with punctuation! 100% & émojis 🎉\nnew line');
  });

  it('turns a hashtag and a mention into plain text', () => {
    expect(escapeLittleText('#launch with @ana')).toBe('\\#launch with \\@ana');
  });

  it('never loses text: for any string, what LinkedIn keeps of the escaped commentary is the string itself', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const commentary = escapeLittleText(text);
        expect(isFullyEscaped(commentary)).toBe(true);
        expect(unescapeLittleText(commentary)).toBe(text);
        expect(storedCommentary(commentary)).toBe(text);
      }),
    );
  });

  it('an unescaped reserved character is detected (what would be cut)', () => {
    expect(isFullyEscaped('cut (here')).toBe(false);
    expect(storedCommentary('cut (here')).toBe('cut ');
    expect(storedCommentary('kept \\(here\\)')).toBe('kept (here)');
  });
});
