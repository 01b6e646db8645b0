/**
 * The function bundles resolve @aws-sdk/endpoint-cache to infra/small-endpoint-cache (the same
 * EndpointCache on a Map, without mnemonist's LRU cache; infra/constructs/bundling.ts,
 * BUNDLE_ALIASES). Both are driven through the same random operations, clock held still, and must
 * answer alike at every step: the same endpoints, the same keys kept and evicted.
 */
import { EndpointCache as SdkEndpointCache } from '@aws-sdk/endpoint-cache';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
// @ts-expect-error: a plain JavaScript module with no type declarations, checked here against the SDK's.
import { EndpointCache as SmallEndpointCache } from 'small-endpoint-cache';

type Cache = Pick<SdkEndpointCache, 'get' | 'set' | 'delete' | 'has' | 'clear' | 'getEndpoint'>;

const key = fc.constantFrom('a', 'b', 'c', 'd', 'e');
const endpoints = fc.array(fc.record({ Address: fc.constantFrom('x.example', 'y.example'), CachePeriodInMinutes: fc.constantFrom(0, 2, 5) }), { minLength: 1, maxLength: 2 });
const operation = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('set' as const), key, endpoints }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constantFrom('get' as const, 'getEndpoint' as const), key }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constantFrom('delete' as const, 'has' as const), key }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('clear' as const) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('tick' as const), minutes: fc.constantFrom(0, 1, 3) }), weight: 1 },
);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('small-endpoint-cache', () => {
  it('answers every operation as @aws-sdk/endpoint-cache does (capacity 3, five keys, entries that expire)', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 60 }), (operations) => {
        let now = 1_700_000_000_000;
        vi.spyOn(Date, 'now').mockImplementation(() => now);
        // One address per key at most in what is compared, so the random pick cannot differ.
        vi.spyOn(Math, 'random').mockReturnValue(0);
        const sdk: Cache = new SdkEndpointCache(3);
        const small = new SmallEndpointCache(3) as Cache;
        for (const step of operations) {
          if (step.op === 'tick') {
            now += step.minutes * 60_000;
            continue;
          }
          if (step.op === 'clear') {
            sdk.clear();
            small.clear();
            continue;
          }
          if (step.op === 'set') {
            sdk.set(step.key, step.endpoints);
            small.set(step.key, step.endpoints);
            continue;
          }
          expect(small[step.op](step.key)).toEqual(sdk[step.op](step.key));
        }
        // And the same keys are left, whatever was evicted on the way.
        for (const k of ['a', 'b', 'c', 'd', 'e']) expect(small.has(k)).toBe(sdk.has(k));
      }),
      { numRuns: 1000 },
    );
  });
});
