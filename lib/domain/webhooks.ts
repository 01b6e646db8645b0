/**
 * Webhooks (beyond-v1.md "Webhook endpoints", "Events", "Delivery"): the pure rules. What an
 * endpoint may be, which event a committed change means, how a delivery is signed (Standard
 * Webhooks) and when a failed one is tried again. No I/O: the address checks, the store and the
 * outbound request are adapters (lib/egress, lib/store/dynamodb-webhook-store.ts).
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { ApiError } from './errors.js';
import { randomToken } from './ids.js';
import { mediaStatus, type Account, type MediaItem, type Post } from './model.js';

export const WEBHOOK_EVENT_TYPES = [
  'post.published',
  'post.failed',
  'post.platform_deleted',
  'account.connected',
  'account.disconnected',
  'account.token_health_changed',
  'media.ready',
  'media.failed',
] as const;
export type ChangeEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** `webhook.test` is sent only by the test action; every endpoint takes it, listed or not. */
export type WebhookEventType = ChangeEventType | 'webhook.test';
/** What `enabledEvents` may list: every type the docs list, so a list copied from them is taken. */
const LISTABLE_EVENT_TYPES: readonly string[] = [...WEBHOOK_EVENT_TYPES, 'webhook.test'];

export const MAX_WEBHOOK_ENDPOINTS = 16;
/**
 * What an endpoint's secret ciphertext binds as its encryption context's accountId: never an
 * account's id, so a secret cannot pass for a token, and the webhook functions' KMS grant names
 * this prefix alone (infra/stacks/function-access.ts): they cannot decrypt a platform token.
 */
export const WEBHOOK_SECRET_CONTEXT_PREFIX = 'webhook-endpoint:';

/** The encryption context of an endpoint's secrets: bound to the endpoint, never valid as an account's token. */
export function secretContext(endpointId: string): { accountId: string } {
  return { accountId: `${WEBHOOK_SECRET_CONTEXT_PREFIX}${endpointId}` };
}

export const MAX_WEBHOOK_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 500;
/** The old secret keeps signing beside the new one for this long after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;
/**
 * At most this many secrets sign at once (the newest and those still in their overlap): rotating
 * more often within a day drops the oldest. Without a bound the rate limit allowed ~1,300
 * rotations before the endpoint item passed DynamoDB's 400 KB (every later write of it a 500),
 * and each delivery carried that many signatures, each one a KMS Decrypt when not cached.
 */
export const MAX_SIGNING_SECRETS = 10;
/** Events and deliveries are kept this long (TTL), long enough for every retry and the settings page. */
export const WEBHOOK_RECORD_TTL_SECONDS = 30 * 24 * 60 * 60;
/** An endpoint whose deliveries have all failed for this long is disabled. */
export const FAILING_DISABLE_MS = 3 * 24 * 60 * 60 * 1000;
/** A delivery attempt gives up after this long (beyond-v1.md: a 2xx within 10 seconds). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** The receiver's answer is read up to this many bytes, then the connection is dropped. */
export const MAX_RESPONSE_BYTES = 4 * 1024;
/**
 * Deliveries to one endpoint at the same moment. Enough for a fast receiver to take a burst at
 * once (slots turn over in milliseconds), few enough that a slow or dead one holds at most this
 * many deliveries for its 10 s timeout.
 */
export const ENDPOINT_IN_FLIGHT_LIMIT = 10;
/** A message waits this long at most for a slot of its endpoint (trying as slotRetryPauseMs says) before it is put back on the queue. */
export const SLOT_WAIT_MS = 1_000;
/**
 * The router's batch messages (a burst's first attempts) wait longer: a burst to one endpoint is
 * several of them, each waiting for the ones before it, whose lanes give the slots back within a
 * second or two. With 1 s, a message that lost the race for the freed slots to a later one went back
 * on the queue for 1-2 s more and came last (500-post burst: its events ~2 s after the others').
 * Retries and tests are single events: a busy endpoint puts them back after SLOT_WAIT_MS.
 */
export const BATCH_SLOT_WAIT_MS = 3_000;
export const SLOT_RETRY_MS = 100;
/**
 * A single message (a retry, a test, a resend) waiting for a busy endpoint's slot tries again after
 * SLOT_RETRY_MS, then twice as long each time, up to this. A hanging endpoint gathers such messages
 * (each of its deliveries retried is one), and every waiting one reads the slots each try: at a
 * fixed SLOT_RETRY_MS their Queries alone slowed every other customer's requests (measured in
 * docs/webhooks.md, "Delivery"). The router's batch messages keep SLOT_RETRY_MS: they are one per
 * endpoint and stream batch, and a burst waits on them.
 */
export const SLOT_RETRY_MAX_MS = 400;

/** The pause before try `tries` + 1 for a slot (jittered by `random` in [0, 1)). */
export function slotRetryPauseMs(tries: number, single: boolean, random: number): number {
  const base = single ? Math.min(SLOT_RETRY_MS * 2 ** tries, SLOT_RETRY_MAX_MS) : SLOT_RETRY_MS;
  return base * (0.5 + random);
}
/**
 * How long one message keeps starting deliveries on the slots it took: a fast receiver takes a
 * whole batch well within it; a slow or dead one holds the invocation for about this plus one
 * timeout, and what was not started goes back on the queue.
 */
export const ENDPOINT_TURN_MS = 5_000;
/**
 * Slots are leased for the turn, one attempt's timeout and this margin: a crashed worker's slots
 * free themselves, and a live one never outlasts its lease.
 */
export const ENDPOINT_SLOT_LEASE_MARGIN_MS = 5_000;
/** Events per batch message (the router's stream batches hold up to 100 records). */
export const MAX_EVENTS_PER_MESSAGE = 100;

export type WebhookEndpointStatus = 'enabled' | 'disabled';

/** A signing secret as kept: encrypted, with when it stops signing (null: the current one). */
export interface StoredSecret {
  encrypted: string;
  createdAt: string;
  expiresAt: string | null;
}

export interface WebhookEndpoint {
  id: string;
  userId: string;
  url: string;
  enabledEvents: string[];
  description: string | null;
  status: WebhookEndpointStatus;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
  secrets: StoredSecret[];
  /** When the first of an unbroken run of failed deliveries happened; null after any success. */
  failingSince: string | null;
}

/** The `webhook_endpoint` object (beyond-v1.md): never a secret. */
export interface WebhookEndpointView {
  object: 'webhook_endpoint';
  id: string;
  url: string;
  enabledEvents: string[];
  description: string | null;
  status: WebhookEndpointStatus;
  disabledReason: string | null;
  createdAt: string;
}

export function webhookEndpointView(endpoint: WebhookEndpoint): WebhookEndpointView {
  return {
    object: 'webhook_endpoint',
    id: endpoint.id,
    url: endpoint.url,
    enabledEvents: [...endpoint.enabledEvents],
    description: endpoint.description,
    status: endpoint.status,
    disabledReason: endpoint.disabledReason,
    createdAt: new Date(endpoint.createdAt).toISOString(),
  };
}

export function newEndpointId(): string {
  return `we_${randomToken(20)}`;
}

export function newTestEventId(): string {
  return `evt_${randomToken(24)}`;
}

/** `whsec_` + base64 of 32 random bytes, as Standard Webhooks libraries expect. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

// ---------------------------------------------------------------------------------------------
// Endpoint input

export interface UrlRules {
  /** Local stack only: plain http to the literal loopback address 127.0.0.1. Never on AWS. */
  allowLoopbackHttp: boolean;
}

function invalidUrl(why: string): ApiError {
  return new ApiError('invalid_webhook_url', `url ${why}.`, { param: 'url' });
}

/**
 * The URL's form: https (http only to 127.0.0.1 where allowed), at most 2,048 characters, no
 * user name or password, no fragment. Whether its host (name or address literal) is public is
 * the caller's next check (an adapter resolves it), unless this says `loopback`.
 */
export function checkWebhookUrl(value: unknown, rules: UrlRules): { url: URL; loopback: boolean } {
  if (typeof value !== 'string' || value.length === 0) throw invalidUrl('is required and must be a string');
  if (value.length > MAX_WEBHOOK_URL_LENGTH) throw invalidUrl(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidUrl('is not a valid absolute URL');
  }
  if (url.username !== '' || url.password !== '') throw invalidUrl('must not carry a user name or password');
  if (url.hash !== '') throw invalidUrl('must not have a fragment');
  if (url.protocol === 'http:') {
    if (rules.allowLoopbackHttp && url.hostname === '127.0.0.1') return { url, loopback: true };
    throw invalidUrl('must use https (plain http is not accepted)');
  }
  if (url.protocol !== 'https:') throw invalidUrl('must use https');
  return { url, loopback: false };
}

/** The 400 for a host that does not resolve to public addresses only. */
export function unreachableUrl(host: string, verdict: 'not_public' | 'unresolved'): ApiError {
  return verdict === 'unresolved'
    ? invalidUrl(`has a host (${host.slice(0, 255)}) that does not resolve`)
    : invalidUrl(`resolves to an address that is not public (private, loopback, link-local and metadata addresses are refused): ${host.slice(0, 255)}`);
}

export function checkEnabledEvents(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new ApiError('invalid_event_type', 'enabledEvents must be a non-empty array of event types, or ["*"] for all.', { param: 'enabledEvents' });
  }
  if (value.length > LISTABLE_EVENT_TYPES.length + 1) {
    throw new ApiError('invalid_event_type', 'enabledEvents lists more types than exist.', { param: 'enabledEvents' });
  }
  const out: string[] = [];
  for (const entry of value) {
    if (entry !== '*' && !(LISTABLE_EVENT_TYPES as readonly unknown[]).includes(entry)) {
      const shown = typeof entry === 'string' ? `"${entry.slice(0, 60)}"` : 'a non-string value';
      throw new ApiError('invalid_event_type', `enabledEvents contains ${shown}; known types: ${LISTABLE_EVENT_TYPES.join(', ')}, or "*".`, {
        param: 'enabledEvents',
      });
    }
    if (!out.includes(entry as string)) out.push(entry as string);
  }
  if (out.includes('*') && out.length > 1) {
    throw new ApiError('invalid_event_type', 'enabledEvents is either ["*"] or a list of event types, not both.', { param: 'enabledEvents' });
  }
  return out;
}

export function checkDescription(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > MAX_DESCRIPTION_LENGTH) {
    throw new ApiError('invalid_body', `description must be a string of at most ${MAX_DESCRIPTION_LENGTH} characters.`, { param: 'description' });
  }
  return value;
}

export function subscribes(endpoint: Pick<WebhookEndpoint, 'enabledEvents' | 'status'>, type: WebhookEventType): boolean {
  if (endpoint.status !== 'enabled') return false;
  return type === 'webhook.test' || endpoint.enabledEvents.includes('*') || endpoint.enabledEvents.includes(type);
}

/** Secrets that still sign at `now`: the current one and a rotated one within its overlap. */
export function activeSecrets(secrets: readonly StoredSecret[], now: Date): StoredSecret[] {
  return secrets.filter((secret) => secret.expiresAt === null || Date.parse(secret.expiresAt) > now.getTime());
}

/**
 * After a rotation: the new secret, the old current one until now + 24 h, nothing already expired,
 * and at most MAX_SIGNING_SECRETS in all (newest first: each rotation puts its secret in front).
 */
export function rotatedSecrets(secrets: readonly StoredSecret[], fresh: StoredSecret, now: Date): StoredSecret[] {
  const overlapEnds = new Date(now.getTime() + SECRET_OVERLAP_MS).toISOString();
  const kept = activeSecrets(secrets, now).map((secret) => (secret.expiresAt === null ? { ...secret, expiresAt: overlapEnds } : secret));
  return [fresh, ...kept].slice(0, MAX_SIGNING_SECRETS);
}

// ---------------------------------------------------------------------------------------------
// Events from committed changes

/** A post as a stream image shows it, with the one bookkeeping field an event needs. */
export interface PostImage {
  post: Post;
  platformDeletedAt: string | null;
}

/** Which events a committed change of a post means (old and new images; null when absent). */
export function postEvents(previous: PostImage | null, next: PostImage | null): ChangeEventType[] {
  if (next === null) return [];
  const events: ChangeEventType[] = [];
  if (next.post.status === 'published' && previous?.post.status !== 'published') events.push('post.published');
  if (next.post.status === 'failed' && previous?.post.status !== 'failed') events.push('post.failed');
  if (next.platformDeletedAt !== null && (previous?.platformDeletedAt ?? null) === null) events.push('post.platform_deleted');
  return events;
}

/** Which events a committed change of an account item means. */
export function accountEvents(previous: Account | null, next: Account | null): ChangeEventType[] {
  if (previous === null && next === null) return [];
  if (previous === null) return ['account.connected'];
  if (next === null) return ['account.disconnected'];
  const events: ChangeEventType[] = [];
  // A reconnect writes the account again with a new connection time.
  if (next.connectedAt !== previous.connectedAt) events.push('account.connected');
  if (next.tokenHealth !== previous.tokenHealth) events.push('account.token_health_changed');
  return events;
}

/**
 * Which events a committed change of a media item means: it settled, from waiting for its bytes
 * (an API upload) or its fetch (an import) to ready or failed. A file added ready at once (settings,
 * the admin CLI) was not waited for, so it is no event.
 */
export function mediaEvents(previous: MediaItem | null, next: MediaItem | null): ChangeEventType[] {
  if (previous === null || next === null) return [];
  const before = mediaStatus(previous);
  if (before !== 'pending' && before !== 'processing') return [];
  const after = mediaStatus(next);
  return after === 'ready' ? ['media.ready'] : after === 'failed' ? ['media.failed'] : [];
}

/**
 * The event id of a change, the same every time the same stream record is handled: so a router
 * that handles a batch twice (a crash before its checkpoint, a Lambda retry) writes the same
 * event, never a second one.
 */
export function changeEventId(source: string, sequenceNumber: string, type: ChangeEventType): string {
  const digest = createHash('sha256').update(`${source}\u0000${sequenceNumber}\u0000${type}`).digest('base64url');
  return `evt_${digest.replace(/[-_]/g, '').slice(0, 24)}`;
}

export interface WebhookEventEnvelope {
  id: string;
  object: 'event';
  type: WebhookEventType;
  createdAt: string;
  data: { object: unknown };
}

export function eventEnvelope(id: string, type: WebhookEventType, createdAt: string, object: unknown): WebhookEventEnvelope {
  return { id, object: 'event', type, createdAt: new Date(createdAt).toISOString(), data: { object } };
}

// ---------------------------------------------------------------------------------------------
// Signing (Standard Webhooks)

/** The key bytes of a `whsec_` secret. */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, one per secret, space-separated. */
export function signatureHeader(id: string, timestampSeconds: number, body: string, secrets: readonly string[]): string {
  return secrets
    .map((secret) => `v1,${createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`)
    .join(' ');
}

export function signedHeaders(id: string, now: Date, body: string, secrets: readonly string[]): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(id, timestamp, body, secrets),
  };
}

// ---------------------------------------------------------------------------------------------
// Retries

/**
 * Wait after failed attempt n (1-based), before jitter: a blip costs seconds (three retries within
 * about 2.5 minutes), a long outage is covered for more than 24 hours (12 attempts over ~32 h).
 */
export const RETRY_DELAYS_SECONDS = [5, 30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 28_800, 28_800] as const;
export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** Milliseconds to wait after failed attempt `attempt`, ±20 % jitter (random in [0, 1)); null when no attempt is left. */
export function retryDelayMs(attempt: number, random: number): number | null {
  const base = RETRY_DELAYS_SECONDS[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * 1000 * (0.8 + 0.4 * random));
}

export type AttemptOutcome =
  | { kind: 'succeeded'; statusCode: number }
  | { kind: 'gone'; statusCode: 410 }
  | { kind: 'failed'; statusCode: number | null; error: string };

/** What a receiver's answer means: any 2xx succeeds, 410 disables, everything else is retried. */
export function classifyAnswer(statusCode: number): AttemptOutcome {
  if (statusCode >= 200 && statusCode < 300) return { kind: 'succeeded', statusCode };
  if (statusCode === 410) return { kind: 'gone', statusCode: 410 };
  const error = statusCode >= 300 && statusCode < 400 ? `HTTP ${statusCode} (redirects are not followed)` : `HTTP ${statusCode}`;
  return { kind: 'failed', statusCode, error };
}

/** After a failed delivery: the endpoint is disabled when everything has failed for 3 days. */
export function shouldDisableForFailures(failingSince: string | null, now: Date): boolean {
  return failingSince !== null && now.getTime() - Date.parse(failingSince) >= FAILING_DISABLE_MS;
}
