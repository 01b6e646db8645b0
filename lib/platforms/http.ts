/**
 * The one way the platform adapters talk HTTP: global fetch with a timeout, and every failure
 * turned into exactly one class of lib/domain/platform-errors.ts. The worker's choice between
 * "retry", "fail" and "check the platform first" rests on this classification, so it is here
 * once rather than in each adapter.
 */
import type { PublishablePlatform } from '../domain/model.js';
import {
  PlatformAmbiguousError,
  PlatformAuthError,
  PlatformRateLimitedError,
  PlatformRefusedError,
  PlatformUnavailableError,
} from '../domain/platform-errors.js';
import type { PlatformTokens } from '../use-cases/ports/platform-publisher.js';

/** Per-adapter timeouts, by kind of call; defaults in platformCall. */
export interface PlatformTimeouts {
  /** Create call: long enough for the platform under load, shorter than the worker's own timeout. */
  createTimeoutMs?: number;
  requestTimeoutMs?: number;
  uploadTimeoutMs?: number;
}

export type PlatformCallKind = 'create' | 'request' | 'upload';

export interface PlatformCall {
  platform: PublishablePlatform;
  /**
   * True only for the request that creates the post: losing its answer leaves the post possibly
   * live, so that loss is ambiguous. For every other call (uploads, status, delete, refresh) a
   * lost answer is harmless to repeat and counts as unavailable.
   */
  createsPost: boolean;
  timeoutMs: number;
  /** Values that must never appear in an error (the tokens this call used). */
  secrets: readonly string[];
}

/** The call description of one request: its timeout by kind, and whether it creates the post. */
export function platformCall(
  platform: PublishablePlatform,
  timeouts: PlatformTimeouts,
  secrets: readonly string[],
  kind: PlatformCallKind = 'request',
): PlatformCall {
  const timeoutMs =
    kind === 'create'
      ? (timeouts.createTimeoutMs ?? 20_000)
      : kind === 'upload'
        ? (timeouts.uploadTimeoutMs ?? 120_000)
        : (timeouts.requestTimeoutMs ?? 15_000);
  return { platform, createsPost: kind === 'create', timeoutMs, secrets };
}

/**
 * Error codes of Node's fetch (undici) that are raised before any byte of the request reached
 * the platform: nothing can have been created.
 */
const FAILED_BEFORE_SENDING = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function errorCodeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Short, token-free description of a network failure, kept as the error's cause. */
function describeNetworkError(error: unknown): { name: string; code: string | undefined; message: string } {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  return { name, code: errorCodeOf(error), message };
}

export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 6) out = out.split(secret).join('[redacted]');
  }
  // Belt and braces: anything that looks like an Authorization value never leaves the adapter.
  return out.replace(/(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g, '$1 [redacted]');
}

/** Maps a network failure (no HTTP answer) to the class the worker acts on. */
export function classifyNetworkError(error: unknown, call: PlatformCall): Error {
  const detail = describeNetworkError(error);
  const cause = { ...detail, message: redact(detail.message, call.secrets) };
  const code = detail.code;
  if (code !== undefined && FAILED_BEFORE_SENDING.has(code)) {
    return new PlatformUnavailableError(`Could not connect to ${call.platform} (${code})`, { platform: call.platform, cause });
  }
  const timedOut = detail.name === 'TimeoutError' || detail.name === 'AbortError';
  const what = timedOut ? `no answer from ${call.platform} within ${call.timeoutMs} ms` : `connection to ${call.platform} lost (${code ?? detail.name})`;
  if (call.createsPost) {
    return new PlatformAmbiguousError(`The post was sent but ${what}`, { platform: call.platform, cause });
  }
  return new PlatformUnavailableError(`Request failed: ${what}`, { platform: call.platform, cause });
}

/** fetch with the call's timeout; network failures come out classified. */
export async function platformFetch(url: string, init: RequestInit, call: PlatformCall): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(call.timeoutMs) });
  } catch (error) {
    throw classifyNetworkError(error, call);
  }
}

/** Reads the whole body; a connection lost while reading is a network failure like any other. */
export async function readText(response: Response, call: PlatformCall): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    throw classifyNetworkError(error, call);
  }
}

export function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What the platform said, from any of the error shapes they use: X problem objects
 * (`detail`, with `errors[].message` for invalid requests), X's older `{errors: [{code, message}]}`,
 * LinkedIn's `{status, serviceErrorCode | code, message}`, and OAuth's `error_description`.
 */
export function platformMessage(body: unknown): string | null {
  if (!isRecord(body)) return null;
  const errors = body.errors;
  if (Array.isArray(errors)) {
    const messages = errors
      .map((entry) => (isRecord(entry) && typeof entry.message === 'string' ? entry.message : null))
      .filter((message): message is string => message !== null && message !== '');
    if (messages.length > 0) return messages.join('; ');
  }
  for (const field of ['detail', 'message', 'error_description', 'title', 'error'] as const) {
    const value = body[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return null;
}

/** When a 429 says the limit resets: X's x-rate-limit-reset (Unix seconds), else Retry-After. */
export function rateLimitReset(headers: Headers, now: Date = new Date()): Date | null {
  const reset = Number(headers.get('x-rate-limit-reset'));
  if (Number.isFinite(reset) && reset > 0) return new Date(reset * 1000);
  const retryAfter = headers.get('retry-after');
  if (retryAfter !== null) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return new Date(now.getTime() + seconds * 1000);
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return new Date(date);
  }
  return null;
}

export interface FailedAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * A gateway's answer to a create (bad gateway, unavailable, gateway timeout) says nothing about
 * whether the platform behind it created the post: the request may have gone through before the
 * gateway gave up. Only these are read as ambiguous; a 500 is the platform's own failure.
 */
const GATEWAY_STATUSES = new Set([502, 503, 504]);

/**
 * The error for a non-2xx answer, by status: 401 auth, 429 rate limited, 5xx unavailable (a
 * gateway status to a create: ambiguous), other 4xx refused with the platform's words.
 * Platform-specific readings (X duplicate, LinkedIn duplicate URN) are checked by the adapter
 * before falling back to this.
 */
export function errorForAnswer(answer: FailedAnswer, call: PlatformCall): Error {
  const body = parseJson(answer.text);
  const said = redact(platformMessage(body) ?? (answer.text.slice(0, 300) || `HTTP ${answer.status}`), call.secrets);
  const options = {
    platform: call.platform,
    status: answer.status,
    cause: { status: answer.status, body: redact(answer.text.slice(0, 2000), call.secrets) },
  };
  if (answer.status === 401) return new PlatformAuthError(said, options);
  if (answer.status === 429) return new PlatformRateLimitedError(said, { ...options, resetAt: rateLimitReset(answer.headers) });
  if (call.createsPost && GATEWAY_STATUSES.has(answer.status)) {
    return new PlatformAmbiguousError(said, options);
  }
  if (answer.status >= 500) return new PlatformUnavailableError(said, options);
  return new PlatformRefusedError(said, options);
}

/**
 * The error for a non-2xx answer of an OAuth token endpoint. Both platforms answer a refused
 * grant with 400 (OAuth's invalid_request/invalid_grant) or 401: that is final, like a 401, not a
 * content refusal. Anything else is classified as any other answer.
 */
export function tokenEndpointError(answer: FailedAnswer, call: PlatformCall): Error {
  if (answer.status === 400 || answer.status === 401) {
    const said = redact(platformMessage(parseJson(answer.text)) ?? `HTTP ${answer.status}`, call.secrets);
    return new PlatformAuthError(said, { platform: call.platform, status: answer.status, cause: { status: answer.status } });
  }
  return errorForAnswer(answer, call);
}

/** Reads an OAuth token answer (both platforms use the standard fields). */
export function tokensFrom(answer: unknown, previousRefreshToken: string, platform: PublishablePlatform): PlatformTokens {
  if (!isRecord(answer) || typeof answer.access_token !== 'string' || answer.access_token === '') {
    throw new PlatformUnavailableError(`${platform} token endpoint answered without an access token`, { platform });
  }
  const expiresIn = typeof answer.expires_in === 'number' ? answer.expires_in : null;
  return {
    accessToken: answer.access_token,
    // Keep the newest refresh token: X may rotate it, and the old one then stops working.
    refreshToken: typeof answer.refresh_token === 'string' && answer.refresh_token !== '' ? answer.refresh_token : previousRefreshToken,
    expiresAt: expiresIn === null ? null : new Date(Date.now() + expiresIn * 1000).toISOString(),
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
