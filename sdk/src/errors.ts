/**
 * Typed errors, one class per error `type` of the API (as stripe-node has one per Stripe type), so
 * a caller branches with `instanceof` and reads the stable `code`, never the `message`.
 */
import type { components } from './generated/openapi.js';

/** The `type` values an API error body can carry (openapi.yaml `ErrorDetail.type`). */
export type ApiErrorType = components['schemas']['ErrorDetail']['type'];
type PostResult = components['schemas']['PostResult'];

/** Everything this package throws on purpose extends this class. */
export class SocialPublishingError extends Error {
  /** The API's error type, or `connection_error` / `wait_for_outcome_error` / `webhook_verification_error` for the SDK's own. */
  readonly type: string;
  /** The stable identifier to branch on (`post_not_found`, `rate_limit_burst`, `timeout`, ...). */
  readonly code: string;
  /** The offending field when the API names one (`limit`, `scheduledFor`, `options.x.communityId`). */
  readonly param: string | null;
  /** The HTTP status, when a response came. */
  readonly status: number | undefined;
  /** The API Gateway request id of the response, when it has one: quote it when asking for support. */
  readonly requestId: string | undefined;
  /** The response headers, when a response came. */
  readonly headers: Headers | undefined;
  /** The parsed response body (or its text when it was not JSON), when a response came. */
  readonly raw: unknown;

  constructor(init: {
    type: string;
    code: string;
    message: string;
    param?: string | null;
    status?: number;
    headers?: Headers;
    raw?: unknown;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.type = init.type;
    this.code = init.code;
    this.param = init.param ?? null;
    this.status = init.status;
    this.headers = init.headers;
    this.requestId = init.headers ? requestIdOf(init.headers) : undefined;
    this.raw = init.raw;
  }
}

/** 401: the key is missing, malformed, unknown or revoked. */
export class AuthenticationError extends SocialPublishingError {}
/** 403: the key lacks the scope, or the account has no active subscription. */
export class PermissionError extends SocialPublishingError {}
/** 400, 404, 409, 422: something in the request is wrong. */
export class InvalidRequestError extends SocialPublishingError {
  /** On a create where no target was accepted: what happened to each target (its `reason`). */
  readonly posts: PostResult[] | undefined;
  constructor(init: ConstructorParameters<typeof SocialPublishingError>[0] & { posts?: PostResult[] }) {
    super(init);
    this.posts = init.posts;
  }
}
/** 429: a rate limit was reached (and the SDK's retries did not get past it). */
export class RateLimitError extends SocialPublishingError {
  /** The `Retry-After` of the response, in seconds, when it had one. */
  readonly retryAfterSeconds: number | undefined;
  constructor(init: ConstructorParameters<typeof SocialPublishingError>[0]) {
    super(init);
    const header = init.headers?.get('retry-after');
    this.retryAfterSeconds = header != null && /^\d+$/.test(header) ? Number(header) : undefined;
  }
}
/** 5xx, or a response the SDK could not read: a server-side failure. */
export class ApiError extends SocialPublishingError {}
/** No response: the connection failed or the request timed out (code `connection_failed` or `timeout`). */
export class ConnectionError extends SocialPublishingError {}
/** `waitForOutcome` gave up: code `wait_timeout` (still scheduled at the deadline) or `post_is_draft` (a draft never goes out). */
export class WaitForOutcomeError extends SocialPublishingError {
  /** The post as last read. */
  readonly post: components['schemas']['Post'];
  constructor(code: 'wait_timeout' | 'post_is_draft', message: string, post: components['schemas']['Post']) {
    super({ type: 'wait_for_outcome_error', code, message });
    this.post = post;
  }
}
/** `media.waitUntilSettled` (and `media.import`) ended without a settled media: it waits for its bytes, or the wait ran out. */
export class MediaWaitError extends SocialPublishingError {
  /** The media as last read. */
  readonly media: components['schemas']['Media'];
  constructor(code: 'wait_timeout' | 'media_is_pending', message: string, media: components['schemas']['Media']) {
    super({ type: 'wait_for_outcome_error', code, message });
    this.media = media;
  }
}

/** A webhook delivery that does not verify: do not act on it (answer 400). */
export class WebhookVerificationError extends SocialPublishingError {
  constructor(code: 'missing_header' | 'invalid_timestamp' | 'timestamp_out_of_tolerance' | 'no_matching_signature' | 'invalid_secret' | 'invalid_payload', message: string) {
    super({ type: 'webhook_verification_error', code, message });
  }
}

const ERROR_CLASSES: Record<ApiErrorType, typeof SocialPublishingError> = {
  authentication_error: AuthenticationError,
  permission_error: PermissionError,
  invalid_request_error: InvalidRequestError,
  rate_limit_error: RateLimitError,
  api_error: ApiError,
};

/** When the body is not the API's error shape (a proxy's HTML, say), the status decides. */
function typeForStatus(status: number): ApiErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

function isApiErrorType(value: unknown): value is ApiErrorType {
  return typeof value === 'string' && Object.hasOwn(ERROR_CLASSES, value);
}

/** The typed error for a response that was not a success. */
export function errorFromResponse(status: number, headers: Headers, text: string): SocialPublishingError {
  let raw: unknown = text;
  try {
    raw = JSON.parse(text);
  } catch {
    // Not JSON (a gateway's or proxy's page): the status decides the class below.
  }
  const detail = typeof raw === 'object' && raw !== null && 'error' in raw ? (raw as { error: unknown }).error : undefined;
  const fields = typeof detail === 'object' && detail !== null ? (detail as Record<string, unknown>) : {};
  const type = isApiErrorType(fields.type) ? fields.type : typeForStatus(status);
  const init = {
    type,
    code: typeof fields.code === 'string' ? fields.code : `http_${status}`,
    message: typeof fields.message === 'string' ? fields.message : `The API answered ${status} with a body that is not an API error.`,
    param: typeof fields.param === 'string' ? fields.param : null,
    status,
    headers,
    raw,
  };
  if (type === 'invalid_request_error') {
    const posts = typeof raw === 'object' && raw !== null && 'posts' in raw && Array.isArray(raw.posts) ? (raw.posts as PostResult[]) : undefined;
    return new InvalidRequestError({ ...init, posts });
  }
  return new ERROR_CLASSES[type](init);
}

/** API Gateway's HTTP API names every response with `apigw-requestid` (the local stack too). */
function requestIdOf(headers: Headers): string | undefined {
  return headers.get('apigw-requestid') ?? headers.get('x-amzn-requestid') ?? headers.get('x-request-id') ?? undefined;
}
