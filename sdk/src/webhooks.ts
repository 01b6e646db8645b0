/**
 * Verifies a webhook delivery by the Standard Webhooks scheme (beyond-v1.md, "Delivery"), with
 * Web Crypto only, so a receiver on Node.js 20+ or an edge runtime needs nothing else:
 *
 *   signature = base64(HMAC-SHA256(secret, "<webhook-id>.<webhook-timestamp>.<raw body>"))
 *
 * `webhook-signature` holds one `v1,<signature>` entry per secret the sender signs with (two while
 * a secret is being rotated); one match is enough. The timestamp must be within the tolerance of
 * now, so a captured delivery cannot be replayed later.
 */
import { WebhookVerificationError } from './errors.js';
import type { components } from './generated/openapi.js';

type Post = components['schemas']['Post'];
type Account = components['schemas']['Account'];
/** The envelope as openapi.yaml defines it (`WebhookEvent`): id, object, type, createdAt, data. */
type Envelope = components['schemas']['WebhookEvent'];

/**
 * What `data.object` is for each event type. openapi.yaml types `data.object` only as an object
 * (its description names the post, the account, or `{}` for a test), so this one mapping is said
 * here, from the generated Post and Account.
 */
type ObjectOf<T extends Envelope['type']> = T extends `post.${string}` ? Post : T extends `account.${string}` ? Account : Record<string, never>;

/**
 * The event a delivery carries (beyond-v1.md, "Events"): the generated envelope, its `type`
 * narrowing `data.object` (`event.type === 'post.published'` gives a Post).
 */
export type WebhookEvent = {
  [T in Envelope['type']]: Omit<Envelope, 'type' | 'data'> & { type: T; data: { object: ObjectOf<T> } };
}[Envelope['type']];

/** Headers as fetch gives them, or as Node's `IncomingMessage.headers` does. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far the timestamp may be from now, in seconds (300, as the Standard Webhooks libraries). */
  toleranceSeconds?: number;
  /** Now, in ms since the epoch: for replaying a delivery kept aside. */
  now?: number;
}

const DEFAULT_TOLERANCE_SECONDS = 5 * 60;
// Bounds on what a sender controls, so a hostile request cannot make the receiver do much work.
const MAX_SIGNATURE_HEADER_LENGTH = 4096;
const MAX_SIGNATURES = 16;

/**
 * Checks the delivery's signature and age and answers the parsed event; throws
 * WebhookVerificationError otherwise. `payload` must be the raw body exactly as received (before
 * any JSON parsing). `secret` is the endpoint's `whsec_…` secret; pass several to accept any of them.
 */
export async function verifyWebhook(
  payload: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not a Unix time in seconds.');
  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', `webhook-timestamp is more than ${toleranceSeconds} s from now.`);
  }
  if (signatures.length > MAX_SIGNATURE_HEADER_LENGTH) throw new WebhookVerificationError('no_matching_signature', 'webhook-signature is too long.');

  const body = typeof payload === 'string' ? new TextEncoder().encode(payload) : payload instanceof Uint8Array ? payload : new Uint8Array(payload);
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);

  const candidates = signatures
    .split(' ')
    .slice(0, MAX_SIGNATURES)
    .flatMap((entry) => {
      const [version, value] = entry.split(',', 2);
      // Other versions (v1a, asymmetric) are for other verifiers: skipped, as the standard says.
      const bytes = version === 'v1' && value !== undefined ? base64Bytes(value) : null;
      return bytes ? [bytes] : [];
    });

  for (const key of await Promise.all((typeof secret === 'string' ? [secret] : secret).map(hmacKey))) {
    for (const candidate of candidates) {
      // subtle.verify compares in constant time, so the comparison leaks nothing about the signature.
      if (await crypto.subtle.verify('HMAC', key, candidate, signed)) return parseEvent(body);
    }
  }
  throw new WebhookVerificationError('no_matching_signature', 'No signature in webhook-signature matches the secret.');
}

function header(headers: WebhookHeaders, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : (headers[name] ?? headers[name.toLowerCase()]);
  const text = Array.isArray(value) ? value.join(' ') : value;
  if (typeof text !== 'string' || text === '') throw new WebhookVerificationError('missing_header', `The ${name} header is missing.`);
  return text;
}

async function hmacKey(secret: string) {
  const bytes = base64Bytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  if (!bytes || bytes.length === 0) throw new WebhookVerificationError('invalid_secret', 'The secret is not a whsec_ secret (base64 after the prefix).');
  return crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
}

function base64Bytes(value: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value)) return null;
  try {
    const binary = atob(value);
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
    return bytes;
  } catch {
    return null;
  }
}

function parseEvent(body: Uint8Array): WebhookEvent {
  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The signed payload is not JSON.');
  }
}
