import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeLittleText, parseLittleText, toLittleText, unescapeLittleText } from '../../lib/platforms/linkedin-text.js';
import { linkedinDisplayText, linkedinRendering, linkedinSegments, linkedinSourceText, linkedinTextLength } from '../../lib/domain/linkedin-markup.js';
import { storedCommentary } from '../../local/sandbox/linkedin.js';

/**
 * Texts made of pieces that stress the markup: arbitrary strings (every reserved character among
 * them), real hashtags and mentions, and near misses of both.
 */
const piece = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom(
    '#',
    '#launch',
    ' #Launch2026',
    'C#',
    '#1',
    '##tag',
    '(#tag)',
    '#my_tag',
    '#café',
    '@',
    '@[',
    '](',
    ')',
    '\\',
    '{hashtag|\\#|x}',
    '{hashtag|',
    '@[Ana](urn:li:person:abc_1-Z)',
    '@[Acme Corp](urn:li:organization:1234)',
    '@[Ana](urn:li:group:1)',
    '@[](urn:li:person:1)',
    '@[ ](urn:li:person:1)',
    'urn:li:person:1',
    '\n',
    ' ',
    '🎉',
    '\uD83C',
  ),
);
const text = fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join(''));

describe('LinkedIn little text: hashtags and mentions', () => {
  it('turns #word at a word start into a hashtag and a person or organization mention into a mention', () => {
    expect(toLittleText('#launch with @[Ana](urn:li:person:abc_1) at @[Acme](urn:li:organization:42)')).toBe(
      '{hashtag|\\#|launch} with @[Ana](urn:li:person:abc\\_1) at @[Acme](urn:li:organization:42)',
    );
  });

  it('keeps a # inside a word, a number, an @handle and every other reserved character as text', () => {
    expect(toLittleText('C# and F#, page#2, #1 (a_b) ~x~ <y> *z* @ana')).toBe(
      'C\\# and F\\#, page\\#2, \\#1 \\(a\\_b\\) \\~x\\~ \\<y\\> \\*z\\* \\@ana',
    );
    expect(toLittleText('(#tag) "#quoted"')).toBe('\\({hashtag|\\#|tag}\\) "{hashtag|\\#|quoted}"');
    expect(toLittleText('#my_tag')).toBe('{hashtag|\\#|my}\\_tag');
    expect(toLittleText('@[Ana](urn:li:group:1)')).toBe('\\@\\[Ana\\]\\(urn:li:group:1\\)');
  });

  it('renders: what a reader sees, the hashtags and the mentions', () => {
    expect(linkedinRendering('Hi @[Ana](urn:li:person:1) #launch C#')).toEqual({
      displayText: 'Hi Ana #launch C#',
      hashtags: ['launch'],
      mentions: [{ name: 'Ana', urn: 'urn:li:person:1' }],
    });
    expect(linkedinTextLength('@[Ana](urn:li:person:1)').length).toBe(3);
  });

  it('round-trips any text: what LinkedIn reads from the commentary is exactly what the user wrote', () => {
    fc.assert(
      fc.property(text, (written) => {
        const reading = parseLittleText(toLittleText(written));
        expect(reading.ok).toBe(true);
        if (!reading.ok) return;
        expect(reading.cut).toBe(false);
        expect(linkedinSourceText(reading.segments)).toBe(written);
        expect(reading.segments).toEqual(linkedinSegments(written));
        expect(linkedinDisplayText(reading.segments)).toBe(linkedinRendering(written).displayText);
        expect(storedCommentary(toLittleText(written))).toBe(written);
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips text without markup as the plain escaping did', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (written) => {
        expect(unescapeLittleText(escapeLittleText(written))).toBe(written);
        expect(storedCommentary(toLittleText(written))).toBe(written);
      }),
    );
  });
});

describe('parseLittleText (how LinkedIn reads a commentary)', () => {
  it('reads LinkedIn documented examples', () => {
    expect(parseLittleText('Hello @[Acme Corp](urn:li:organization:1234)')).toEqual({
      ok: true,
      cut: false,
      segments: [
        { kind: 'text', text: 'Hello ' },
        { kind: 'mention', name: 'Acme Corp', urn: 'urn:li:organization:1234' },
      ],
    });
    expect(parseLittleText('the future of {hashtag|#|Technology} and')).toEqual({
      ok: true,
      cut: false,
      segments: [
        { kind: 'text', text: 'the future of ' },
        { kind: 'hashtag', tag: 'Technology' },
        { kind: 'text', text: ' and' },
      ],
    });
  });

  it('cuts at a stray reserved character, silently, as LinkedIn does', () => {
    expect(storedCommentary('cut (here')).toBe('cut ');
    expect(storedCommentary('kept \\(here\\)')).toBe('kept (here)');
  });

  it('refuses an element begun but malformed', () => {
    for (const commentary of ['{hashtag|x|tag}', '{hashtag|\\#|tag', '{hashtag|\\#|}', '@[Ana]', '@[Ana](urn:li:person:1', '@[Ana](urn:li:group:1)', '@[](urn:li:person:1)']) {
      expect(parseLittleText(commentary).ok, commentary).toBe(false);
    }
  });
});
