/**
 * The person's consent without a browser, for tests about what a grant can do rather than about
 * the pages: it follows the authorize redirect over HTTP like a browser would, then answers the
 * consent through the same Authorization flow the consent page calls (lib/oauth/authorization.ts),
 * as the given user. The browser test (test/mcp/mcp-browser.test.ts) walks the real pages.
 */
import { ENV, requireEnv } from '../../lib/config.js';
import { Authorization } from '../../lib/oauth/authorization.js';
import { HttpClientMetadataFetcher } from '../../lib/oauth/client-metadata-fetcher.js';
import { ClientDirectory } from '../../lib/oauth/clients.js';
import { serviceUrls } from '../../lib/oauth/metadata.js';
import { systemClock } from '../../lib/use-cases/ports/clock.js';
import { DEFAULT_RATE_LIMITS } from '../../lib/domain/rate-windows.js';
import { DynamoDbRateLimiter } from '../../lib/store/dynamodb-rate-limiter.js';
import { DynamoDbGrantStore } from '../../lib/store/dynamodb-grant-store.js';
import { DynamoDbOAuthClientStore } from '../../lib/store/dynamodb-oauth-client-store.js';
import { sendFrom } from './http.js';
import type { Consent } from './mcp-client.js';

export function consentFlow(origin: string): Authorization {
  const tableName = requireEnv(ENV.oauthTable);
  return new Authorization({
    clients: new ClientDirectory({
      clients: new DynamoDbOAuthClientStore({ tableName }),
      fetcher: new HttpClientMetadataFetcher({ allowLoopback: true }),
      clock: systemClock,
      allowLoopback: true,
      fetchLimiter: new DynamoDbRateLimiter({ limits: DEFAULT_RATE_LIMITS }),
    }),
    grants: new DynamoDbGrantStore({ tableName }),
    clock: systemClock,
    urls: serviceUrls(origin),
  });
}

export function directConsent(origin: string, userId: string, answer: { approve?: boolean; scopes?: string[] } = {}): Consent {
  return async (authorizationUrl) => {
    const response = await sendFrom({ method: 'GET', url: authorizationUrl.toString() });
    const location = response.headers.location;
    if (response.status !== 302 || !location) throw new Error(`authorize answered ${response.status}: ${response.text}`);
    const next = new URL(location, origin);
    const requestId = next.searchParams.get('request');
    if (next.origin !== origin || !requestId) return next;
    const flow = consentFlow(origin);
    const pending = await flow.show(requestId, userId);
    return new URL(
      await flow.answer({ requestId, formToken: pending.formToken, userId, approve: answer.approve ?? true, scopes: answer.scopes ?? pending.scopes }),
    );
  };
}
