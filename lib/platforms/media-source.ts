/**
 * A PlatformMediaSource over bytes already in memory (tests, small files). The publish worker
 * reads from the media bucket instead (lib/store/s3-media-source.ts), range by range.
 */
import type { PlatformMediaSource } from '../use-cases/ports/platform-publisher.js';

export function bytesMediaSource(bytes: Uint8Array, contentType: string, durationSeconds: number | null = null, altText: string | null = null): PlatformMediaSource {
  return {
    contentType,
    sizeBytes: bytes.length,
    durationSeconds,
    altText,
    read: async (range) => (range ? bytes.subarray(range.start, range.end) : bytes),
  };
}
