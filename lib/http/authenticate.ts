/**
 * Reads `Authorization: Bearer <API_KEY>` and verifies the key (lib/use-cases/authenticate-caller.ts).
 * A failure is not raised here: it is recorded for the rate-limit step, which first counts it
 * against the client address (so key guessing is throttled) and then raises it - or a 429 once
 * the address is over its limit.
 */
import { ApiError } from '../domain/errors.js';
import type { CallerAuthenticator } from '../use-cases/authenticate-caller.js';
import type { HttpMiddleware } from './pipeline-state.js';
import { pipelineState } from './pipeline-state.js';

// RFC 9110: the scheme is case-insensitive; one or more spaces separate it from the token.
const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

/** The key of a Bearer Authorization header, or null when the header is absent or another scheme. */
export function bearerToken(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  const match = BEARER.exec(authorization.trim());
  return match?.[1] ?? null;
}

export function authenticate(authenticator: CallerAuthenticator): HttpMiddleware {
  return {
    name: 'authenticate',
    before: async (request) => {
      const state = pipelineState(request);
      const authorization = state.request.headers['authorization'];
      const token = bearerToken(authorization);
      if (token === null) {
        // A Bearer scheme followed by something with spaces in it is a malformed key, not a missing one.
        state.authFailure =
          authorization !== undefined && /^bearer[ \t]+\S/i.test(authorization.trim())
            ? new ApiError('api_key_malformed', 'The API key is not shaped like a key of this service (ak_<id>_<secret>).')
            : new ApiError('api_key_missing', 'No API key: send it in the header `Authorization: Bearer <API_KEY>`.');
        return;
      }
      try {
        state.caller = await authenticator.authenticate(token);
      } catch (error) {
        // Only the 401s wait for the count; a failing directory read is a 500 at once.
        if (error instanceof ApiError && error.status === 401) state.authFailure = error;
        else throw error;
      }
    },
  };
}
