/**
 * The WebhookEndpoints use case for the settings Webhooks functions, from the adapters each one
 * passes in: the store always; the token cipher for adding and rotating, the queue for test and
 * resend, the resolver for a new URL only where the function gives them. So a function's bundle
 * carries only its own SDK clients (functions/webhooks/wiring.ts builds every part in one module,
 * which puts the KMS, SQS and Secrets Manager clients in every function that imports it: ~65 kB).
 *
 * Nothing is cached here: in the local stack every function runs in one process, so each function
 * module keeps its own instance (built at its first request, once per cold start on AWS).
 */
import { ENV, optionalEnv } from '../config.js';
import { DynamoDbWebhookStore } from '../store/dynamodb-webhook-store.js';
import { systemClock } from '../use-cases/ports/clock.js';
import type { TokenCipher } from '../use-cases/ports/token-cipher.js';
import type { WebhookQueue, WebhookUrlResolver } from '../use-cases/ports/webhooks.js';
import { WebhookEndpoints } from '../use-cases/webhooks/endpoints.js';

export interface WebhookParts {
  cipher?: TokenCipher;
  queue?: WebhookQueue;
  resolver?: WebhookUrlResolver;
}

/** A part this function does not wire: fails loudly if its operation ever reached it. */
function notWired<T extends object>(part: string): T {
  return new Proxy({} as T, {
    get: () => {
      throw new Error(`${part} is not wired in this function`);
    },
  });
}

export function settingsWebhookEndpoints(parts: WebhookParts = {}): WebhookEndpoints {
  return new WebhookEndpoints({
    store: new DynamoDbWebhookStore(),
    cipher: parts.cipher ?? notWired('The token cipher'),
    queue: parts.queue ?? notWired('The webhook queue'),
    resolver: parts.resolver ?? notWired('The URL resolver'),
    clock: systemClock,
    // The local stack alone sets it: endpoints on http://127.0.0.1 for tests and local receivers.
    urlRules: { allowLoopbackHttp: parts.resolver ? optionalEnv(ENV.webhookAllowLoopback, 'false') === 'true' : false },
    // The page lists every endpoint at once (WebhookEndpoints.all): no cursor to sign.
    cursorSigningKey: () => Promise.reject(new Error('The cursor signing key is not wired in the settings functions')),
  });
}
