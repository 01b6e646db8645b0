/**
 * What a platform adapter (lib/platforms) can report when a call does not succeed. The publish
 * worker decides from the class alone what happens to the post (fail, retry later, check the
 * platform), so each class means exactly one thing. Part of the PlatformPublisher port: no AWS
 * or HTTP import here.
 *
 * None of these ever carries a token: messages are the platform's own words (with any token the
 * adapter knows replaced), and `cause` is either the network error or `{status, body}` of the
 * platform's answer, which never contains our credentials.
 */
import type { PublishablePlatform } from './model.js';

export interface PlatformErrorOptions {
  platform: PublishablePlatform;
  /** HTTP status of the platform's answer; null when no answer came. */
  status?: number | null;
  cause?: unknown;
}

export abstract class PlatformError extends Error {
  abstract readonly code: string;
  readonly platform: PublishablePlatform;
  readonly status: number | null;

  constructor(message: string, options: PlatformErrorOptions) {
    super(message, { cause: options.cause });
    this.platform = options.platform;
    this.status = options.status ?? null;
  }
}

/** The platform answered 4xx and refused the content: `message` is what it said. Final. */
export class PlatformRefusedError extends PlatformError {
  readonly code = 'platform_refused';
  constructor(message: string, options: PlatformErrorOptions) {
    super(message, options);
    this.name = 'PlatformRefusedError';
  }
}

/**
 * The platform no longer serves the API version the service calls it with (LinkedIn: 426
 * NONEXISTENT_VERSION about a year after the version's month). A refusal, final for the post:
 * nothing was created, and nothing will be until the operator moves the version (`setting` says
 * where). Every other refusal handling (deletions, lookups) applies as for any refusal.
 */
export class PlatformVersionRetiredError extends PlatformRefusedError {
  readonly version: string;
  readonly setting: string;
  constructor(message: string, options: PlatformErrorOptions & { version: string; setting: string }) {
    super(message, options);
    this.name = 'PlatformVersionRetiredError';
    this.version = options.version;
    this.setting = options.setting;
  }
}

/** The access token is invalid, expired or revoked (401), or a refresh grant was refused. Final until the user reconnects. */
export class PlatformAuthError extends PlatformError {
  readonly code = 'platform_auth';
  constructor(message: string, options: PlatformErrorOptions) {
    super(message, options);
    this.name = 'PlatformAuthError';
  }
}

/** 429. `resetAt` is when the platform says the window resets (null when it did not say). Retry after it. */
export class PlatformRateLimitedError extends PlatformError {
  readonly code = 'platform_rate_limited';
  readonly resetAt: Date | null;
  constructor(message: string, options: PlatformErrorOptions & { resetAt: Date | null }) {
    super(message, options);
    this.name = 'PlatformRateLimitedError';
    this.resetAt = options.resetAt;
  }
}

/**
 * 5xx, or the connection failed before the request was sent (refused, DNS, connect timeout).
 * Nothing was created by this call, or the platform says it failed: safe to retry.
 */
export class PlatformUnavailableError extends PlatformError {
  readonly code = 'platform_unavailable';
  constructor(message: string, options: PlatformErrorOptions) {
    super(message, options);
    this.name = 'PlatformUnavailableError';
  }
}

/**
 * The create request was sent and no answer came (timeout, connection reset after writing).
 * The post may or may not be live: never resend blindly.
 */
export class PlatformAmbiguousError extends PlatformError {
  readonly code = 'platform_ambiguous';
  constructor(message: string, options: PlatformErrorOptions) {
    super(message, options);
    this.name = 'PlatformAmbiguousError';
  }
}

/**
 * The platform refused the post as a duplicate of one already live (X: 403 "duplicate content").
 * After an earlier attempt whose outcome was unknown this means that attempt went out.
 */
export class PlatformDuplicateError extends PlatformError {
  readonly code = 'platform_duplicate';
  constructor(message: string, options: PlatformErrorOptions) {
    super(message, options);
    this.name = 'PlatformDuplicateError';
  }
}
