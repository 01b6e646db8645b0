/**
 * An assistant is limited like an API key: its grant is the caller, counted by the API's own
 * limiter per minute (here lowered to 8), with the rate-limit headers on every answer and 429 +
 * Retry-After past the limit. A second grant of the same person has its own budget, as a second
 * key would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../lib/config.js';
import { directConsent } from '../support/direct-consent.js';
import { connectAssistant, testProvider } from '../support/mcp-client.js';
import { mcpCall, toolsList } from '../support/mcp-http.js';
import { provisionUser, type ProvisionedUser } from '../support/provision.js';
import { startTestStack, type TestStack } from '../support/stack.js';

// Two sign-ins count 3 requests each against the client address (the 401, registration, token): under 8.
const LIMIT = 8;
let stack: TestStack;
let user: ProvisionedUser;

beforeAll(async () => {
  stack = await startTestStack({ env: { [ENV.rateLimitPerMinute]: String(LIMIT) } });
  user = await provisionUser();
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

async function accessToken(name: string): Promise<string> {
  const assistant = await connectAssistant(`${stack.origin}/mcp`, directConsent(stack.origin, user.userId), testProvider(name));
  await assistant.close();
  return assistant.provider.savedTokens?.access_token ?? '';
}

describe('rate limits of an assistant', () => {
  it('counts each grant like an API key: headers on every answer, 429 with Retry-After past the limit', async () => {
    const first = await accessToken('Busy assistant');
    const statuses: number[] = [];
    let refused: Record<string, string> | undefined;
    // Two minute windows at most can be touched, so at most 2 × LIMIT are admitted.
    for (let request = 0; request < 2 * LIMIT + 2; request++) {
      const response = await mcpCall(stack.origin, first, toolsList);
      expect(response.headers['x-ratelimit-limit']).toBe(String(LIMIT));
      statuses.push(response.status);
      if (response.status === 429) refused ??= response.headers;
    }
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(2 * LIMIT);
    expect(statuses).toContain(429);
    expect(Number(refused?.['retry-after'])).toBeGreaterThan(0);

    // Another grant of the same person is another caller with its own budget.
    const second = await accessToken('Quiet assistant');
    expect((await mcpCall(stack.origin, second, toolsList)).status).toBe(200);
  }, 60_000);
});
