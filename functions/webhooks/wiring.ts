/**
 * The composition the webhook endpoint functions share: each builds the WebhookEndpoints use case
 * with only the adapters its operation uses, so it reads only the settings (and needs only the
 * grants) of those (infra/stacks/function-access.ts). A part a function does not wire fails
 * loudly if its operation ever reached it.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { ENV, optionalEnv, requireEnv } from '../../lib/config.js';
import { SqsWebhookQueue } from '../../lib/dispatch/webhook-queue.js';
import { DnsWebhookUrlResolver } from '../../lib/egress/webhook-sender.js';
import { readSecret } from '../../lib/secrets.js';
import { DynamoDbWebhookStore } from '../../lib/store/dynamodb-webhook-store.js';
import { tokenCipherFromEnv } from '../../lib/store/token-cipher.js';
import { systemClock } from '../../lib/use-cases/ports/clock.js';
import { WebhookEndpoints, type WebhookEndpointsDeps } from '../../lib/use-cases/webhooks/endpoints.js';

function notWired<T extends object>(part: string): T {
  return new Proxy({} as T, {
    get: () => {
      throw new Error(`${part} is not wired in this function`);
    },
  });
}

export interface EndpointParts {
  /** Encrypts new signing secrets (create, rotate): the token key. */
  cipher?: boolean;
  /** Resolves a new URL (create, update). */
  resolver?: boolean;
  /** Queues a delivery (test). */
  queue?: boolean;
  /** Signs list cursors (list). */
  cursor?: boolean;
}

export function webhookEndpoints(parts: EndpointParts): WebhookEndpoints {
  const deps: WebhookEndpointsDeps = {
    store: new DynamoDbWebhookStore(),
    cipher: parts.cipher ? tokenCipherFromEnv() : notWired('The token cipher'),
    queue: parts.queue ? new SqsWebhookQueue(new SQSClient({}), requireEnv(ENV.webhookQueueUrl)) : notWired('The webhook queue'),
    resolver: parts.resolver ? new DnsWebhookUrlResolver() : notWired('The URL resolver'),
    clock: systemClock,
    // The local stack alone sets it: endpoints on http://127.0.0.1 for tests and local receivers.
    urlRules: { allowLoopbackHttp: parts.resolver ? optionalEnv(ENV.webhookAllowLoopback, 'false') === 'true' : false },
    cursorSigningKey: parts.cursor
      ? () => readSecret(ENV.cursorSigningKey, ENV.cursorSigningKeySecretId)
      : () => Promise.reject(new Error('The cursor signing key is not wired in this function')),
  };
  return new WebhookEndpoints(deps);
}
