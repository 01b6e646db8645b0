/**
 * The SDK's webhook verifier (sdk/src/webhooks.ts) against deliveries signed by the reference
 * implementation, the `standardwebhooks` package: what it signs verifies, and a changed body, id or
 * timestamp, another secret, an old or future timestamp or a missing header does not. During a
 * secret rotation the sender signs with both secrets, and a receiver holding either one verifies.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from '../../sdk/src/index.js';
import { verifyWebhook as verifyFromSubpath } from '../../sdk/src/webhooks.js';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

const event: WebhookEvent = { id: 'evt_1', object: 'event', type: 'webhook.test', createdAt: '2026-11-25T08:00:00.000Z', data: { object: {} } };
const body = JSON.stringify(event);

/** A delivery as the sender makes it: one `v1,` signature per secret, space-separated. */
function delivery(secrets: string[], options: { id?: string; at?: Date; payload?: string } = {}) {
  const id = options.id ?? 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
  const at = options.at ?? new Date();
  const payload = options.payload ?? body;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, at, payload)).join(' '),
  };
}

async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationError> {
  const error = await promise.then(
    () => {
      throw new Error('verified, but should not have');
    },
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return error as WebhookVerificationError;
}

describe('verifyWebhook', () => {
  it('verifies what the standardwebhooks package signs, from a string, bytes or Headers, and answers the event', async () => {
    const secret = newSecret();
    const headers = delivery([secret]);
    expect(await verifyWebhook(body, headers, secret)).toEqual(event);
    expect(await verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret)).toEqual(event);
    expect(await verifyFromSubpath(Buffer.from(body), headers, secret)).toEqual(event);
    // The reference accepts the same delivery: both sides agree on the scheme.
    expect(new Webhook(secret).verify(body, headers)).toEqual(event);
  });

  it('refuses a changed body, id or timestamp, and another secret', async () => {
    const secret = newSecret();
    const headers = delivery([secret]);
    expect((await refusal(verifyWebhook(body.replace('webhook.test', 'post.published'), headers, secret))).code).toBe('no_matching_signature');
    expect((await refusal(verifyWebhook(body, { ...headers, 'webhook-id': 'msg_other' }, secret))).code).toBe('no_matching_signature');
    const timestamp = String(Number(headers['webhook-timestamp']) - 1);
    expect((await refusal(verifyWebhook(body, { ...headers, 'webhook-timestamp': timestamp }, secret))).code).toBe('no_matching_signature');
    expect((await refusal(verifyWebhook(body, headers, newSecret()))).code).toBe('no_matching_signature');
  });

  it('refuses a timestamp outside the tolerance, either way, and accepts one inside it', async () => {
    const secret = newSecret();
    const now = Date.now();
    const old = delivery([secret], { at: new Date(now - 6 * 60_000) });
    const future = delivery([secret], { at: new Date(now + 6 * 60_000) });
    expect((await refusal(verifyWebhook(body, old, secret, { now }))).code).toBe('timestamp_out_of_tolerance');
    expect((await refusal(verifyWebhook(body, future, secret, { now }))).code).toBe('timestamp_out_of_tolerance');
    expect(await verifyWebhook(body, old, secret, { now, toleranceSeconds: 10 * 60 })).toEqual(event);
    expect(await verifyWebhook(body, delivery([secret], { at: new Date(now - 4 * 60_000) }), secret, { now })).toEqual(event);
  });

  it('during a rotation, a delivery signed with the old and the new secret verifies with either, or with both given', async () => {
    const [oldSecret, rotated] = [newSecret(), newSecret()];
    const headers = delivery([oldSecret, rotated]);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(await verifyWebhook(body, headers, oldSecret)).toEqual(event);
    expect(await verifyWebhook(body, headers, rotated)).toEqual(event);
    // A receiver that already holds the new secret beside the old one accepts a delivery signed by either.
    expect(await verifyWebhook(body, delivery([oldSecret]), [rotated, oldSecret])).toEqual(event);
    expect((await refusal(verifyWebhook(body, headers, newSecret()))).code).toBe('no_matching_signature');
  });

  it('skips signature entries of other versions or malformed ones, and still finds a valid one after them', async () => {
    const secret = newSecret();
    const headers = delivery([secret]);
    const signature = `v1a,${randomBytes(64).toString('base64')} v1,not*base64 v2 ${headers['webhook-signature']}`;
    expect(await verifyWebhook(body, { ...headers, 'webhook-signature': signature }, secret)).toEqual(event);
  });

  it('refuses missing headers, a timestamp that is not a number, a bad secret and an unparsable body', async () => {
    const secret = newSecret();
    const headers = delivery([secret]);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [name]: _dropped, ...rest } = headers;
      expect((await refusal(verifyWebhook(body, rest, secret))).code).toBe('missing_header');
    }
    expect((await refusal(verifyWebhook(body, { ...headers, 'webhook-timestamp': '1e9' }, secret))).code).toBe('invalid_timestamp');
    expect((await refusal(verifyWebhook(body, headers, 'whsec_%%%'))).code).toBe('invalid_secret');
    const notJson = 'not json';
    expect((await refusal(verifyWebhook(notJson, delivery([secret], { payload: notJson }), secret))).code).toBe('invalid_payload');
  });
});
