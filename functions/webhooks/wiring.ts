/**
 * The composition the webhook endpoint functions share: each builds the WebhookEndpoints use case
 * with only the adapters its operation uses, built in its own module, so its bundle holds (and its
 * environment names) only those: the SQS client, the KMS cipher and the cursor secret are each in
 * one or two of these functions (infra/stacks/function-access.ts). A part a function does not wire
 * fails loudly if its operation ever reached it.
 */
import { ENV, optionalEnv } from '../../lib/config.js';
import { DynamoDbWebhookStore } from '../../lib/store/dynamodb-webhook-store.js';
import { systemClock } from '../../lib/use-cases/ports/clock.js';
import { WITHOUT_IDEMPOTENCY_KEYS } from '../../lib/use-cases/idempotent-request.js';
import { WebhookEndpoints, type WebhookEndpointsDeps } from '../../lib/use-cases/webhooks/endpoints.js';

function notWired<T extends object>(part: string): T {
  return new Proxy({} as T, {
    get: () => {
      throw new Error(`${part} is not wired in this function`);
    },
  });
}

export type EndpointParts = Partial<Pick<WebhookEndpointsDeps, 'idempotency' | 'cipher' | 'queue' | 'resolver' | 'cursorSigningKey'>>;

export function webhookEndpoints(parts: EndpointParts): WebhookEndpoints {
  return new WebhookEndpoints({
    store: new DynamoDbWebhookStore(),
    // The API's three POSTs and the settings add form wire the idempotency table; the rest take no key.
    idempotency: parts.idempotency ?? WITHOUT_IDEMPOTENCY_KEYS,
    cipher: parts.cipher ?? notWired('The token cipher'),
    queue: parts.queue ?? notWired('The webhook queue'),
    resolver: parts.resolver ?? notWired('The URL resolver'),
    clock: systemClock,
    // The local stack alone sets it: endpoints on http://127.0.0.1 for tests and local receivers.
    urlRules: { allowLoopbackHttp: parts.resolver ? optionalEnv(ENV.webhookAllowLoopback, 'false') === 'true' : false },
    cursorSigningKey: parts.cursorSigningKey ?? (() => Promise.reject(new Error('The cursor signing key is not wired in this function'))),
  });
}
