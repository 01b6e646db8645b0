/**
 * What every API function needs, built once per cold start (on the first request, so importing a
 * function module reads no configuration): the directory store, the key authenticator with its
 * in-memory cache, the rate limiter and the clock. Routes reuse `directory` for their own reads.
 * Tests that need other settings build their own with `buildHttpDependencies(...)` and pass them
 * to apiHandler; nothing here is a mock.
 */
import { ENV, numberEnv } from '../config.js';
import type { RateLimits } from '../domain/rate-windows.js';
import { DEFAULT_RATE_LIMITS, sanitizeLimit } from '../domain/rate-windows.js';
import type { Clock, RateLimiter } from '../ports.js';
import { systemClock } from '../ports.js';
import { DynamoDbDirectoryStore } from '../store/dynamodb-directory-store.js';
import { DynamoDbRateLimiter } from '../store/dynamodb-rate-limiter.js';
import { CallerAuthenticator, MAX_KEY_CACHE_SECONDS } from '../use-cases/authenticate-caller.js';

export interface HttpDependencies {
  directory: DynamoDbDirectoryStore;
  authenticator: CallerAuthenticator;
  rateLimiter: RateLimiter;
  clock: Clock;
  limits: RateLimits;
}

export interface HttpDependencyOverrides {
  directory?: DynamoDbDirectoryStore;
  clock?: Clock;
  limits?: RateLimits;
  keyCacheSeconds?: number;
}

/**
 * The limits of api-v1.md. RATE_LIMIT_PER_MINUTE / RATE_LIMIT_PER_DAY exist for the local stack
 * only (the bench raises them, tests lower them); the CDK app never sets them.
 */
export function configuredRateLimits(): RateLimits {
  return {
    perMinute: sanitizeLimit(numberEnv(ENV.rateLimitPerMinute, DEFAULT_RATE_LIMITS.perMinute), DEFAULT_RATE_LIMITS.perMinute),
    perDay: sanitizeLimit(numberEnv(ENV.rateLimitPerDay, DEFAULT_RATE_LIMITS.perDay), DEFAULT_RATE_LIMITS.perDay),
  };
}

export function buildHttpDependencies(overrides: HttpDependencyOverrides = {}): HttpDependencies {
  const directory = overrides.directory ?? new DynamoDbDirectoryStore();
  const clock = overrides.clock ?? systemClock;
  const limits = overrides.limits ?? configuredRateLimits();
  return {
    directory,
    clock,
    limits,
    authenticator: new CallerAuthenticator({
      keys: directory,
      users: directory,
      clock,
      cacheSeconds: overrides.keyCacheSeconds ?? numberEnv(ENV.apiKeyCacheSeconds, MAX_KEY_CACHE_SECONDS),
    }),
    rateLimiter: new DynamoDbRateLimiter({ limits }),
  };
}

let shared: HttpDependencies | undefined;

/** The process-wide dependencies: one key cache and one set of clients for every route of a process. */
export function httpDependencies(): HttpDependencies {
  shared ??= buildHttpDependencies();
  return shared;
}
