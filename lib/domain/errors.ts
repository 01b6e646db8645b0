/**
 * Every failure the API reports, with the `type`, `code` and HTTP status of api-v1.md's Errors
 * section. Use cases throw these; the one error middleware (lib/http/error-handler.ts) turns
 * them into `{error: {type, code, message, param}}`. Anything that is not an ApiError becomes a
 * generic 500 with nothing internal in the body.
 */
export type ErrorType =
  | 'authentication_error'
  | 'permission_error'
  | 'invalid_request_error'
  | 'rate_limit_error'
  | 'api_error';

export const ERROR_CODES = {
  api_key_missing: { type: 'authentication_error', status: 401 },
  api_key_malformed: { type: 'authentication_error', status: 401 },
  api_key_unknown: { type: 'authentication_error', status: 401 },
  api_key_revoked: { type: 'authentication_error', status: 401 },
  insufficient_scope: { type: 'permission_error', status: 403 },
  subscription_inactive: { type: 'permission_error', status: 403 },
  invalid_body: { type: 'invalid_request_error', status: 400 },
  accounts_required: { type: 'invalid_request_error', status: 400 },
  too_many_accounts: { type: 'invalid_request_error', status: 400 },
  invalid_text: { type: 'invalid_request_error', status: 400 },
  invalid_texts: { type: 'invalid_request_error', status: 400 },
  invalid_media: { type: 'invalid_request_error', status: 400 },
  media_not_hosted: { type: 'invalid_request_error', status: 400 },
  invalid_scheduled_for: { type: 'invalid_request_error', status: 400 },
  scheduled_for_in_past: { type: 'invalid_request_error', status: 400 },
  scheduled_for_too_far: { type: 'invalid_request_error', status: 400 },
  workspace_required: { type: 'invalid_request_error', status: 400 },
  workspace_not_found: { type: 'invalid_request_error', status: 400 },
  invalid_option: { type: 'invalid_request_error', status: 400 },
  no_targets_accepted: { type: 'invalid_request_error', status: 400 },
  invalid_status: { type: 'invalid_request_error', status: 400 },
  invalid_limit: { type: 'invalid_request_error', status: 400 },
  invalid_cursor: { type: 'invalid_request_error', status: 400 },
  // Not in api-v1.md's table: query filters of GET /accounts and unknown routes need a code too.
  invalid_query: { type: 'invalid_request_error', status: 400 },
  route_not_found: { type: 'invalid_request_error', status: 404 },
  method_not_allowed: { type: 'invalid_request_error', status: 405 },
  // Not in api-v1.md's table: an Idempotency-Key header that cannot be a key (empty, too long, not printable).
  invalid_idempotency_key: { type: 'invalid_request_error', status: 400 },
  post_not_found: { type: 'invalid_request_error', status: 404 },
  // beyond-v1.md, "Webhook endpoints".
  invalid_webhook_url: { type: 'invalid_request_error', status: 400 },
  invalid_event_type: { type: 'invalid_request_error', status: 400 },
  too_many_webhook_endpoints: { type: 'invalid_request_error', status: 400 },
  webhook_endpoint_not_found: { type: 'invalid_request_error', status: 404 },
  event_not_found: { type: 'invalid_request_error', status: 404 },
  webhook_endpoint_disabled: { type: 'invalid_request_error', status: 409 },
  idempotency_in_flight: { type: 'invalid_request_error', status: 409 },
  // beyond-v2.md "Queues and time zones": queue with scheduledFor, a queue's zone and slots, an account not the caller's.
  invalid_queue: { type: 'invalid_request_error', status: 400 },
  invalid_time_zone: { type: 'invalid_request_error', status: 400 },
  invalid_slot: { type: 'invalid_request_error', status: 400 },
  account_not_found: { type: 'invalid_request_error', status: 404 },
  // beyond-v1.md "The post lifecycle": PATCH or publish of a post past the point of change, retry of one that may be live.
  post_not_editable: { type: 'invalid_request_error', status: 409 },
  post_not_retryable: { type: 'invalid_request_error', status: 409 },
  idempotency_key_reused: { type: 'invalid_request_error', status: 422 },
  // beyond-v2.md "Post metrics": a refresh of a post not live, or sooner than 5 minutes after the last; an analytics period.
  post_not_published: { type: 'invalid_request_error', status: 409 },
  metrics_refresh_too_soon: { type: 'rate_limit_error', status: 429 },
  invalid_period: { type: 'invalid_request_error', status: 400 },
  // Not in beyond-v2.md's list: the platform could not give the figures now (a rate limit, an outage, a token to reconnect).
  metrics_unavailable: { type: 'api_error', status: 503 },
  // beyond-v2.md "Media through the API".
  invalid_media_request: { type: 'invalid_request_error', status: 400 },
  unsupported_media_type: { type: 'invalid_request_error', status: 400 },
  media_too_large: { type: 'invalid_request_error', status: 400 },
  media_type_mismatch: { type: 'invalid_request_error', status: 400 },
  media_unreadable: { type: 'invalid_request_error', status: 400 },
  media_upload_missing: { type: 'invalid_request_error', status: 400 },
  media_storage_full: { type: 'invalid_request_error', status: 400 },
  media_fetch_failed: { type: 'invalid_request_error', status: 400 },
  media_not_found: { type: 'invalid_request_error', status: 404 },
  media_in_use: { type: 'invalid_request_error', status: 409 },
  rate_limit_burst: { type: 'rate_limit_error', status: 429 },
  rate_limit_daily: { type: 'rate_limit_error', status: 429 },
  internal_error: { type: 'api_error', status: 500 },
} as const satisfies Record<string, { type: ErrorType; status: number }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The per-target reasons of a `rejected` or `failed` post_result (api-v1.md, Rejection reasons). */
export const REJECTION_REASONS = [
  'account_unresolved',
  'platform_not_available',
  'text_empty',
  'text_too_long',
  'media_required',
  'unsupported_media',
  'video_too_long',
  'invalid_thread',
  'invalid_poll',
  'invalid_document',
  'invalid_first_comment',
  'token_invalid',
  'token_refresh_failed',
  'quota_exceeded',
  'schedule_failed',
  // beyond-v2.md: `queue: true` and the account's queue has no slot, or none free within 30 days.
  'queue_empty',
  'queue_full',
] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

export interface ApiErrorBody {
  error: { type: ErrorType; code: string; message: string; param: string | null };
}

export class ApiError extends Error {
  readonly type: ErrorType;
  readonly status: number;
  readonly param: string | null;
  /** Extra top-level fields of the response body beside `error` (the `posts` of a create that accepted nothing). */
  readonly extraBody: Record<string, unknown> | undefined;
  /** Extra response headers (Retry-After on a 429). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    readonly code: ErrorCode | RejectionReason,
    message: string,
    options: {
      param?: string | null;
      cause?: unknown;
      extraBody?: Record<string, unknown>;
      headers?: Record<string, string>;
      /** Needed only when `code` is a rejection reason (create that accepted nothing). */
      status?: number;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ApiError';
    const known = (ERROR_CODES as Record<string, { type: ErrorType; status: number }>)[code];
    this.type = known?.type ?? 'invalid_request_error';
    this.status = options.status ?? known?.status ?? 400;
    this.param = options.param ?? null;
    this.extraBody = options.extraBody;
    this.headers = options.headers;
  }

  toBody(): ApiErrorBody & Record<string, unknown> {
    return {
      error: { type: this.type, code: this.code, message: this.message, param: this.param },
      ...(this.extraBody ?? {}),
    };
  }
}

/** Thrown by adapters when a dependency misbehaves; mapped to the generic 500 with nothing internal shown. */
export class DependencyError extends Error {
  readonly code: string = 'dependency_failed';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'DependencyError';
  }
}
