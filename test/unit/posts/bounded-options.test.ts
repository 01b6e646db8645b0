/**
 * Arrays under `options` are bounded before their JSON types are checked (create-request.ts): a
 * 256 KiB body holds ~80,000 strings, and a poll's `choices` or a thread part's `media` longer than
 * any platform takes is refused by its count, so only the first entries past that count are
 * looked at. The arrays here count the entries read.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/domain/errors.js';
import { checkMedia, checkOptions, MAX_MEDIA_PER_REQUEST } from '../../../lib/domain/create-request.js';
import { checkFormat, X_POLL } from '../../../lib/domain/format-rules.js';

const HUGE = 80_000;

/** An array of `length` copies of `value` that counts the entries read from it. */
function counted(length: number, value: unknown): { array: unknown[]; reads: () => number } {
  let reads = 0;
  const array = new Proxy(Array.from({ length }, () => value), {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^[0-9]+$/.test(key)) reads += 1;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { array, reads: () => reads };
}

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('options arrays are bounded before their types are checked', () => {
  it("a poll's choices: only the first past the most any platform takes are read, and the count refuses it", () => {
    for (const platform of ['x', 'linkedin'] as const) {
      const { array, reads } = counted(HUGE, 'a');
      const poll = platform === 'x' ? { choices: array, durationMinutes: 60 } : { question: 'q?', choices: array, duration: 'ONE_DAY' };
      const options = checkOptions({ [platform]: { poll } });
      expect(reads(), platform).toBeLessThanOrEqual(2 * (X_POLL.maxChoices + 1));
      const problem = checkFormat(
        { platform, accountType: 'personal' } as never,
        { text: 'hi', media: [], options, threadMedia: null } as never,
      );
      expect(problem?.reason).toBe('invalid_poll');
      expect(problem?.message).toMatch(/more than 4/);
    }
  });

  it("a thread part's media: refused by its count before its entries are read", () => {
    const { array, reads } = counted(HUGE, 'https://media.example/x.png');
    const error = refusal(() => checkOptions({ x: { thread: [{ text: 'two', media: array }] } }));
    expect(error.code).toBe('invalid_media');
    expect(error.param).toBe('options.x.thread[0].media');
    expect(error.message).toContain(`lists ${HUGE} files; no platform accepts more than ${MAX_MEDIA_PER_REQUEST}`);
    expect(reads()).toBeLessThanOrEqual(2 * (MAX_MEDIA_PER_REQUEST + 1));
  });

  it("a post's own media: refused by its count before its entries are read", () => {
    const { array, reads } = counted(HUGE, 'https://media.example/x.png');
    const error = refusal(() => checkMedia(array));
    expect(error.code).toBe('invalid_media');
    expect(error.message).toContain(`lists ${HUGE} files`);
    expect(reads()).toBe(0);
  });
});
