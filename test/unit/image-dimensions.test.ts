/** An image's width and height from its header (lib/domain/image-dimensions.ts), with ranged reads only. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IMAGE_WINDOW_BYTES, imageDimensions } from '../../lib/domain/image-dimensions.js';

function reader(bytes: Uint8Array) {
  const reads: Array<[number, number]> = [];
  return { reads, read: async (start: number, end: number) => (reads.push([start, end]), bytes.subarray(start, end)) };
}

function png(width: number, height: number): Buffer {
  const head = Buffer.alloc(33);
  Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').copy(head, 0);
  head.writeUInt32BE(width, 16);
  head.writeUInt32BE(height, 20);
  return head;
}

/** A JPEG whose frame follows `segments` APP segments of `segmentBytes` each. */
function jpeg(width: number, height: number, segments: number, segmentBytes: number): Buffer {
  const parts = [Buffer.from([0xff, 0xd8])];
  for (let index = 0; index < segments; index++) {
    const segment = Buffer.alloc(2 + segmentBytes);
    segment.writeUInt16BE(0xffe1, 0);
    segment.writeUInt16BE(segmentBytes, 2);
    parts.push(segment.subarray(0, 2 + segmentBytes));
  }
  const sof = Buffer.from([0xff, 0xc2, 0x00, 0x0b, 0x08, 0, 0, 0, 0, 0x01, 0x01, 0x11, 0x00]);
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  parts.push(sof, Buffer.from([0xff, 0xd9]));
  return Buffer.concat(parts);
}

describe('imageDimensions', () => {
  it('reads PNG, GIF and the three WebP headers', async () => {
    expect(await imageDimensions(reader(png(640, 480)).read, 33, 'image/png')).toEqual({ width: 640, height: 480 });
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([0x20, 0x03, 0x58, 0x02]), Buffer.alloc(20)]);
    expect(await imageDimensions(reader(gif).read, gif.length, 'image/gif')).toEqual({ width: 800, height: 600 });
    const webp = (chunk: string, fill: (b: Buffer) => void) => {
      const b = Buffer.alloc(40);
      b.write('RIFF', 0, 'latin1');
      b.write('WEBP', 8, 'latin1');
      b.write(chunk, 12, 'latin1');
      fill(b);
      return b;
    };
    const lossy = webp('VP8 ', (b) => (b.writeUInt16LE(300, 26), b.writeUInt16LE(200, 28)));
    expect(await imageDimensions(reader(lossy).read, 40, 'image/webp')).toEqual({ width: 300, height: 200 });
    const extended = webp('VP8X', (b) => (b.writeUIntLE(1023, 24, 3), b.writeUIntLE(767, 27, 3)));
    expect(await imageDimensions(reader(extended).read, 40, 'image/webp')).toEqual({ width: 1024, height: 768 });
    // VP8L: 14 bits each, minus one: 100 x 50.
    const bits = 99 | (49 << 14);
    const lossless = webp('VP8L', (b) => (b[20] = 0x2f, b.writeUInt32LE(bits, 21)));
    expect(await imageDimensions(reader(lossless).read, 40, 'image/webp')).toEqual({ width: 100, height: 50 });
  });

  it('finds a JPEG\'s frame past segments of any length, reading a window at a time', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 2, max: 65_535 }), async (width, height, segments, size) => {
        const bytes = jpeg(width, height, segments, size);
        const { read, reads } = reader(bytes);
        expect(await imageDimensions(read, bytes.length, 'image/jpeg')).toEqual({ width, height });
        expect(reads.every(([start, end]) => end - start <= IMAGE_WINDOW_BYTES)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('gives up (null) on a header that is not one, and bounds its reads on a hostile JPEG', async () => {
    expect(await imageDimensions(reader(Buffer.from('89504e470d0a1a0a', 'hex')).read, 8, 'image/png')).toBeNull();
    expect(await imageDimensions(reader(png(0, 10)).read, 33, 'image/png')).toBeNull();
    const endless = jpeg(10, 10, 40, 65_535);
    const { read, reads } = reader(endless);
    expect(await imageDimensions(read, endless.length, 'image/jpeg')).toBeNull();
    expect(reads.length).toBeLessThanOrEqual(16);
    const noFrame = Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x02, 0, 0, 0, 0, 0xff, 0xd9]);
    expect(await imageDimensions(reader(noFrame).read, noFrame.length, 'image/jpeg')).toBeNull();
  });
});
