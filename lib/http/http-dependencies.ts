/**
 * What the API functions need, built once per cold start (on the first request, so importing a
 * function module reads no configuration): the rate limiter with its limits and the clock, which
 * every function counts requests with, and, for the authenticated routes, the directory store and
 * the key authenticator with its in-memory cache. Routes reuse `directory` for their own reads.
 * The unknown-route function authenticates no one, so it builds the counting part alone and needs
 * no directory table name (nor access to it).
 * Tests that need other settings build their own with `buildHttpDependencies(...)` and pass them
 * to apiHandler; nothing here is a mock.
 */
import { ENV, numberEnv } from '../config.js';
import type { RateLimits } from '../domain/rate-windows.js';
import { DEFAULT_RATE_LIMITS, sanitizeLimit } from '../domain/rate-windows.js';
import type { Clock, RateLimiter } from '../ports.js';
import { systemClock } from '../ports.js';
import { DynamoDbDirectoryStore } from '../store/dynamodb-directory-store.js';
import { DynamoDbKeyUseStore } from '../store/dynamodb-key-use-store.js';
import { DynamoDbRateLimiter } from '../store/dynamodb-rate-limiter.js';
import { CallerAuthenticator, MAX_KEY_CACHE_SECONDS } from '../use-cases/authenticate-caller.js';

/** What counting a request against its rate-limit bucket needs: all an anonymous function builds. */
export interface RequestCountingDependencies {
  rateLimiter: RateLimiter;
  clock: Clock;
  limits: RateLimits;
}

export interface HttpDependencies extends RequestCountingDependencies {
  directory: DynamoDbDirectoryStore;
  authenticator: CallerAuthenticator;
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

export function buildRequestCountingDependencies(overrides: Pick<HttpDependencyOverrides, 'clock' | 'limits'> = {}): RequestCountingDependencies {
  const limits = overrides.limits ?? configuredRateLimits();
  return { clock: overrides.clock ?? systemClock, limits, rateLimiter: new DynamoDbRateLimiter({ limits }) };
}

export function buildHttpDependencies(overrides: HttpDependencyOverrides = {}): HttpDependencies {
  return withAuthentication(buildRequestCountingDependencies(overrides), overrides);
}

function withAuthentication(counting: RequestCountingDependencies, overrides: HttpDependencyOverrides): HttpDependencies {
  const directory = overrides.directory ?? new DynamoDbDirectoryStore();
  return {
    ...counting,
    directory,
    authenticator: new CallerAuthenticator({
      keys: directory,
      users: directory,
      clock: counting.clock,
      cacheSeconds: overrides.keyCacheSeconds ?? numberEnv(ENV.apiKeyCacheSeconds, MAX_KEY_CACHE_SECONDS),
      // The counters table, which every authenticated route already writes (rate limits).
      useRecorder: new DynamoDbKeyUseStore(),
    }),
  };
}

let counting: RequestCountingDependencies | undefined;
let shared: HttpDependencies | undefined;

/** The process-wide rate limiter, limits and clock (the unknown-route function builds nothing else). */
export function requestCountingDependencies(): RequestCountingDependencies {
  counting ??= buildRequestCountingDependencies();
  return counting;
}

/** The process-wide dependencies: one key cache and one set of clients for every route of a process. */
export function httpDependencies(): HttpDependencies {
  shared ??= withAuthentication(requestCountingDependencies(), {});
  return shared;
}
