/**
 * The adapters of the HTTP pipeline every API function shares (lib/http/api-handler.ts): the rate
 * limiter with its limits, which every function counts requests with (counters table), and, for
 * the authenticated routes, the key authenticator with its in-memory cache (API keys and users of
 * the directory table). The unknown-route function authenticates no one: it builds the counting
 * part alone and needs no directory table name (nor access to it).
 */
import { ENV, numberEnv } from '../config.js';
import type { RateLimits } from '../domain/rate-windows.js';
import { DEFAULT_RATE_LIMITS, sanitizeLimit } from '../domain/rate-windows.js';
import { DirectoryTable } from '../store/directory-table.js';
import { DynamoDbApiKeyStore } from '../store/dynamodb-api-key-store.js';
import { DynamoDbKeyUseStore } from '../store/dynamodb-key-use-store.js';
import { DynamoDbRateLimiter } from '../store/dynamodb-rate-limiter.js';
import { DynamoDbUserStore } from '../store/dynamodb-user-store.js';
import { CallerAuthenticator, MAX_KEY_CACHE_SECONDS } from '../use-cases/authenticate-caller.js';
import { systemClock } from '../use-cases/ports/clock.js';
import type { RateLimiter } from '../use-cases/ports/rate-limiter.js';

/** What counting a request against its rate-limit bucket needs: all an anonymous function builds. */
export interface RequestCounting {
  rateLimiter: RateLimiter;
  limits: RateLimits;
}

export interface AuthenticatedPipeline extends RequestCounting {
  authenticator: CallerAuthenticator;
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

export function requestCounting(): RequestCounting {
  const limits = configuredRateLimits();
  return { limits, rateLimiter: new DynamoDbRateLimiter({ limits }) };
}

/** Counting and authentication; `directory` lets a route's own stores share the table handle. */
export function authenticatedPipeline(directory: DirectoryTable = new DirectoryTable()): AuthenticatedPipeline {
  return {
    ...requestCounting(),
    authenticator: new CallerAuthenticator({
      keys: new DynamoDbApiKeyStore(directory),
      users: new DynamoDbUserStore(directory),
      clock: systemClock,
      cacheSeconds: numberEnv(ENV.apiKeyCacheSeconds, MAX_KEY_CACHE_SECONDS),
      // "Last used" for the settings keys page, in the counters table every authenticated route already writes.
      useRecorder: new DynamoDbKeyUseStore(),
    }),
  };
}
