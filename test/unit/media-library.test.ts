import { describe, expect, it } from 'vitest';
import { guessContentType, isContentType, mediaIdFromUrl, mediaObjectKey, mediaUrl, safeFileName } from '../../lib/domain/media-library.js';
import { mp4DurationSeconds } from '../../lib/domain/mp4-duration.js';

describe('safeFileName', () => {
  it.each([
    ['photo.jpg', 'photo.jpg'],
    ['My Holiday (1).JPG', 'My-Holiday-1-.JPG'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\me\\clip.mp4', 'clip.mp4'],
    ['.hidden', 'hidden'],
    ['été 🎉.png', 't-.png'],
    ['', 'file'],
    ['///', 'file'],
  ])('%j becomes %j', (input, expected) => {
    expect(safeFileName(input)).toBe(expected);
  });

  it('cuts overlong names from the stem and keeps the extension', () => {
    const safe = safeFileName(`${'a'.repeat(300)}.jpeg`);
    expect(safe).toHaveLength(100);
    expect(safe.endsWith('.jpeg')).toBe(true);
  });
});

describe('media URLs', () => {
  it('puts a file under <userId>/<mediaId>/<name> and reads the media id back', () => {
    const key = mediaObjectKey('usr_1', 'med_2', 'a b.png');
    expect(key).toBe('usr_1/med_2/a-b.png');
    const url = mediaUrl('http://localhost:4566/media/', key);
    expect(url).toBe('http://localhost:4566/media/usr_1/med_2/a-b.png');
    expect(mediaIdFromUrl(url, 'http://localhost:4566/media')).toBe('med_2');
  });

  it('reads no media id from a URL not hosted here', () => {
    const base = 'https://media.example.com';
    expect(mediaIdFromUrl('https://evil.example.com/usr_1/med_2/a.png', base)).toBeNull();
    expect(mediaIdFromUrl('https://media.example.com.evil.com/usr_1/med_2/a.png', base)).toBeNull();
    expect(mediaIdFromUrl(`${base}/usr_1/a.png`, base)).toBeNull();
    expect(mediaIdFromUrl(`${base}/usr_1//a.png`, base)).toBeNull();
  });
});

describe('content types', () => {
  it('guesses from the extension, ignoring case', () => {
    expect(guessContentType('a.JPG')).toBe('image/jpeg');
    expect(guessContentType('clip.mp4')).toBe('video/mp4');
    expect(guessContentType('noext')).toBeNull();
    expect(guessContentType('a.xyz')).toBeNull();
  });

  it('checks the shape of a given content type', () => {
    expect(isContentType('image/png')).toBe(true);
    expect(isContentType('image')).toBe(false);
    expect(isContentType('image/png; charset=x')).toBe(false);
  });
});

function box(type: string, ...children: Buffer[]): Buffer {
  const body = Buffer.concat(children);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

function mvhd(version: 0 | 1, timescale: number, duration: number): Buffer {
  const body = Buffer.alloc(version === 1 ? 32 + 80 : 20 + 80);
  body.writeUInt8(version, 0);
  if (version === 1) {
    body.writeUInt32BE(timescale, 20);
    body.writeBigUInt64BE(BigInt(duration), 24);
  } else {
    body.writeUInt32BE(timescale, 12);
    body.writeUInt32BE(duration, 16);
  }
  return box('mvhd', body);
}

describe('mp4DurationSeconds', () => {
  const ftyp = box('ftyp', Buffer.from('isom\0\0\0\0isommp42', 'latin1'));

  it('reads a version 0 movie header', () => {
    const file = Buffer.concat([ftyp, box('free'), box('moov', mvhd(0, 1000, 141_500))]);
    expect(mp4DurationSeconds(file)).toBe(141.5);
  });

  it('reads a version 1 movie header', () => {
    const file = Buffer.concat([ftyp, box('moov', box('trak'), mvhd(1, 90_000, 90_000 * 30))]);
    expect(mp4DurationSeconds(file)).toBe(30);
  });

  it('gives null for a file that is not an MP4 or is cut short', () => {
    expect(mp4DurationSeconds(Buffer.from('not a video at all'))).toBeNull();
    expect(mp4DurationSeconds(Buffer.concat([ftyp, box('mdat', Buffer.alloc(16))]))).toBeNull();
    const whole = Buffer.concat([ftyp, box('moov', mvhd(0, 1000, 5000))]);
    expect(mp4DurationSeconds(whole.subarray(0, whole.length - 10))).toBeNull();
    expect(mp4DurationSeconds(Buffer.concat([ftyp, box('moov', mvhd(0, 0, 5000))]))).toBeNull();
  });
});
